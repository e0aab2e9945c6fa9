package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.fixtures.cluster.StoredInstances;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import dev.tickwheel.server.cluster.process.DeliveryAudit.LatencySummary;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * One hot job over a three-member cluster on PostgreSQL, with real server processes: its instances are spread over
 * the shards, so every member dispatches a share of them; a job with a {@code maxConcurrent} keeps one owner, so its
 * limit holds across the members.
 */
@ProcessLane
@Tag("cluster")
class ClusterHotJobProcessTest {

    private static final Duration LEASE_TTL = Duration.ofSeconds(5);
    private static final Duration LEASE_RENEW = Duration.ofSeconds(1);
    private static final int RUNS = 3_000;
    private static final Duration SENDING = Duration.ofSeconds(24);
    private static final long MAX_DELAY_MS = 8_000;
    private static final Duration KILL_AT = Duration.ofSeconds(14);
    /**
     * Each member's share of the deliveries made while all three ran. With 256 shards spread by rendezvous hashing, a
     * member holds about a third of them (85 ± a few), and the instances' own ids pick their shards; 20–46 % leaves
     * room for the hashing's spread and for a few hundred instances, and fails when one member does it all (100 %)
     * or when one gets nothing.
     */
    private static final double MIN_SHARE = 0.20;
    private static final double MAX_SHARE = 0.46;
    /** As in {@link ClusterFailoverProcessTest}: the take-over targets, and what a contended machine adds. */
    private static final long TAKE_OVER_P50_MS = 6_000;
    private static final long TAKE_OVER_MAX_MS = 8_000;
    private static final long MACHINE_MARGIN_MS = 500;
    /**
     * A call the kill cut is made again once its deadline has passed: the lease TTL (the survivors take the shard),
     * the job's timeout (the server's default, 10 s) and a second's margin after the take-over
     * ({@code ForeignClaimSettler}), plus what the machine adds.
     */
    private static final long CUT_CALL_AGAIN_MS = 5_000 + 10_000 + 1_000 + 2_000;

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private LedgerReceiver ledger;

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(),
            "--lease-ttl-ms", Long.toString(LEASE_TTL.toMillis()),
            "--lease-renew-ms", Long.toString(LEASE_RENEW.toMillis()));
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        if (ledger != null) {
            ledger.close();
        }
        db.dropSchema();
    }

    /**
     * Three members, one on-demand webhook job, {@value #RUNS} runs sent round-robin through the running members
     * over {@link #SENDING} (due 0..{@value #MAX_DELAY_MS} ms after their call), and at {@link #KILL_AT} a
     * {@code kill -9} of one member. Asserts: of the deliveries received while all three ran, each member (by the
     * {@code Tickwheel-Node} header) made {@value #MIN_SHARE}..{@value #MAX_SHARE} of them; nothing lost, one key per
     * instance, no delivery from a fenced epoch, each instance on its own shard ({@link DeliveryAudit}); and the
     * instances of the killed member's shards due around the kill were first delivered within the take-over bound
     * of {@link ClusterFailoverProcessTest}, leaving out the calls the kill cut (they are made again only after their
     * deadline, by design, and are counted).
     */
    @Test
    void oneHotJob_everyMemberDeliversItsShare_killOfOne_losesNothing_takeOverWithinBound() throws Exception {
        ledger = new LedgerReceiver(Duration.ofMillis(50));
        long seed = System.nanoTime();
        nodes.start();
        nodes.start(2);
        ClusterSnapshot spread = nodes.awaitSpread(Duration.ofSeconds(45));
        List<ClusterJob> jobs = ClusterJob.create(nodes, ledger.url(), 1, "hot");
        StringBuilder story = new StringBuilder("spread: " + spread.describe() + "\njob " + jobs.get(0).id()
                + " (shard " + jobs.get(0).shard() + ")\n");

        long killedAtMillis;
        Set<Integer> killedShards;
        Map<Integer, Integer> byNode;
        try (LeaseObserver leases = LeaseObserver.start(nodes, Duration.ofMillis(250));
                RunStream stream = RunStream.start(nodes, jobs,
                        RunStream.Plan.paced(RUNS, SENDING, MAX_DELAY_MS, seed))) {
            ScenarioClock clock = ScenarioClock.startNow();
            clock.awaitOffset(KILL_AT);
            ClusterSnapshot beforeKill = nodes.snapshot();
            // Every running member holds shards; the one not holding the job's shard is killed, so that the loader
            // of the job (its shard's owner) is not what moves: this is about the instances.
            Member victim = nodes.running().stream()
                    .filter(m -> !beforeKill.shardsHeldBy(m.nodeId()).contains(jobs.get(0).shard()))
                    .findFirst().orElseThrow(() -> new AssertionError("no member without the job's shard"));
            killedShards = beforeKill.shardsHeldBy(victim.nodeId());
            byNode = deliveriesByNode(ledger.all(), System.currentTimeMillis());
            story.append(clock.now()).append(" kill -9 ").append(victim).append(", holding ")
                    .append(killedShards.size()).append(" shards; ").append(beforeKill.describe()).append('\n');
            killedAtMillis = nodes.kill(victim);
            // Its claims are fenced: nobody can change them until its leases expire, seconds from now.
            Set<Long> cutCalls = StoredInstances.claimedBy(db.jdbcUrl(), victim.nodeId());

            stream.awaitDone(Duration.ofSeconds(60));
            long untilLastDueMs = Math.max(0, stream.lastDueMs() - System.currentTimeMillis());
            StoredInstances.awaitAllTerminal(nodes, Duration.ofMillis(untilLastDueMs).plusSeconds(45));
            nodes.requireNoneDied();

            DeliveryAudit audit = new DeliveryAudit(ledger, StoredInstances.fetchAll(nodes), stream.runs(),
                    stream.cancels());
            LatencySummary takeOver = audit.lateness(killedShards, killedAtMillis, killedAtMillis - 1_000,
                    killedAtMillis + LEASE_TTL.toMillis(), cutCalls);
            int beforeKillTotal = byNode.values().stream().mapToInt(Integer::intValue).sum();
            List<String> cutLate = new ArrayList<>();
            long cutWorstMs = 0;
            for (long id : cutCalls) {
                long againMs = ledger.deliveriesOf(id).stream().mapToLong(Delivery::receivedAtMs)
                        .filter(at -> at >= killedAtMillis).min().orElse(Long.MAX_VALUE) - killedAtMillis;
                cutWorstMs = Math.max(cutWorstMs, againMs);
                if (againMs > CUT_CALL_AGAIN_MS) {
                    cutLate.add(id + " made again " + againMs + " ms after the kill");
                }
            }
            System.out.println("ClusterHotJobProcessTest (seed " + seed + ")\n" + story
                    + "load: " + stream.describe() + "\n"
                    + "deliveries before the kill by node: " + byNode + " of " + beforeKillTotal + "\n"
                    + audit.summary() + "\n"
                    + "take-over after kill -9 (first delivery - max(due, kill)): " + takeOver + "\n"
                    + "calls the kill cut (claimed by the victim, not in the take-over figure, delivered again once"
                    + " their deadline passed): " + cutCalls.size() + ", the last made again " + cutWorstMs
                    + " ms after the kill\n"
                    + "repeats with the same key: " + audit.repeatsWithSameKey());

            List<String> shares = new ArrayList<>();
            for (Member member : nodes.members()) {
                int made = byNode.getOrDefault(member.nodeId(), 0);
                double share = beforeKillTotal == 0 ? 0 : (double) made / beforeKillTotal;
                if (share < MIN_SHARE || share > MAX_SHARE) {
                    shares.add(member + " (node " + member.nodeId() + ") made " + made + " of " + beforeKillTotal);
                }
            }
            List<Executable> checks = new ArrayList<>(audit.guarantees(leases.holders()));
            checks.addAll(List.of(
                    () -> assertEquals(List.of(), stream.failures(), "API calls to running members all answered"),
                    () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                    () -> assertTrue(beforeKillTotal >= 500, "deliveries before the kill: " + beforeKillTotal),
                    () -> assertEquals(List.of(), shares, "each member's share of the deliveries before the kill"
                            + " within " + MIN_SHARE + ".." + MAX_SHARE + ": " + byNode),
                    () -> assertTrue(audit.earlyDispatches().isEmpty(), () -> "dispatched before due: "
                            + DeliveryAudit.show(audit.earlyDispatches())),
                    () -> assertEquals(List.of(), cutLate, "calls the kill cut, made again within "
                            + CUT_CALL_AGAIN_MS + " ms of it"),
                    () -> assertTrue(takeOver.count() >= 10, "instances of the killed member's shards due around the"
                            + " kill: " + takeOver),
                    () -> assertTrue(takeOver.maxMs() <= TAKE_OVER_MAX_MS + MACHINE_MARGIN_MS,
                            "take-over max: " + takeOver),
                    () -> assertTrue(takeOver.p50Ms() <= TAKE_OVER_P50_MS + MACHINE_MARGIN_MS,
                            "take-over p50: " + takeOver)));
            assertAll("one hot job over three members", checks);
        }
    }

    /**
     * A job with {@code maxConcurrent} 5 on three members, runs created through all of them and all due at once,
     * against a receiver that answers after 100 ms: the receiver never has more than 5 of its calls in flight, and
     * every run is delivered once. The job keeps one owner (its instances stay on its shard), whose call slots hold
     * the limit; spread over three members, each would allow 5.
     */
    @Test
    void jobWithMaxConcurrentFive_onThreeMembers_neverMoreThanFiveCallsInFlight() throws Exception {
        ledger = new LedgerReceiver(Duration.ofMillis(100));
        nodes.start();
        nodes.start(2);
        nodes.awaitSpread(Duration.ofSeconds(45));
        ClusterJob job = ClusterJob.create(nodes, ledger.url(), 1, "limited", 5).get(0);
        ledger.keepsOneOwner(job.id());
        int runs = 150;
        List<Member> members = nodes.running();
        ExecutorService senders = Executors.newFixedThreadPool(6);
        List<Future<ApiClient.Reply>> replies = new ArrayList<>();
        try {
            for (int i = 0; i < runs; i++) {
                Member via = members.get(i % members.size());
                replies.add(senders.submit(() -> via.call(api -> api.post("/api/jobs/" + job.id() + "/run",
                        "{\"delayMs\": 1500}")).orElseThrow(() -> new AssertionError(via + " stopped"))));
            }
            for (Future<ApiClient.Reply> reply : replies) {
                ApiClient.Reply r = reply.get(30, TimeUnit.SECONDS);
                assertEquals(201, r.status(), () -> "run: " + r);
            }
        } finally {
            senders.shutdownNow();
        }
        StoredInstances.awaitAllTerminal(nodes, Duration.ofSeconds(60));
        nodes.requireNoneDied();
        Map<Integer, Integer> byNode = deliveriesByNode(ledger.all(), Long.MAX_VALUE);
        System.out.println("ClusterHotJobProcessTest maxConcurrent 5: " + ledger.deliveredInstanceIds().size()
                + " instances delivered, at most " + ledger.maxInFlight() + " in flight, by node " + byNode);
        assertAll("maxConcurrent across members",
                () -> assertEquals(runs, ledger.deliveredInstanceIds().size(), "every run delivered"),
                () -> assertEquals(runs, ledger.size(), "each once"),
                () -> assertTrue(ledger.maxInFlight() <= 5, "calls in flight at the receiver, at most: "
                        + ledger.maxInFlight()),
                () -> assertTrue(ledger.maxInFlight() >= 2, "the limit was reached for (calls overlapped): "
                        + ledger.maxInFlight()),
                () -> assertEquals(1, byNode.size(), "one owner made every call: " + byNode));
    }

    /** Deliveries received before {@code beforeMillis}, counted by the member that made them. */
    private static Map<Integer, Integer> deliveriesByNode(List<Delivery> deliveries, long beforeMillis) {
        Map<Integer, Integer> byNode = new TreeMap<>();
        for (Delivery d : deliveries) {
            if (d.receivedAtMs() < beforeMillis) {
                byNode.merge(d.node(), 1, Integer::sum);
            }
        }
        return byNode;
    }
}
