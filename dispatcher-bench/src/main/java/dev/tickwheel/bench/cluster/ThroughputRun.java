package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.ProcessCpu;
import dev.tickwheel.bench.e2e.ApiJobInstances;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.EndToEndRun;
import dev.tickwheel.bench.e2e.RunResult;
import dev.tickwheel.bench.e2e.StoreRows;
import dev.tickwheel.bench.webhook.DeliveryCheck;
import dev.tickwheel.bench.webhook.LoadReceiver;
import dev.tickwheel.bench.webhook.ReceiverMode;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.postgres.PostgresWatch;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One throughput run ({@link ClusterSettings.Mode#THROUGHPUT}) on {@code nodes} members: instances created ahead in a
 * fresh schema ({@link ApiJobInstances}: by default 100 000 over 1 000 jobs, due over 2 s), the members started
 * (they join, spread the shards and recover, that is arm, their shards' instances before the first is due), a
 * receiver that answers 200 (at once, or after {@code --receiver-latency-ms}), until every instance has arrived;
 * then the members are stopped and the store and the receiver's log judged.
 *
 * <p>Dispatch rate as the webhook benchmark's FAST scenario defines it ({@link EndToEndRun#measure}: instances over
 * first claim to last SUCCEEDED write, from the rows), and as the receiver saw it (first to last arrival). Database
 * work from the statistics views ({@link DatabaseActivity}), from just before the members start to just after they
 * have stopped: start-up, recovery and lease upkeep included. The database-wide counters are also read over
 * {@value #BACKGROUND_MS} ms before the run with nothing of the run connected, so that other clients of the same
 * database can be told apart.
 *
 * <p>Not thread-safe: confined to the benchmark thread.
 */
public final class ThroughputRun {

    private static final long BACKGROUND_MS = 3_000;
    /** Backends flush their statistics when they exit; this is time for the last of them to do so. */
    private static final long STATS_FLUSH_WAIT_MS = 1_500;
    /** How long past the first due time a late spread is still watched for, so that the report can say when. */
    private static final long SPREAD_GRACE_MS = 15_000;

    /**
     * What one run measured.
     *
     * @param nodes                members
     * @param store                rates and lateness from the rows (the webhook benchmark's FAST measure)
     * @param receivedPerSec       arrivals over first to last arrival
     * @param activity             the database's work from the members' start to their stop
     * @param activityWindowMs     the length of that window
     * @param backgroundPerSec     database-wide statements (or transactions) per second before the run, from others
     * @param dispatched           instances SUCCEEDED
     * @param lost                 instances never delivered
     * @param duplicateKeys        arrivals beyond the first of a key
     * @param claimsByNode         node id → instances whose (last) claim it made
     * @param memberCpuNanos       CPU time the members used over their whole life (start-up and JIT included)
     * @param spreadAfterMs        from the members' start to the shards being spread; -1 if they were not before the
     *                             first instance was due
     * @param loadAtStart          the load average at the start
     * @param loadAtEnd            and at the end
     * @param disturbance          what another client did to PostgreSQL meanwhile ({@link PostgresWatch}), or null:
     *                             a disturbed run is shown but left out of the medians
     * @param violations           what must not happen (lost, duplicates, not all SUCCEEDED, ...); empty if passed
     */
    public record Outcome(int nodes, RunResult store, double receivedPerSec, DatabaseActivity activity,
                          long activityWindowMs, double backgroundPerSec, long dispatched, long lost,
                          long duplicateKeys, Map<Integer, Long> claimsByNode, long memberCpuNanos,
                          long spreadAfterMs, String loadAtStart,
                          String loadAtEnd, String disturbance, List<String> violations) {

        public boolean passed() {
            return violations.isEmpty();
        }

        /** Statements (or transactions) per dispatched instance, database-wide. */
        public double statementsPerInstance() {
            return activity.statements() / (double) Math.max(1, dispatched);
        }

        /** The same, less what the other clients did at the background rate over the window. */
        public double statementsPerInstanceNetOfBackground() {
            double others = backgroundPerSec * activityWindowMs / 1000.0;
            return (activity.statements() - others) / Math.max(1, dispatched);
        }

        /** The members' CPU milliseconds per 1 000 dispatched instances. */
        public double memberCpuMsPerThousand() {
            return memberCpuNanos / 1e6 / Math.max(1, dispatched) * 1_000;
        }

        /** A counter of the run's schema per dispatched instance. */
        public double perInstance(String counter) {
            return activity.counter(counter) / (double) Math.max(1, dispatched);
        }
    }

    private ThroughputRun() {
    }

    /** Runs once on {@code nodes} members, printing progress to {@code progress}. */
    public static Outcome run(ClusterSettings s, int nodes, PrintStream progress) throws InterruptedException {
        String loadAtStart = Machine.loadAverage();
        List<String> violations = new ArrayList<>();
        Path logDir = s.logDir().resolve("throughput-" + nodes + "-" + System.currentTimeMillis());
        Clock clock = Clock.systemUTC();
        try (BenchDatabase database = BenchDatabase.postgres(s.pgUrl());
                LoadReceiver receiver = LoadReceiver.start(ReceiverMode.latency(s.receiverLatencyMs()))) {
            String url = database.jdbcUrl();
            boolean useStatements = DatabaseActivity.statementsAvailable(url);
            DatabaseActivity quietStart = DatabaseActivity.read(url, database.pgSchema(), useStatements);
            Thread.sleep(BACKGROUND_MS);
            DatabaseActivity quietEnd = DatabaseActivity.read(url, database.pgSchema(), useStatements);
            // minus 1: the reading itself is one transaction
            double backgroundPerSec = Math.max(0, quietEnd.minus(quietStart).statements() - 1) * 1000.0
                    / BACKGROUND_MS;

            long fixtureNowMs;
            try (JdbcStores stores = JdbcStores.open(url)) {
                fixtureNowMs = ApiJobInstances.insert(stores, "throughput-", s.instanceJobs(),
                        s.instances() / s.instanceJobs(), Target.webhook(receiver.url()), DeliveryPolicy.DEFAULT,
                        STATS_FLUSH_WAIT_MS + s.leadMs(), s.spreadMs(), clock); // leadMs from the members' start
            }
            long firstDueMs = fixtureNowMs + STATS_FLUSH_WAIT_MS + s.leadMs();
            Thread.sleep(STATS_FLUSH_WAIT_MS); // the fixture's connections' counters, before the baseline
            DatabaseActivity before = DatabaseActivity.read(url, database.pgSchema(), useStatements);
            PostgresWatch watch = PostgresWatch.read(url);
            long windowStartNanos = System.nanoTime();
            progress.printf("  %d member(s) on %s; %d instances due from %d ms after the members start; logs in"
                    + " %s%n", nodes, database, s.instances(), firstDueMs - System.currentTimeMillis(), logDir);

            long spreadAfterMs;
            long memberCpuNanos = 0;
            try (ClusterProcesses cluster = new ClusterProcesses(ClusterSettings.memberLaunch(), url, s.serverArgs(),
                    logDir)) {
                long startNanos = System.nanoTime();
                cluster.start(nodes);
                spreadAfterMs = awaitSpreadBefore(cluster, firstDueMs, startNanos, violations);
                awaitDelivered(receiver, cluster, s, firstDueMs, violations);
                cluster.requireNoneDied();
                for (Member member : cluster.running()) {
                    memberCpuNanos += Math.max(0, ProcessCpu.nanos(member.process().pid()));
                }
                cluster.terminateAll();
            }
            Thread.sleep(STATS_FLUSH_WAIT_MS);
            String disturbance = PostgresWatch.read(url).disturbedSince(watch).orElse(null);
            DatabaseActivity activity = DatabaseActivity.read(url, database.pgSchema(), useStatements).minus(before);
            long windowMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - windowStartNanos);

            List<Instance> rows;
            try (JdbcStores stores = JdbcStores.open(url)) {
                rows = StoreRows.readAll(stores.instances());
            }
            DeliveryCheck check = new DeliveryCheck(rows, s.instances(), List.of(receiver.deliveries()));
            RunResult store = EndToEndRun.measure(rows, s.instances(), fixtureNowMs, check.duplicateKeys());
            long dispatched = rows.stream().filter(r -> r.status() == InstanceStatus.SUCCEEDED).count();
            Map<Integer, Long> claimsByNode = new TreeMap<>();
            rows.forEach(r -> claimsByNode.merge(r.claimNode(), 1L, Long::sum));
            if (check.lost() > 0) {
                violations.add("lost " + check.lost() + " of " + s.instances());
            }
            if (check.duplicateKeys() > 0 || check.stray() > 0 || receiver.malformed() > 0) {
                violations.add(check.duplicateKeys() + " keys delivered twice, " + check.stray() + " stray, "
                        + receiver.malformed() + " malformed");
            }
            if (store.notSucceeded() > 0) {
                violations.add(store.notSucceeded() + " instances not SUCCEEDED in one attempt");
            }
            return new Outcome(nodes, store, receivedPerSec(receiver), activity, windowMs, backgroundPerSec,
                    dispatched, check.lost(), check.duplicateKeys(), claimsByNode, memberCpuNanos, spreadAfterMs,
                    loadAtStart, Machine.loadAverage(), disturbance, violations);
        }
    }

    /**
     * Waits for the shards to be spread (and stable for half a second); a violation if that happens after the first
     * instance was due, for then the rate measured includes the hand-overs. Returns when (ms from the start), or -1.
     */
    private static long awaitSpreadBefore(ClusterProcesses cluster, long firstDueMs, long startNanos,
                                          List<String> violations) throws InterruptedException {
        long leftMs = firstDueMs - System.currentTimeMillis();
        try {
            cluster.awaitSpread(Duration.ofMillis(Math.max(SPREAD_GRACE_MS, leftMs + SPREAD_GRACE_MS)),
                    Duration.ofMillis(500));
            long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            if (System.currentTimeMillis() > firstDueMs) {
                violations.add("the shards were spread only " + afterMs + " ms after the members were started, after"
                        + " the first instance was due (raise --lead-ms)");
            }
            return afterMs;
        } catch (IllegalStateException notYet) {
            violations.add("the shards were not spread by the first due time (raise --lead-ms): "
                    + notYet.getMessage());
            return -1;
        }
    }

    private static void awaitDelivered(LoadReceiver receiver, ClusterProcesses cluster, ClusterSettings s,
                                       long firstDueMs, List<String> violations) throws InterruptedException {
        long deadlineMs = firstDueMs + s.spreadMs() + s.timeout().toMillis();
        long lastReportMs = System.currentTimeMillis();
        while (receiver.deliveries().size() < s.instances()) {
            long nowMs = System.currentTimeMillis();
            if (nowMs > deadlineMs) {
                violations.add("only " + receiver.deliveries().size() + " of " + s.instances() + " delivered "
                        + s.timeout().toSeconds() + " s after the last was due");
                return;
            }
            if (nowMs - lastReportMs > 5_000 && nowMs > firstDueMs) {
                System.err.printf("    ... %,d of %,d delivered%n", receiver.deliveries().size(), s.instances());
                lastReportMs = nowMs;
            }
            cluster.requireNoneDied();
            Thread.sleep(20);
        }
    }

    private static double receivedPerSec(LoadReceiver receiver) {
        long[] firstLast = {Long.MAX_VALUE, Long.MIN_VALUE};
        long[] count = {0};
        receiver.deliveries().forEach((id, attempt, arrivalMs) -> {
            firstLast[0] = Math.min(firstLast[0], arrivalMs);
            firstLast[1] = Math.max(firstLast[1], arrivalMs);
            count[0]++;
        });
        return count[0] == 0 ? 0 : count[0] * 1000.0 / Math.max(1, firstLast[1] - firstLast[0]);
    }
}
