package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.fixtures.Throttled;
import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.StoredInstances;
import dev.tickwheel.fixtures.cluster.StoredInstances.Stored;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.cluster.process.DeliveryAudit.LatencySummary;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reschedules aimed at the moment instances fire, in a two-member cluster of server processes on PostgreSQL, sent
 * both through the member that owns the instances' shard and through the one that does not: each instance must be
 * delivered exactly once, at the time its answer says (RESCHEDULED: the new time, never the old one; 409
 * ALREADY_DISPATCHED or ALREADY_FINISHED: the old time), and a reschedule through the non-owner must reach the owner
 * promptly (the {@code Rescheduled} prompt over LISTEN/NOTIFY), not at its next sweep.
 *
 * <p><b>What it does.</b> Two members share a fresh schema (default lease and loader settings: the sweep that would
 * catch a lost prompt runs every {@value #LOADER_PERIOD_MS} ms). One on-demand webhook job targets the
 * {@link LedgerReceiver}, which writes down each delivery's instance, (node, epoch) and the body's {@code key} and
 * {@code expectedTriggerTime}. Once the leases have settled, the test reads from {@code GET /api/cluster} which member
 * holds the job's shard (and checks it against the {@code shard} of an instance). {@value #WARM_UP_RUNS} warm-up runs
 * are created, rescheduled and delivered through both members, so that the race meets compiled code and the sends go
 * out when planned. Then {@value #RUNS} keyed runs are created ({@code POST /api/jobs/{id}/run} with {@code key} and
 * {@code at}, alternately through either member), due from {@value #FIRST_DUE_MS} ms after the start of their
 * creation (later if the warm-up's calls showed that creating them takes longer on this machine now: the race must
 * come after the last run was created), one every {@value #DUE_SPACING_MS} ms. Each is rescheduled
 * {@value #MOVE_BY_MS} ms later ({@code delayMs} or {@code at}, by instance ID or by key, drawn from the seed) at its
 * own planned moment: from {@value #EARLIEST_SEND_MS} ms before to {@value #LATEST_SEND_MS} ms after its due time
 * (uniform, from the seed), aimed at the moment it fires; every {@value #EARLY_EVERY}th instead
 * {@value #EARLY_SEND_MIN_MS}..{@value #EARLY_SEND_MAX_MS} ms before, so that some reschedules are accepted even when
 * a busy machine answers too slowly for any race to be won. Every {@value #OWNER_EVERY}th goes through the owner,
 * the others through the non-owner. Every answer is written down. The test then waits (bounded, polling) until every
 * instance reached the ledger and none is WAITING or DISPATCHING.
 *
 * <p><b>What it asserts</b>, for every instance:
 * <ul>
 *   <li>its run was created (201, WAITING, due when asked) and its reschedule answered 200 RESCHEDULED (WAITING) or
 *       409 ALREADY_DISPATCHED / ALREADY_FINISHED, naming the instance and its key;</li>
 *   <li>it was delivered exactly once, with its key, and ended SUCCEEDED after one attempt (a second claim would show
 *       as attempt 2);</li>
 *   <li>RESCHEDULED: the answer's time is later than the old one; the delivery's {@code expectedTriggerTime} and the
 *       store's are the answer's, and the delivery arrived no earlier than it (receiver's clock; the members and the
 *       receiver read one machine's clock, so the slack is {@value #SAME_CLOCK_SLACK_MS} ms of clock reads);</li>
 *   <li>ALREADY_*: the answer's time, the delivery's and the store's are the original due time, and both the
 *       answer and the delivery arrived no earlier than it (nothing is claimed before it is due);</li>
 *   <li>the scenario's premise: every delivery came from the owner under the lease epoch read before the runs were
 *       created (the shard did not move, so "owner" and "non-owner" mean what they say).</li>
 * </ul>
 * And overall: at least {@value #MIN_RESCHEDULED_VIA_NON_OWNER} reschedules through the non-owner answered
 * RESCHEDULED, and those instances were delivered on average within {@value #PROMPT_MEAN_LATENESS_MS} ms of their new
 * time beyond what the machine adds without a prompt (the mean lateness of those rescheduled through the owner, a few
 * ms on a quiet machine): the owner re-armed them on the prompt (a lost prompt would leave them to the sweep, up to
 * {@value #LOADER_PERIOD_MS} ms late). How many reschedules went each way depends on timing and is printed, not
 * asserted, with the lateness of the deliveries (n, mean, p50, p90, max) per member and outcome, and any sweep that
 * armed instances.
 */
@ProcessLane
@Tag("cluster")
class ClusterRescheduleProcessTest {

    private static final int RUNS = 300;
    /** The first run is due this long after their creation starts; one every {@link #DUE_SPACING_MS} after it. */
    private static final long FIRST_DUE_MS = 2_500;
    /** Time left, beyond the creation time the warm-up predicts, between the last run's creation and the race. */
    private static final long CREATION_HEADROOM_MS = 1_500;
    /** The first run is due at most this long after their creation starts, however slow the warm-up was. */
    private static final long MAX_FIRST_DUE_MS = 10_000;
    private static final long DUE_SPACING_MS = 8;
    private static final long MOVE_BY_MS = 3_000;
    /** A racing reschedule is sent between this long before its instance is due ... */
    private static final long EARLIEST_SEND_MS = 40;
    /** ... and this long after. */
    private static final long LATEST_SEND_MS = 20;
    /**
     * Every n-th run is rescheduled early instead, {@link #EARLY_SEND_MIN_MS}..{@link #EARLY_SEND_MAX_MS} before it is
     * due: those are RESCHEDULED even when a busy machine answers the API in hundreds of ms and no race is won, so
     * the prompt path is always measured.
     */
    private static final int EARLY_EVERY = 5;
    private static final long EARLY_SEND_MIN_MS = 1_000;
    private static final long EARLY_SEND_MAX_MS = 1_500;
    /** Every n-th run is rescheduled through the owner of its shard, the others through the non-owner. */
    private static final int OWNER_EVERY = 4;
    private static final int CREATORS = 8;
    /** Runs created, rescheduled and delivered through both members before the race, so it meets warm JVMs. */
    private static final int WARM_UP_RUNS = 200;
    /** The server's default loader period: the sweep that arms overdue instances a lost prompt left unarmed. */
    private static final long LOADER_PERIOD_MS = 15_000;
    /** Two processes reading one machine's wall clock: millisecond reads, no skew. */
    private static final long SAME_CLOCK_SLACK_MS = 5;
    /**
     * The prompt path: the owner re-arms within milliseconds of the reschedule, so the deliveries come a few ms after
     * their new time, as late as those rescheduled through the owner itself (re-armed in the API call); a few hundred
     * ms more on average leaves room for a contended 2-core machine (PostgreSQL, two server JVMs and the test JVM),
     * while an instance left to the sweep would be seconds late.
     */
    private static final long PROMPT_MEAN_LATENESS_MS = 500;
    /** Of the about {@value #RUNS} / {@value #EARLY_EVERY} * 3 / 4 early reschedules through the non-owner. */
    private static final int MIN_RESCHEDULED_VIA_NON_OWNER = 15;

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private final LedgerReceiver ledger = new LedgerReceiver();

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl());
    final ClusterProcesses nodes = teardown.cluster();

    /** A run as created: {@code dueMs} is the time its 201 answered. */
    private record Run(int index, String key, long instanceId, long dueMs, String createdVia) {
    }

    /** How a run is rescheduled, drawn up front from the seed. */
    private record Plan(boolean viaOwner, boolean byKey, boolean byDelay, boolean early, long sendBeforeDueMs) {
    }

    /** A reschedule and its answer; {@code answeredDueMillis} is the answer's {@code expectedTriggerTime}. */
    private record Answer(Run run, Plan plan, String via, long sentAtMs, long answeredAtMs, int status,
                          String outcome,
                          String answeredId, String answeredKey, String answeredStatus, long answeredDueMillis) {

        boolean rescheduled() {
            return "RESCHEDULED".equals(outcome);
        }
    }

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        ledger.close();
        db.dropSchema();
    }

    @Test
    void reschedulesRacingTheFire_viaOwnerAndNonOwner_eachRunsOnceAtTheTimeItsAnswerSays_promptPathIsPrompt()
            throws Exception {
        long seed = System.nanoTime();
        nodes.start(); // the first member runs the migrations; the second joins a ready schema
        nodes.start(1);
        nodes.awaitSpread(Duration.ofSeconds(45));
        // A job with a maxConcurrent (far above what the test reaches) keeps its instances on its shard, so one
        // member owns all of them and "through the owner" and "through the non-owner" hold for every run.
        ClusterJob job = ClusterJob.create(nodes, ledger.url(), 1, "reschedule", 100_000).get(0);
        ledger.keepsOneOwner(job.id());
        ClusterSnapshot settled = awaitSettled(Duration.ofSeconds(30));
        ClusterSnapshot.ShardRow lease = settled.shards().stream().filter(s -> s.shard() == job.shard())
                .findFirst().orElseThrow(() -> new AssertionError("no lease row for shard " + job.shard()));
        Member owner = memberWithNode(lease.nodeId());
        Member other = nodes.running().stream().filter(m -> m != owner).findFirst()
                .orElseThrow(() -> new AssertionError("no second running member: " + nodes.members()));
        StringBuilder story = new StringBuilder("settled: " + settled.describe() + "\njob " + job.id() + ", shard "
                + job.shard() + " held by " + owner + " under epoch " + lease.epoch() + "; non-owner " + other + "\n");

        List<String> failures = new ArrayList<>();
        WarmUp warmUp = warmUp(job, owner, other);
        story.append("warm-up: ").append(warmUp).append('\n');
        // Creating RUNS runs costs RUNS calls; the warm-up made two calls per run, on this machine, just now.
        long predictedCreationMs = warmUp.callsMs() * RUNS / (2L * WARM_UP_RUNS);
        long firstDueMs = Math.min(MAX_FIRST_DUE_MS,
                Math.max(FIRST_DUE_MS, predictedCreationMs + CREATION_HEADROOM_MS));
        long createStartMillis = System.currentTimeMillis();
        List<Run> runs = createRuns(job, owner, other, createStartMillis + firstDueMs, failures);
        long createdAfterMs = System.currentTimeMillis() - createStartMillis;
        story.append("created ").append(runs.size()).append(" runs in ").append(createdAfterMs)
                .append(" ms (predicted ").append(predictedCreationMs).append(" ms); the first is due ")
                .append(firstDueMs).append(" ms after the start\n");
        assertEquals(List.of(), failures, "every run created");
        assertEquals(RUNS, runs.size(), "every run created");
        assertInstanceShard(runs.get(0), job);

        List<Answer> answers = reschedule(job, runs, owner, other, seed, failures);
        long lastDueMillis = answers.stream().mapToLong(a -> Math.max(a.answeredDueMillis(), a.run().dueMs()))
                .max().orElse(System.currentTimeMillis());

        // Bounded waits: everything is due by lastDueMillis; a lost prompt would be caught by a sweep within a
        // loader period after that, which the bound covers so that such instances show in the checks below.
        Duration deliveryBound = Duration.ofMillis(Math.max(0, lastDueMillis - System.currentTimeMillis())
                + LOADER_PERIOD_MS + 10_000);
        Await.until(() -> "every instance delivered: " + undelivered(runs).size() + " not yet, e.g. "
                + undelivered(runs).stream().limit(5).toList(), deliveryBound,
                Throttled.every(Duration.ofMillis(100), () -> undelivered(runs).isEmpty()));
        StoredInstances.awaitAllTerminal(nodes, Duration.ofSeconds(30));
        ClusterSnapshot after = nodes.snapshot();
        nodes.requireNoneDied();
        Map<Long, Stored> stored = StoredInstances.fetchAll(nodes);

        List<String> violations = new ArrayList<>();
        List<String> premise = new ArrayList<>();
        for (Answer answer : answers) {
            check(answer, ledger.deliveriesOf(answer.run().instanceId()), stored.get(answer.run().instanceId()),
                    violations);
            for (Delivery d : ledger.deliveriesOf(answer.run().instanceId())) {
                if (d.node() != owner.nodeId() || d.epoch() != lease.epoch()) {
                    premise.add(answer.run().instanceId() + " delivered by node " + d.node() + " epoch "
                            + d.epoch());
                }
            }
        }
        List<Answer> promptPath = answers.stream().filter(a -> !a.plan().viaOwner() && a.rescheduled()).toList();
        Lateness viaOther = Lateness.of(promptPath, this::latenessMs);
        Lateness viaOwner = Lateness.of(answers.stream().filter(a -> a.plan().viaOwner() && a.rescheduled())
                .toList(), this::latenessMs);
        Lateness refused = Lateness.of(answers.stream().filter(a -> !a.rescheduled()).toList(), this::latenessMs);
        // What this machine adds now without any prompt: the owner's own re-arms fire among the same instances.
        Lateness baseline = viaOwner.summary().count() >= 5 ? viaOwner : refused;
        long promptBoundMs = PROMPT_MEAN_LATENESS_MS + Math.max(0, Math.round(baseline.meanMs()));
        List<String> sweeps = nodes.outputs(100_000).lines().filter(l -> l.contains("sweep armed")).toList();

        System.out.println("ClusterRescheduleProcessTest (seed " + seed + ")\n" + story
                + "after: " + after.describe() + "\n"
                + "answers by member and outcome: " + countByMemberAndOutcome(answers, owner) + "\n"
                + "RESCHEDULED by when the reschedule was sent (ms before due: rescheduled/all): racing "
                + byLead(answers.stream().filter(a -> !a.plan().early()).toList()) + ", early "
                + byLead(answers.stream().filter(a -> a.plan().early()).toList()) + "\n"
                + "reschedule calls: sent after their planned moment " + summary(answers,
                a -> a.sentAtMs() - (a.run().dueMs() - a.plan().sendBeforeDueMs())) + "; took "
                + summary(answers, a -> a.answeredAtMs() - a.sentAtMs()) + "\n"
                + "lateness of RESCHEDULED via the non-owner (delivery - new time): " + viaOther + "\n"
                + "lateness of RESCHEDULED via the owner (delivery - new time): " + viaOwner + "\n"
                + "lateness of refused (delivery - old time): " + refused + "\n"
                + "sweeps that armed instances nobody had armed: " + sweeps + "\n"
                + "deliveries " + ledger.size() + " for " + ledger.deliveredInstanceIds().size() + " instances");

        assertAll("every reschedule decided once, on either member, and kept",
                () -> assertEquals(List.of(), failures, "reschedules answered 200 RESCHEDULED or 409 ALREADY_*"),
                () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header and the body"),
                () -> assertEquals(RUNS, answers.size(), "every run's reschedule answered"),
                () -> assertTrue(violations.isEmpty(), () -> violations.size() + " instances not delivered once at"
                        + " the time their answer says, e.g.:\n  " + String.join("\n  ",
                        violations.subList(0, Math.min(20, violations.size())))),
                () -> assertTrue(premise.isEmpty(), () -> "premise: the shard stayed with " + owner + " under"
                        + " epoch " + lease.epoch() + ", but " + premise.size() + " deliveries came from elsewhere,"
                        + " e.g. " + premise.subList(0, Math.min(10, premise.size())) + "; after: "
                        + after.describe()),
                () -> assertTrue(promptPath.size() >= MIN_RESCHEDULED_VIA_NON_OWNER, "at least "
                        + MIN_RESCHEDULED_VIA_NON_OWNER + " reschedules through the non-owner answered RESCHEDULED"
                        + " (the prompt path was exercised): " + countByMemberAndOutcome(answers, owner)),
                () -> assertTrue(viaOther.meanMs() <= promptBoundMs, "rescheduled through the non-owner,"
                        + " delivered on average within " + PROMPT_MEAN_LATENESS_MS + " ms of the new time, beyond the"
                        + " mean lateness without a prompt (" + baseline + "), so " + promptBoundMs + " ms: the owner"
                        + " re-armed them on the prompt, not at a sweep: " + viaOther));
    }

    // ---- the scenario's steps ----

    /**
     * Waits until the leases are settled: every shard held by a running member, each running member holding some,
     * and the same (holder, epoch) for every shard on four reads in a row half a second apart.
     */
    private ClusterSnapshot awaitSettled(Duration bound) {
        ClusterSnapshot[] last = new ClusterSnapshot[1];
        int[] unchanged = {0};
        Await.until(() -> "the leases to settle; last seen: "
                        + (last[0] == null ? "nothing" : last[0].describe()), bound,
                Throttled.every(Duration.ofMillis(500), () -> {
                    ClusterSnapshot now = nodes.snapshot();
                    Set<Integer> running = new TreeSet<>();
                    nodes.running().forEach(m -> running.add(m.nodeId()));
                    boolean spread = now.unheldShards() == 0 && now.liveNodeIds().equals(running)
                            && running.stream().allMatch(id -> !now.shardsHeldBy(id).isEmpty());
                    boolean same = last[0] != null && holders(last[0]).equals(holders(now));
                    unchanged[0] = spread && same ? unchanged[0] + 1 : 0;
                    last[0] = now;
                    return unchanged[0] >= 3;
                }));
        return last[0];
    }

    private static Map<Integer, List<Long>> holders(ClusterSnapshot snapshot) {
        Map<Integer, List<Long>> holders = new TreeMap<>();
        snapshot.shards().forEach(s -> holders.put(s.shard(), List.of((long) s.nodeId(), s.epoch())));
        return holders;
    }

    private Member memberWithNode(int nodeId) {
        return nodes.running().stream().filter(m -> m.nodeId() == nodeId).findFirst()
                .orElseThrow(() -> new AssertionError("no running member is node " + nodeId + ": "
                        + nodes.members()));
    }

    /**
     * Runs through both members, each moved at once by half a second (by ID, through the member that did not create
     * it), delivered before the race starts: the code paths of the race are compiled by then, so that the reschedules
     * are sent, and the instances fire, when planned. Their outcomes are not the test's subject; the summary is
     * printed.
     */
    private WarmUp warmUp(ClusterJob job, Member owner, Member other)
            throws InterruptedException {
        ConcurrentLinkedQueue<Long> ids = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> outcomes = new ConcurrentLinkedQueue<>();
        long startNanos = System.nanoTime();
        ExecutorService workers = Executors.newFixedThreadPool(CREATORS, new NamedThreadFactory("warm-up", true));
        try {
            for (int i = 0; i < WARM_UP_RUNS; i++) {
                int index = i;
                workers.execute(() -> {
                    Member creator = index % 2 == 0 ? owner : other;
                    Member mover = index % 2 == 0 ? other : owner;
                    try {
                        ApiClient.Reply run = creator.call(api -> api.post("/api/jobs/" + job.id() + "/run",
                                "{\"key\": \"warm-up-" + index + "\", \"delayMs\": 300}")).orElseThrow();
                        String id = run.json().path("instanceId").asText();
                        ids.add(Long.parseLong(id));
                        ApiClient.Reply moved = mover.call(api -> api.post("/api/instances/" + id + "/reschedule",
                                "{\"delayMs\": 500}")).orElseThrow();
                        outcomes.add(moved.status() + " " + moved.json().path("outcome").asText());
                    } catch (RuntimeException e) {
                        outcomes.add(e.toString());
                    }
                });
            }
        } finally {
            workers.shutdown();
        }
        if (!workers.awaitTermination(60, TimeUnit.SECONDS)) {
            throw new AssertionError("warm-up runs still being created after 60 s");
        }
        long callsMs = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
        Await.until(() -> "the warm-up runs delivered", Duration.ofSeconds(30),
                Throttled.every(Duration.ofMillis(100), () -> ledger.deliveredInstanceIds().containsAll(ids)));
        Map<String, Integer> counts = new TreeMap<>();
        outcomes.forEach(o -> counts.merge(o, 1, Integer::sum));
        Map<Long, Long> lateness = new HashMap<>();
        for (long id : ids) {
            Delivery first = ledger.deliveriesOf(id).get(0);
            lateness.put(id, first.receivedAtMs() - first.expectedTriggerMs());
        }
        return new WarmUp(ids.size(), counts, callsMs, Duration.ofNanos(System.nanoTime() - startNanos).toMillis(),
                LatencySummary.of(lateness));
    }

    /**
     * What the warm-up did: its runs, the reschedules' answers, how long its calls and its deliveries took, and how
     * late the deliveries were.
     */
    private record WarmUp(int runs, Map<String, Integer> answers, long callsMs, long deliveredMs,
                          LatencySummary lateness) {
        @Override
        public String toString() {
            return runs + " runs, reschedules " + answers + ", calls done after " + callsMs + " ms, delivered after "
                    + deliveredMs + " ms, lateness (delivery - its expectedTriggerTime) " + lateness;
        }
    }

    /** {@value #RUNS} keyed runs, due one every {@value #DUE_SPACING_MS} ms from {@code firstDueMillis}. */
    private List<Run> createRuns(ClusterJob job, Member owner, Member other,
                                 long firstDueMillis, List<String> failures) throws InterruptedException {
        ConcurrentLinkedQueue<Run> created = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
        ExecutorService creators = Executors.newFixedThreadPool(CREATORS, new NamedThreadFactory("run-create", true));
        try {
            for (int i = 0; i < RUNS; i++) {
                int index = i;
                creators.execute(() -> {
                    Member via = index % 2 == 0 ? owner : other;
                    String key = "order-" + index;
                    long dueMillis = firstDueMillis + index * DUE_SPACING_MS;
                    String body = "{\"key\": \"" + key + "\", \"at\": \"" + Instant.ofEpochMilli(dueMillis) + "\"}";
                    try {
                        Optional<ApiClient.Reply> reply = via.call(api -> api.post("/api/jobs/" + job.id() + "/run",
                                body));
                        if (reply.isEmpty()) {
                            failed.add("run " + key + ": " + via + " not running");
                            return;
                        }
                        ApiClient.Reply r = reply.get();
                        if (r.status() != 201 || !r.json().path("created").asBoolean(false)
                                || !"WAITING".equals(r.json().path("status").asText())
                                || !key.equals(r.json().path("key").asText())
                                || Instant.parse(r.json().path("expectedTriggerTime").asText()).toEpochMilli()
                                != dueMillis) {
                            failed.add("run " + key + " (due " + Instant.ofEpochMilli(dueMillis) + ") via " + via
                                    + ": " + r);
                            return;
                        }
                        created.add(new Run(index, key, Long.parseLong(r.json().get("instanceId").asText()),
                                dueMillis, via.name()));
                    } catch (RuntimeException e) { // the client reports I/O failures as UncheckedIOException
                        failed.add("run " + key + " via " + via + ": " + e);
                    }
                });
            }
        } finally {
            creators.shutdown();
        }
        if (!creators.awaitTermination(60, TimeUnit.SECONDS)) {
            failed.add("runs still being created after 60 s");
        }
        failures.addAll(failed);
        List<Run> sorted = new ArrayList<>(created);
        sorted.sort(Comparator.comparingInt(Run::index));
        return sorted;
    }

    /** The {@code shard} the API shows for an instance is the job's, the one the owner holds. */
    private void assertInstanceShard(Run run, ClusterJob job) {
        ApiClient.Reply reply = nodes.get("/api/instances/" + run.instanceId());
        assertEquals(200, reply.status(), () -> "GET /api/instances/" + run.instanceId() + ": " + reply);
        assertEquals(job.shard(), reply.json().path("shard").asInt(-1), () -> "instance shard: " + reply);
        assertEquals(Shards.of(job.id(), Shards.DEFAULT_COUNT), job.shard(), "job shard");
    }

    /**
     * Sends each run's reschedule from its own task at its planned moment (before or after its due time) and waits
     * for every answer.
     */
    private List<Answer> reschedule(ClusterJob job, List<Run> runs, Member owner,
                                    Member other, long seed, List<String> failures)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(runs.size());
        // One timer thread hands each reschedule at its moment to a thread of its own (as many as are in flight), so a
        // slow answer never holds up the next planned send.
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                new NamedThreadFactory("reschedule-timer", true));
        ExecutorService senders = Executors.newCachedThreadPool(new NamedThreadFactory("reschedule", true));
        try {
            for (Run run : runs) {
                // EARLY_EVERY and OWNER_EVERY are coprime: early reschedules go through both members too.
                boolean early = run.index() % EARLY_EVERY == EARLY_EVERY - 1;
                Plan plan = new Plan(run.index() % OWNER_EVERY == 0, random.nextBoolean(), random.nextBoolean(),
                        early, early ? random.nextLong(EARLY_SEND_MIN_MS, EARLY_SEND_MAX_MS + 1)
                                : random.nextLong(-LATEST_SEND_MS, EARLIEST_SEND_MS + 1));
                long delayMs = run.dueMs() - plan.sendBeforeDueMs() - System.currentTimeMillis();
                timer.schedule(() -> senders.execute(() -> {
                    try {
                        sendReschedule(job, run, plan, plan.viaOwner() ? owner : other, answers, failed);
                    } finally {
                        done.countDown();
                    }
                }), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
            }
            long lastDue = runs.get(runs.size() - 1).dueMs();
            if (!done.await(Math.max(0, lastDue - System.currentTimeMillis()) + 60_000, TimeUnit.MILLISECONDS)) {
                failed.add((runs.size() - done.getCount()) + " of " + runs.size() + " reschedules answered in time");
            }
        } finally {
            timer.shutdownNow();
            senders.shutdownNow();
        }
        failures.addAll(failed);
        List<Answer> sorted = new ArrayList<>(answers);
        sorted.sort(Comparator.comparingInt(a -> a.run().index()));
        return sorted;
    }

    private static void sendReschedule(ClusterJob job, Run run, Plan plan, Member via,
                                       ConcurrentLinkedQueue<Answer> answers, ConcurrentLinkedQueue<String> failed) {
        String path = plan.byKey()
                ? "/api/jobs/" + job.id() + "/runs/" + URLEncoder.encode(run.key(), StandardCharsets.UTF_8)
                        + "/reschedule"
                : "/api/instances/" + run.instanceId() + "/reschedule";
        String body = plan.byDelay() ? "{\"delayMs\": " + MOVE_BY_MS + "}"
                : "{\"at\": \"" + Instant.ofEpochMilli(run.dueMs() + MOVE_BY_MS) + "\"}";
        try {
            long sentAtMillis = System.currentTimeMillis();
            Optional<ApiClient.Reply> reply = via.call(api -> api.post(path, body));
            if (reply.isEmpty()) {
                failed.add("reschedule of " + run.key() + ": " + via + " not running");
                return;
            }
            ApiClient.Reply r = reply.get();
            String outcome = r.json().path("outcome").asText("");
            boolean expected = (r.status() == 200 && outcome.equals("RESCHEDULED"))
                    || (r.status() == 409 && (outcome.equals("ALREADY_DISPATCHED")
                    || outcome.equals("ALREADY_FINISHED")));
            if (!expected || !r.json().hasNonNull("expectedTriggerTime")) {
                failed.add("reschedule of " + run.key() + " (" + run.instanceId() + ") via " + via + " " + path
                        + " " + body + ": " + r);
                return;
            }
            answers.add(new Answer(run, plan, via.name(), sentAtMillis, System.currentTimeMillis(), r.status(),
                    outcome,
                    r.json().path("instanceId").asText(), r.json().path("key").asText(null),
                    r.json().path("status").asText(),
                    Instant.parse(r.json().get("expectedTriggerTime").asText()).toEpochMilli()));
        } catch (RuntimeException e) {
            failed.add("reschedule of " + run.key() + " via " + via + ": " + e);
        }
    }

    // ---- the checks ----

    private List<Long> undelivered(List<Run> runs) {
        Set<Long> delivered = ledger.deliveredInstanceIds();
        return runs.stream().map(Run::instanceId).filter(id -> !delivered.contains(id)).toList();
    }

    /** Adds a line to {@code violations} for each way this instance's fate disagrees with its answer. */
    private static void check(Answer a, List<Delivery> deliveries, Stored stored, List<String> violations) {
        Run run = a.run();
        String who = run.key() + " (" + run.instanceId() + ", created via " + run.createdVia() + ", due "
                + Instant.ofEpochMilli(run.dueMs()) + ", rescheduled via " + a.via() + " " + a.plan() + " sent "
                + (run.dueMs() - a.sentAtMs()) + " ms before due, answered " + a.status() + " "
                + a.outcome() + " for " + Instant.ofEpochMilli(a.answeredDueMillis()) + "): ";
        if (!Long.toString(run.instanceId()).equals(a.answeredId()) || !run.key().equals(a.answeredKey())) {
            violations.add(who + "the answer names instance " + a.answeredId() + " key " + a.answeredKey());
        }
        boolean moved = a.rescheduled();
        long expectedDue = moved ? a.answeredDueMillis() : run.dueMs();
        if (moved && (a.answeredDueMillis() <= run.dueMs() || !"WAITING".equals(a.answeredStatus()))) {
            violations.add(who + "RESCHEDULED, yet not later and WAITING: " + a.answeredStatus());
        }
        if (!moved && a.answeredDueMillis() != run.dueMs()) {
            violations.add(who + "refused, yet the answer's time is not the original one");
        }
        if (!moved && a.answeredAtMs() < run.dueMs() - SAME_CLOCK_SLACK_MS) {
            violations.add(who + "refused at " + Instant.ofEpochMilli(a.answeredAtMs()) + ", before the"
                    + " instance was due: nothing is claimed before it is due");
        }
        if (deliveries.size() != 1) {
            violations.add(who + "delivered " + deliveries.size() + " times: " + deliveries.stream()
                    .map(d -> "due " + Instant.ofEpochMilli(d.expectedTriggerMs()) + " at "
                            + Instant.ofEpochMilli(d.receivedAtMs()) + " by node " + d.node())
                    .toList());
        }
        for (Delivery d : deliveries) {
            if (d.expectedTriggerMs() != expectedDue) {
                violations.add(who + "delivered for " + Instant.ofEpochMilli(d.expectedTriggerMs())
                        + ", not " + Instant.ofEpochMilli(expectedDue) + (moved ? " (the new time)"
                        : " (the old time)"));
            }
            if (d.receivedAtMs() < expectedDue - SAME_CLOCK_SLACK_MS) {
                violations.add(who + "delivered at " + Instant.ofEpochMilli(d.receivedAtMs()) + ", "
                        + (expectedDue - d.receivedAtMs()) + " ms before " + Instant.ofEpochMilli(expectedDue));
            }
            if (!run.key().equals(d.runKey())) {
                violations.add(who + "delivered with key " + d.runKey());
            }
        }
        if (stored == null) {
            violations.add(who + "not in the store");
        } else if (!"SUCCEEDED".equals(stored.status()) || stored.attempt() != 1
                || stored.expectedTriggerMs() != expectedDue) {
            violations.add(who + "stored as " + stored.status() + ", attempt " + stored.attempt() + ", due "
                    + Instant.ofEpochMilli(stored.expectedTriggerMs()) + "; error " + stored.error());
        }
    }

    /** Delivery − the time the answer says it runs at; absent if it was not delivered exactly once. */
    private Optional<Long> latenessMs(Answer a) {
        List<Delivery> deliveries = ledger.deliveriesOf(a.run().instanceId());
        if (deliveries.size() != 1) {
            return Optional.empty();
        }
        long due = a.rescheduled() ? a.answeredDueMillis() : a.run().dueMs();
        return Optional.of(deliveries.get(0).receivedAtMs() - due);
    }

    /** Lateness of a set of deliveries: mean and the {@link LatencySummary} percentiles. */
    private record Lateness(double meanMs, LatencySummary summary) {

        static Lateness of(List<Answer> answers, Function<Answer, Optional<Long>> lateness) {
            Map<Long, Long> byId = new HashMap<>();
            for (Answer a : answers) {
                lateness.apply(a).ifPresent(ms -> byId.put(a.run().instanceId(), ms));
            }
            double mean = byId.values().stream().mapToLong(Long::longValue).average().orElse(0);
            return new Lateness(mean, LatencySummary.of(byId));
        }

        @Override
        public String toString() {
            return String.format("mean=%.1f ms %s", meanMs, summary);
        }
    }

    private static LatencySummary summary(List<Answer> answers, ToLongFunction<Answer> ms) {
        Map<Long, Long> byId = new HashMap<>();
        answers.forEach(a -> byId.put(a.run().instanceId(), ms.applyAsLong(a)));
        return LatencySummary.of(byId);
    }

    private static Map<String, Map<String, Integer>> countByMemberAndOutcome(List<Answer> answers,
                                                                             Member owner) {
        Map<String, Map<String, Integer>> counts = new TreeMap<>();
        for (Answer a : answers) {
            String member = a.via() + (a.via().equals(owner.name()) ? " (owner)" : " (non-owner)");
            counts.computeIfAbsent(member, m -> new TreeMap<>()).merge(a.outcome(), 1, Integer::sum);
        }
        return counts;
    }

    /** Rescheduled / all, by how long before the due time the reschedule was sent, in 20 ms buckets. */
    private static Map<Long, String> byLead(List<Answer> answers) {
        if (!answers.isEmpty() && answers.get(0).plan().early()) {
            long rescheduled = answers.stream().filter(Answer::rescheduled).count();
            return Map.of(EARLY_SEND_MIN_MS, rescheduled + "/" + answers.size());
        }
        Map<Long, int[]> buckets = new TreeMap<>(Comparator.reverseOrder());
        for (Answer a : answers) {
            long before = a.run().dueMs() - a.sentAtMs();
            int[] counts = buckets.computeIfAbsent(Math.floorDiv(before, 20) * 20, b -> new int[2]);
            counts[1]++;
            if (a.rescheduled()) {
                counts[0]++;
            }
        }
        Map<Long, String> shown = new TreeMap<>(Comparator.reverseOrder());
        buckets.forEach((bucket, counts) -> shown.put(bucket, counts[0] + "/" + counts[1]));
        return shown;
    }
}
