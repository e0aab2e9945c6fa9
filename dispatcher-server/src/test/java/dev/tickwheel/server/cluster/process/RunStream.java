package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.api.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The load of a cluster test: {@code POST /api/jobs/{id}/run} at a steady pace (one every {@code over / runs}), over
 * the test's jobs in turn, sent round-robin to the members that are running, each run due after a random delay; and,
 * if the plan says so, a cancel of some of the runs with long delays, sent later through a member other than the one
 * that created the run. Every answer is written down: the runs created (with the due time the server gave), the
 * cancels and their answers, and every request that failed.
 *
 * <p>The random delays and cancel times come from the plan's seed, drawn up front: the same seed gives the same plan
 * (the timing of the run, of course, differs).
 *
 * <p>Thread-safe. Threads: one pacing thread (it only hands requests over), a pool of sender threads (a slow member,
 * e.g. one waiting for its store, delays the requests it gets, not the pace).
 */
final class RunStream implements AutoCloseable {

    /**
     * What to send.
     *
     * @param runs             how many runs
     * @param over             how long sending them takes
     * @param maxDelayMs       each run's {@code delayMs} is uniform in 0..maxDelayMs
     * @param cancelEvery      every n-th run with a delay of at least {@code cancelMinDelayMs} is cancelled; 0: none
     * @param cancelMinDelayMs at least 5 000: the cancel is sent 1 s after the run's answer at the earliest and 3 s
     *                         before it is due at the latest, so it should find the instance WAITING
     * @param seed             of the delays and the cancel times
     */
    record Plan(int runs, Duration over, long maxDelayMs, int cancelEvery, long cancelMinDelayMs, long seed) {
        Plan {
            if (runs < 1 || over.isNegative() || over.isZero() || maxDelayMs < 0 || cancelEvery < 0) {
                throw new IllegalArgumentException("bad plan: runs " + runs + ", over " + over + ", maxDelayMs "
                        + maxDelayMs + ", cancelEvery " + cancelEvery);
            }
            if (cancelEvery > 0 && cancelMinDelayMs < 5_000) {
                throw new IllegalArgumentException("cancelMinDelayMs must be at least 5000: " + cancelMinDelayMs);
            }
        }

        static Plan withoutCancels(int runs, Duration over, long maxDelayMs, long seed) {
            return new Plan(runs, over, maxDelayMs, 0, Long.MAX_VALUE, seed);
        }
    }

    /** A run the server created: the 201's instance and due time, and who created it. */
    record Run(long instanceId, long jobId, int shard, String via, int viaNode, long delayMs, long sentAtMillis,
               long dueMillis) {
    }

    /** A cancel and its answer ({@code outcome} from the body: CANCELLED, ALREADY_DISPATCHED, ALREADY_FINISHED). */
    record CancelAnswer(long instanceId, String createdVia, String via, int viaNode, int status, String outcome,
                        long sentAtMillis, long answeredAtMillis, long dueMillis) {

        boolean cancelled() {
            return status == 200 && "CANCELLED".equals(outcome);
        }
    }

    private static final int SENDERS = 24;

    private final ClusterNodes nodes;
    private final List<WebhookJobs.TestJob> jobs;
    private final Plan plan;
    private final long[] delayMs;
    private final long[] cancelAfterMs; // -1: not cancelled
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor(
            NamedThreads.daemon("run-stream-pacer"));
    private final ExecutorService senders = Executors.newFixedThreadPool(SENDERS,
            NamedThreads.daemon("run-stream-sender"));
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<CancelAnswer> cancels = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> skippedCancels = new ConcurrentLinkedQueue<>();
    private final AtomicInteger rotation = new AtomicInteger(); // round-robin position, shared by the senders
    private final AtomicInteger finishedRuns = new AtomicInteger(); // senders count; the test thread waits on it
    private final AtomicInteger plannedCancels = new AtomicInteger(); // counted before the run counts as finished
    private final AtomicInteger finishedCancels = new AtomicInteger(); // senders count; the test thread waits on it
    private int nextRun; // confined to the pacing thread
    private volatile ScheduledFuture<?> ticking; // set by the test thread, cancelled by the pacing thread at the end
    private volatile long startedAtMillis; // written once by start(), read by the test thread

    private RunStream(ClusterNodes nodes, List<WebhookJobs.TestJob> jobs, Plan plan) {
        this.nodes = nodes;
        this.jobs = List.copyOf(jobs);
        this.plan = plan;
        this.delayMs = new long[plan.runs()];
        this.cancelAfterMs = new long[plan.runs()];
        SplittableRandom random = new SplittableRandom(plan.seed());
        for (int i = 0; i < plan.runs(); i++) {
            delayMs[i] = random.nextLong(plan.maxDelayMs() + 1);
            boolean cancel = plan.cancelEvery() > 0 && i % plan.cancelEvery() == plan.cancelEvery() - 1
                    && delayMs[i] >= plan.cancelMinDelayMs();
            cancelAfterMs[i] = cancel ? 1_000 + random.nextLong(delayMs[i] - 4_000 + 1) : -1;
        }
    }

    /** Starts sending now. */
    static RunStream start(ClusterNodes nodes, List<WebhookJobs.TestJob> jobs, Plan plan) {
        if (jobs.isEmpty()) {
            throw new IllegalArgumentException("no jobs to run");
        }
        RunStream stream = new RunStream(nodes, jobs, plan);
        long periodNanos = Math.max(1, plan.over().toNanos() / plan.runs());
        stream.startedAtMillis = System.currentTimeMillis();
        stream.ticking = stream.pacer.scheduleAtFixedRate(stream::tick, 0, periodNanos, TimeUnit.NANOSECONDS);
        return stream;
    }

    private void tick() {
        if (nextRun >= plan.runs()) {
            ScheduledFuture<?> self = ticking;
            if (self != null) {
                self.cancel(false);
            }
            return;
        }
        int index = nextRun++;
        senders.execute(() -> sendRun(index));
    }

    private void sendRun(int index) {
        WebhookJobs.TestJob job = jobs.get(index % jobs.size());
        try {
            long sentAtMillis = System.currentTimeMillis();
            Optional<Sent> sent = onSomeMember(member -> true, member -> member.call(api -> new Sent(member,
                    api.post("/api/jobs/" + job.id() + "/run", "{\"delayMs\": " + delayMs[index] + "}"))));
            if (sent.isEmpty()) {
                failures.add("run " + index + ": no member running");
                return;
            }
            ApiClient.Reply reply = sent.get().reply();
            if (reply.status() != 201) {
                failures.add("run " + index + " via " + sent.get().member() + ": " + reply);
                return;
            }
            long instanceId = Long.parseLong(reply.json().get("instanceId").asText());
            Run run = new Run(instanceId, job.id(), job.shardOf(instanceId),
                    sent.get().member().name(), sent.get().member().nodeId(), delayMs[index], sentAtMillis,
                    Instant.parse(reply.json().get("expectedTriggerTime").asText()).toEpochMilli());
            runs.add(run);
            if (cancelAfterMs[index] >= 0) {
                plannedCancels.incrementAndGet();
                pacer.schedule(() -> senders.execute(() -> sendCancel(run)), cancelAfterMs[index],
                        TimeUnit.MILLISECONDS);
            }
        } catch (AssertionError | RuntimeException e) { // ApiClient reports I/O failures as AssertionError
            failures.add("run " + index + ": " + e);
        } finally {
            finishedRuns.incrementAndGet();
        }
    }

    private void sendCancel(Run run) {
        try {
            long sentAtMillis = System.currentTimeMillis();
            Optional<Sent> sent = onSomeMember(member -> !member.name().equals(run.via()),
                    member -> member.call(api -> new Sent(member,
                            api.post("/api/instances/" + run.instanceId() + "/cancel", null))));
            if (sent.isEmpty()) {
                skippedCancels.add(run.instanceId() + ": no member other than " + run.via() + " running");
                return;
            }
            ApiClient.Reply reply = sent.get().reply();
            cancels.add(new CancelAnswer(run.instanceId(), run.via(), sent.get().member().name(),
                    sent.get().member().nodeId(), reply.status(), reply.json().path("outcome").asText(""),
                    sentAtMillis, System.currentTimeMillis(), run.dueMillis()));
            if (reply.status() != 200 && reply.status() != 409) {
                failures.add("cancel of " + run.instanceId() + " via " + sent.get().member() + ": " + reply);
            }
        } catch (AssertionError | RuntimeException e) {
            failures.add("cancel of " + run.instanceId() + ": " + e);
        } finally {
            finishedCancels.incrementAndGet();
        }
    }

    private record Sent(MemberProcess member, ApiClient.Reply reply) {
    }

    /** Tries the running members allowed, from the next round-robin position on, until one takes the request. */
    private <T> Optional<T> onSomeMember(Predicate<MemberProcess> allowed,
                                         Function<MemberProcess, Optional<T>> request) {
        List<MemberProcess> members = nodes.members();
        int start = Math.floorMod(rotation.getAndIncrement(), members.size());
        for (int k = 0; k < members.size(); k++) {
            MemberProcess member = members.get((start + k) % members.size());
            if (allowed.test(member)) {
                Optional<T> done = request.apply(member);
                if (done.isPresent()) {
                    return done;
                }
            }
        }
        return Optional.empty();
    }

    /** Waits until every run has been sent and answered, and every cancel planned for them too. */
    void awaitDone(Duration bound) {
        Await.until(() -> "the run stream to finish: " + describe(), bound,
                () -> finishedRuns.get() == plan.runs() && finishedCancels.get() == plannedCancels.get());
    }

    /** When the first run was due to be sent (wall clock). */
    long startedAtMillis() {
        return startedAtMillis;
    }

    List<Run> runs() {
        return List.copyOf(runs);
    }

    List<CancelAnswer> cancels() {
        return List.copyOf(cancels);
    }

    /** Runs and cancels that got no answer, or an unexpected one, each with why. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Cancels not sent because no member other than the run's creator was running at the time. */
    List<String> skippedCancels() {
        return List.copyOf(skippedCancels);
    }

    /** The latest due time of the runs created so far (wall clock), or 0 if none. */
    long lastDueMillis() {
        return runs.stream().mapToLong(Run::dueMillis).max().orElse(0);
    }

    String describe() {
        long cancelled = cancels.stream().filter(CancelAnswer::cancelled).count();
        return "runs created " + runs.size() + " of " + plan.runs() + " (" + finishedRuns.get() + " answered, "
                + failures.size() + " failed requests), cancels sent " + cancels.size() + " of "
                + plannedCancels.get() + " planned (" + cancelled + " CANCELLED, " + (cancels.size() - cancelled)
                + " not), skipped " + skippedCancels.size() + ", seed " + plan.seed();
    }

    @Override
    public void close() {
        pacer.shutdownNow();
        senders.shutdownNow();
    }
}
