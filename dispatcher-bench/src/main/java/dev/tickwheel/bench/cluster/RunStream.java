package dev.tickwheel.bench.cluster;

import dev.tickwheel.concurrent.NamedThreadFactory;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The steady load of a take-over run: {@code POST /api/jobs/{id}/run {"delayMs": D}} after a random gap of
 * {@code gapMinMs..gapMaxMs} each, over the jobs in turn, sent round-robin to the running members. So an instance
 * falls due every gap, {@code D} after its run was sent, and every member's shards get some. Every 201 is written
 * down (instance, job, shard, due time as the server gave it); every failed request too.
 *
 * <p>Thread-safe. Threads: one pacing thread, which only hands requests over, and a few sender threads (an API call
 * that takes long delays that request, not the pace).
 */
final class RunStream implements AutoCloseable {

    /** A run the server created. */
    record Run(long instanceId, ClusterJob job, long sentAtMs, long dueMs) {
    }

    private static final int SENDERS = 8;

    private final ClusterProcesses cluster;
    private final List<ClusterJob> jobs;
    private final long gapMinMs;
    private final long gapMaxMs;
    private final long delayMs;
    private final SplittableRandom random; // confined to the pacing thread
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor(
            new NamedThreadFactory("bench-run-pacer", true));
    private final ExecutorService senders = Executors.newFixedThreadPool(SENDERS,
            new NamedThreadFactory("bench-run-sender", true));
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicInteger rotation = new AtomicInteger(); // round-robin position, shared by the senders
    private final AtomicLong sent = new AtomicLong(); // handed to a sender; read by stop()
    private final AtomicLong answered = new AtomicLong(); // finished by a sender; read by stop()
    private int nextJob; // confined to the pacing thread
    private volatile boolean stopping; // set by the benchmark thread, read by the pacing thread

    private RunStream(ClusterProcesses cluster, List<ClusterJob> jobs, long gapMinMs, long gapMaxMs, long delayMs,
                      long seed) {
        if (jobs.isEmpty() || gapMinMs < 1 || gapMaxMs < gapMinMs || delayMs < 0) {
            throw new IllegalArgumentException("bad run stream: " + jobs.size() + " jobs, gap " + gapMinMs + ".."
                    + gapMaxMs + " ms, delay " + delayMs + " ms");
        }
        this.cluster = cluster;
        this.jobs = List.copyOf(jobs);
        this.gapMinMs = gapMinMs;
        this.gapMaxMs = gapMaxMs;
        this.delayMs = delayMs;
        this.random = new SplittableRandom(seed);
    }

    /** Starts sending now. */
    static RunStream start(ClusterProcesses cluster, List<ClusterJob> jobs, long gapMinMs, long gapMaxMs,
                           long delayMs, long seed) {
        RunStream stream = new RunStream(cluster, jobs, gapMinMs, gapMaxMs, delayMs, seed);
        stream.pacer.execute(stream::tick);
        return stream;
    }

    private void tick() {
        if (stopping) {
            return;
        }
        ClusterJob job = jobs.get(nextJob);
        nextJob = (nextJob + 1) % jobs.size();
        sent.incrementAndGet();
        senders.execute(() -> send(job));
        pacer.schedule(this::tick, random.nextLong(gapMinMs, gapMaxMs + 1), TimeUnit.MILLISECONDS);
    }

    private void send(ClusterJob job) {
        try {
            long sentAtMs = System.currentTimeMillis();
            Optional<MemberApi.Reply> reply = onSomeMember(job);
            if (reply.isEmpty()) {
                failures.add("run of job " + job.id() + ": no member running");
                return;
            }
            if (reply.get().status() != 201) {
                failures.add("run of job " + job.id() + ": " + reply.get());
                return;
            }
            runs.add(new Run(Long.parseLong(reply.get().json().get("instanceId").asText()), job, sentAtMs,
                    Instant.parse(reply.get().json().get("expectedTriggerTime").asText()).toEpochMilli()));
        } catch (RuntimeException e) {
            failures.add("run of job " + job.id() + ": " + e);
        } finally {
            answered.incrementAndGet();
        }
    }

    /** Tries the running members from the next round-robin position on, until one takes the request. */
    private Optional<MemberApi.Reply> onSomeMember(ClusterJob job) {
        List<Member> members = cluster.members();
        int start = Math.floorMod(rotation.getAndIncrement(), members.size());
        String body = "{\"delayMs\": " + delayMs + "}";
        for (int k = 0; k < members.size(); k++) {
            Optional<MemberApi.Reply> reply = members.get((start + k) % members.size())
                    .call(api -> api.post("/api/jobs/" + job.id() + "/run", body));
            if (reply.isPresent()) {
                return reply;
            }
        }
        return Optional.empty();
    }

    /** Stops pacing and waits (at most 60 s) until every run handed to a sender has been answered. */
    void stop() throws InterruptedException {
        stopping = true;
        pacer.shutdown();
        pacer.awaitTermination(10, TimeUnit.SECONDS);
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (answered.get() < sent.get() && System.nanoTime() - deadlineNanos < 0) {
            Thread.sleep(20);
        }
        senders.shutdown();
    }

    /** Every run created so far. */
    List<Run> runs() {
        return List.copyOf(runs);
    }

    /** Requests that got no 201, each with why. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() {
        stopping = true;
        pacer.shutdownNow();
        senders.shutdownNow();
    }
}
