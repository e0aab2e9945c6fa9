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
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Members joining and leaving gracefully under load: shards move by hand-over (the old owner stops claiming, lets its
 * calls end, then releases; the new one takes the shard with the next epoch), never by expiry.
 *
 * <p><b>What it injects.</b> One member holds all shards under a steady stream of {@value #RUNS} runs over
 * {@link #SENDING} (delays 0..8 s, webhook target answering after 50 ms). At +5 s a second member starts and the
 * test waits until the shards are spread over two; then a third, spread over three. At +28 s (or once the third has
 * its share, if later) the member holding most of the jobs' shards gets SIGTERM: a graceful stop, whose duration
 * (SIGTERM to process exit) is measured.
 *
 * <p><b>What it asserts</b>, once every instance has ended:
 * <ul>
 *   <li>no gap: every created instance ended SUCCEEDED and reached the target, under one key;</li>
 *   <li>no overlap: each (shard, epoch) in the ledger comes from one node, the one the lease table showed holding
 *       it; a shard's deliveries go from epoch to epoch in arrival order, never back (no delivery of an older owner
 *       arrives once the newer owner's first one did); an instance's deliveries never go back to a lower epoch;
 *       the store's claim names the last delivery;</li>
 *   <li>the joiners took part: deliveries came from at least three node ids;</li>
 *   <li>hand-over after the graceful stop: the instances of the stopped member's shards (as held just before
 *       SIGTERM) due from SIGTERM to 3 s after the exit were delivered at most 1 s + (SIGTERM → exit) after they
 *       were due, plus {@value #MACHINE_MARGIN_MS} ms for a contended 2-core machine. The numbers are printed.</li>
 * </ul>
 */
@ProcessLane
@Tag("cluster")
class ClusterJoinLeaveProcessTest {

    private static final Duration LEASE_TTL = Duration.ofSeconds(5);
    private static final Duration LEASE_RENEW = Duration.ofSeconds(1);
    private static final int JOBS = 40;
    private static final int RUNS = 2_000;
    private static final Duration SENDING = Duration.ofSeconds(40);
    private static final long MAX_DELAY_MS = 8_000;
    private static final Duration TARGET_LATENCY = Duration.ofMillis(50);

    private static final Duration SECOND_JOINS_AT = Duration.ofSeconds(5);
    private static final Duration STOP_AT = Duration.ofSeconds(28);
    private static final Duration SPREAD_BOUND = Duration.ofSeconds(40);

    /** Other members take a released shard within this after the graceful stop ends. */
    private static final long HAND_OVER_MS = 1_000;
    /** Scheduling delay on a 2-core machine shared by PostgreSQL, three server JVMs and the test JVM. */
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
    void twoJoinThenOneStopsGracefully_underLoad_noGap_noOverlap_handOverWithinOneSecondOfTheStop() throws Exception {
        long seed = System.nanoTime();
        nodes.start();
        ClusterSnapshot alone = nodes.awaitSpread(Duration.ofSeconds(30));
        List<ClusterJob> jobs = ClusterJob.create(nodes, ledger.url(), JOBS, "join-leave");
        Set<Integer> jobShards = ClusterJob.shardsOf(jobs);
        StringBuilder story = new StringBuilder("alone: " + alone.describe() + "\n");

        ClusterProcesses.Stop stop;
        Set<Integer> stoppedShards;
        try (LeaseObserver leases = LeaseObserver.start(nodes, Duration.ofMillis(250));
                RunStream stream = RunStream.start(nodes, jobs,
                        RunStream.Plan.paced(RUNS, SENDING, MAX_DELAY_MS, seed))) {
            ScenarioClock clock = ScenarioClock.startNow();

            clock.awaitOffset(SECOND_JOINS_AT);
            Member second = nodes.start();
            story.append(clock.now()).append(" started ").append(second).append('\n');
            story.append(clock.now()).append(" spread over two: ").append(nodes.awaitSpread(SPREAD_BOUND).describe())
                    .append('\n');
            Member third = nodes.start();
            story.append(clock.now()).append(" started ").append(third).append('\n');
            story.append(clock.now()).append(" spread over three: ")
                    .append(nodes.awaitSpread(SPREAD_BOUND).describe()).append('\n');

            clock.awaitOffset(STOP_AT);
            ClusterSnapshot beforeStop = nodes.snapshot();
            Member leaving = nodes.holdingMostOf(beforeStop, jobShards);
            stoppedShards = beforeStop.shardsHeldBy(leaving.nodeId());
            story.append(clock.now()).append(" SIGTERM ").append(leaving).append(", holding ")
                    .append(stoppedShards.size()).append(" shards; ").append(beforeStop.describe()).append('\n');
            stop = nodes.terminate(leaving);
            story.append(clock.now()).append(" it exited with ").append(stop.exitCode()).append(" after ")
                    .append(stop.took().toMillis()).append(" ms\n");

            stream.awaitDone(Duration.ofSeconds(60));
            long untilLastDueMs = Math.max(0, stream.lastDueMs() - System.currentTimeMillis());
            StoredInstances.awaitAllTerminal(nodes, Duration.ofMillis(untilLastDueMs).plusSeconds(30));
            story.append(clock.now()).append(" every instance ended; ").append(nodes.snapshot().describe())
                    .append('\n');
            nodes.requireNoneDied();

            DeliveryAudit audit = new DeliveryAudit(ledger, StoredInstances.fetchAll(nodes), stream.runs(),
                    stream.cancels());
            LatencySummary handOver = audit.lateness(stoppedShards, stop.signalledAtMs(),
                    stop.signalledAtMs(), stop.endedAtMs() + 3_000);
            long handOverBoundMs = HAND_OVER_MS + stop.took().toMillis() + MACHINE_MARGIN_MS;
            System.out.println("ClusterJoinLeaveProcessTest (seed " + seed + ")\n" + story
                    + "load: " + stream.describe() + "\n"
                    + audit.summary() + "\n"
                    + "graceful stop took " + stop.took().toMillis() + " ms; lateness of the stopped member's shards"
                    + " (first delivery - due): " + handOver + ", bound " + handOverBoundMs + " ms\n"
                    + "lease table read " + leases.reads() + " times");

            assertAll("no gap, no overlap across joins and a graceful stop",
                    () -> assertEquals(List.of(), stream.failures(), "API calls to running members all answered"),
                    () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                    () -> assertTrue(audit.notInStore().isEmpty(), () -> "created but not stored: "
                            + DeliveryAudit.show(audit.notInStore())),
                    () -> assertTrue(audit.phantoms().isEmpty(), () -> "delivered but not stored: "
                            + DeliveryAudit.show(audit.phantoms())),
                    () -> assertTrue(audit.lost().isEmpty(), () -> "gap: " + DeliveryAudit.show(audit.lost())),
                    () -> assertTrue(audit.keyProblems().isEmpty(), () -> "not one key per instance: "
                            + DeliveryAudit.show(audit.keyProblems())),
                    () -> assertTrue(audit.sharedEpochs().isEmpty(), () -> "overlap, one epoch on several nodes: "
                            + DeliveryAudit.show(audit.sharedEpochs())),
                    () -> assertTrue(audit.shardInterleavings().isEmpty(), () -> "overlap, an older owner delivered"
                            + " after a newer one: " + DeliveryAudit.show(audit.shardInterleavings())),
                    () -> assertTrue(audit.epochRegressions().isEmpty(), () -> "delivered from a fenced epoch: "
                            + DeliveryAudit.show(audit.epochRegressions())),
                    () -> assertTrue(audit.leaseDisagreements(leases.holders()).isEmpty(), () -> "ledger vs leases: "
                            + DeliveryAudit.show(audit.leaseDisagreements(leases.holders()))),
                    () -> assertTrue(audit.claimMismatches().isEmpty(), () -> "store's claim vs last delivery: "
                            + DeliveryAudit.show(audit.claimMismatches())),
                    () -> assertTrue(audit.shardMismatches().isEmpty(), () -> "instance shard: "
                            + DeliveryAudit.show(audit.shardMismatches())),
                    () -> assertTrue(audit.deliveringNodes().size() >= 3, "the joiners delivered too: nodes "
                            + audit.deliveringNodes()),
                    () -> assertTrue(handOver.count() >= 5, "instances of the stopped member's shards due around the"
                            + " stop (the hand-over figure is not empty): " + handOver),
                    () -> assertTrue(handOver.maxMs() <= handOverBoundMs, "after a graceful stop, at most "
                            + HAND_OVER_MS + " ms + the stop (" + stop.took().toMillis() + " ms) + " + MACHINE_MARGIN_MS
                            + " ms for a contended 2-core machine: " + handOver));
        }
    }
}
