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
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.server.cluster.process.DeliveryAudit.LatencySummary;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * Fail-over of a three-member cluster on PostgreSQL, with real server processes, under a load of on-demand webhook
 * runs and cancels.
 *
 * <p><b>What it injects.</b> Three members share one schema (lease TTL 5 s, renewed every second). Once the shards
 * are spread over the three, a pacing thread sends {@value #RUNS} runs over {@link #SENDING} (delays 0..25 s, so
 * instances fall due over about a minute) round-robin to the running members, and cancels every
 * {@value #CANCEL_EVERY}th run with a delay of at least 10 s through a member other than its creator. Meanwhile:
 * <pre>
 *   +8 s   kill -9 member A (the one holding most of the jobs' shards): its leases must expire before anyone else
 *          may take them; its calls in flight to the 200 ms target are cut
 *   +20 s  SIGSTOP member B for 12 s (longer than the TTL): B's shards move to the only member left running, and
 *          B wakes up believing, for a moment, that it still owns them
 *   +32 s  SIGCONT B
 *   +34 s  restart A (a new process, a new node id): shards move back to it
 * </pre>
 * The fixture takes a member out of the load's rotation before it signals it, so the test knows every instance the
 * API created; the faults are the servers', not lost API answers.
 *
 * <p><b>What it asserts</b>, once every instance has ended (see {@link DeliveryAudit} for why each holds):
 * <ul>
 *   <li>nothing lost: every created instance that was not cancelled ended SUCCEEDED and reached the target;</li>
 *   <li>one key per instance ({@code <id>-1}); repeats with that key (calls cut by the kill or the pause) are
 *       counted and printed, not failed;</li>
 *   <li>a cancel that answered CANCELLED wins: that instance never reached the target; a cancel that answered 409
 *       was answered after the instance was due;</li>
 *   <li>no delivery from a fenced epoch: each (shard, epoch) in the ledger comes from one node and agrees with the
 *       lease table as {@code GET /api/cluster} showed it; an instance's deliveries never go back to a lower epoch;
 *       the store's {@code claimNode}/{@code claimEpoch} name the last delivery;</li>
 *   <li>take-over: for the instances of A's shards (as held just before the kill) due from 1 s before the kill to a
 *       lease TTL after it, first delivery − max(due, kill) has p50 &lt;= 6 s and max &lt;= 8 s, each plus
 *       {@value #MACHINE_MARGIN_MS} ms (see the constant), leaving out A's calls in flight at the kill (DISPATCHING
 *       under A, read right after it): those are made again once their deadline has passed, by design, and are
 *       counted apart. The same figure after B's pause is printed, not asserted.</li>
 * </ul>
 * A summary (counts, take-over p50/max, repeats with the same key, the seed) goes to stdout.
 */
@ProcessLane
@Tag("cluster")
class ClusterFailoverProcessTest {

    private static final Duration LEASE_TTL = Duration.ofSeconds(5);
    private static final Duration LEASE_RENEW = Duration.ofSeconds(1);
    private static final int JOBS = 48;
    private static final int RUNS = 3_000;
    private static final Duration SENDING = Duration.ofSeconds(30);
    private static final long MAX_DELAY_MS = 25_000;
    private static final int CANCEL_EVERY = 6;
    private static final long CANCEL_MIN_DELAY_MS = 10_000;
    private static final Duration TARGET_LATENCY = Duration.ofMillis(200);

    private static final Duration KILL_AT = Duration.ofSeconds(8);
    private static final Duration PAUSE_AT = Duration.ofSeconds(20);
    private static final Duration PAUSE = Duration.ofSeconds(12);
    private static final Duration RESTART_AT = Duration.ofSeconds(34);

    /** The take-over targets: due instances of a killed member's shards fire within these after the kill. */
    private static final long TAKE_OVER_P50_MS = 6_000;
    private static final long TAKE_OVER_MAX_MS = 8_000;
    /**
     * What this measurement adds on a 2-core CI machine running PostgreSQL, three server JVMs and the test JVM: the
     * kill time is read before the signal, and a delivery is timed when a ledger thread gets the CPU, after the new
     * owner's renewal, acquisition, recovery query and call were each scheduled on a contended core; a few hundred
     * milliseconds of such scheduling delay are common there and are not the cluster's doing.
     */
    private static final long MACHINE_MARGIN_MS = 500;

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private final LedgerReceiver ledger = new LedgerReceiver(TARGET_LATENCY);

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(),
            "--lease-ttl-ms", Long.toString(LEASE_TTL.toMillis()),
            "--lease-renew-ms", Long.toString(LEASE_RENEW.toMillis()));
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        ledger.close();
        db.dropSchema();
    }

    @Test
    void killPauseRestart_underLoad_losesNothing_oneKeyPerInstance_noStaleEpoch_takeOverWithinTarget()
            throws Exception {
        long seed = System.nanoTime();
        nodes.start(); // the first member runs the migrations; the others then join a ready schema
        nodes.start(2);
        ClusterSnapshot spread = nodes.awaitSpread(Duration.ofSeconds(45));
        assertEquals(Shards.DEFAULT_COUNT, spread.shardCount(), "shard count of a new schema");
        List<ClusterJob> jobs = ClusterJob.create(nodes, ledger.url(), JOBS, "failover");
        Set<Integer> jobShards = ClusterJob.shardsOf(jobs);
        StringBuilder story = new StringBuilder("spread: " + spread.describe() + "\n");

        long killedAtMillis;
        Set<Integer> killedShards;
        Set<Long> cutCalls;
        long pausedAtMillis;
        Set<Integer> pausedShards;
        RunStream.Plan plan = RunStream.Plan.paced(RUNS, SENDING, MAX_DELAY_MS, seed)
                .withCancels(CANCEL_EVERY, CANCEL_MIN_DELAY_MS);
        try (LeaseObserver leases = LeaseObserver.start(nodes, Duration.ofMillis(250));
                RunStream stream = RunStream.start(nodes, jobs, plan)) {
            ScenarioClock clock = ScenarioClock.startNow();

            clock.awaitOffset(KILL_AT);
            ClusterSnapshot beforeKill = nodes.snapshot();
            Member a = nodes.holdingMostOf(beforeKill, jobShards);
            killedShards = beforeKill.shardsHeldBy(a.nodeId());
            story.append(clock.now()).append(" kill -9 ").append(a).append(", holding ").append(killedShards.size())
                    .append(" shards; ").append(beforeKill.describe()).append('\n');
            killedAtMillis = nodes.kill(a);
            // Its claims are fenced: nobody can change them until its leases expire, seconds from now.
            cutCalls = StoredInstances.claimedBy(db.jdbcUrl(), a.nodeId());

            clock.awaitOffset(PAUSE_AT);
            ClusterSnapshot beforePause = nodes.snapshot();
            Member b = nodes.holdingMostOf(beforePause, jobShards);
            pausedShards = beforePause.shardsHeldBy(b.nodeId());
            story.append(clock.now()).append(" SIGSTOP ").append(b).append(", holding ").append(pausedShards.size())
                    .append(" shards; ").append(beforePause.describe()).append('\n');
            pausedAtMillis = nodes.pause(b);

            clock.awaitOffset(PAUSE_AT.plus(PAUSE));
            nodes.resume(b);
            story.append(clock.now()).append(" SIGCONT ").append(b).append('\n');

            clock.awaitOffset(RESTART_AT);
            nodes.restart(a);
            story.append(clock.now()).append(" restarted ").append(a).append('\n');

            stream.awaitDone(Duration.ofSeconds(60));
            long untilLastDueMs = Math.max(0, stream.lastDueMs() - System.currentTimeMillis());
            StoredInstances.awaitAllTerminal(nodes, Duration.ofMillis(untilLastDueMs).plusSeconds(45));
            story.append(clock.now()).append(" every instance ended; ").append(nodes.snapshot().describe())
                    .append('\n');
            nodes.requireNoneDied();

            DeliveryAudit audit = new DeliveryAudit(ledger, StoredInstances.fetchAll(nodes), stream.runs(),
                    stream.cancels());
            // The calls the kill cut are made again once their deadline has passed, by design (ForeignClaimSettler):
            // they are not part of the take-over of what was due, and are counted apart.
            LatencySummary takeOver = audit.lateness(killedShards, killedAtMillis, killedAtMillis - 1_000,
                    killedAtMillis + LEASE_TTL.toMillis(), cutCalls);
            LatencySummary afterPause = audit.lateness(pausedShards, pausedAtMillis, pausedAtMillis - 1_000,
                    pausedAtMillis + LEASE_TTL.toMillis());
            long cancelled = stream.cancels().stream().filter(RunStream.CancelAnswer::cancelled).count();
            System.out.println("ClusterFailoverProcessTest (seed " + seed + ")\n" + story
                    + "load: " + stream.describe() + "\n"
                    + audit.summary() + "\n"
                    + "take-over after kill -9 (first delivery - max(due, kill)): " + takeOver + "\n"
                    + "calls the kill cut (left out of it, made again after their deadline): " + cutCalls.size()
                    + "\n"
                    + "take-over after SIGSTOP (reported only): " + afterPause + "\n"
                    + "older-epoch deliveries after a newer one of the same shard (reported only): "
                    + DeliveryAudit.show(audit.shardInterleavings()) + "\n"
                    + "repeats with the same key: " + audit.repeatsWithSameKey() + "; lease table read "
                    + leases.reads() + " times");

            List<Executable> checks = new ArrayList<>(audit.guarantees(leases.holders()));
            checks.addAll(List.of(
                    () -> assertEquals(List.of(), stream.failures(), "API calls to running members all answered"),
                    () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                    () -> assertTrue(audit.cancelledButDelivered().isEmpty(), () -> "cancelled, then delivered: "
                            + DeliveryAudit.show(audit.cancelledButDelivered())),
                    () -> assertTrue(audit.earlyDispatches().isEmpty(), () -> "dispatched before due: "
                            + DeliveryAudit.show(audit.earlyDispatches())),
                    () -> assertTrue(cancelled >= 100, "cancels answered CANCELLED (the check above is not empty): "
                            + cancelled),
                    () -> assertTrue(takeOver.count() >= 10, "instances of the killed member's shards due around the"
                            + " kill (the take-over figure is not empty): " + takeOver),
                    () -> assertTrue(takeOver.maxMs() <= TAKE_OVER_MAX_MS + MACHINE_MARGIN_MS,
                            "take-over max <= " + TAKE_OVER_MAX_MS + " ms + " + MACHINE_MARGIN_MS + " ms for a"
                                    + " contended 2-core machine: " + takeOver),
                    () -> assertTrue(takeOver.p50Ms() <= TAKE_OVER_P50_MS + MACHINE_MARGIN_MS,
                            "take-over p50 <= " + TAKE_OVER_P50_MS + " ms + " + MACHINE_MARGIN_MS + " ms for a"
                                    + " contended 2-core machine: " + takeOver)));
            assertAll("cluster guarantees across kill -9, SIGSTOP and restart", checks);
        }
    }
}
