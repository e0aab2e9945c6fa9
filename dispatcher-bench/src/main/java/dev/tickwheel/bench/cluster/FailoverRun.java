package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.StoreRows;
import dev.tickwheel.bench.webhook.LoadReceiver;
import dev.tickwheel.bench.webhook.ReceiverMode;
import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.fixtures.postgres.PostgresWatch;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A take-over run ({@link ClusterSettings.Mode#TAKEOVER} or {@link ClusterSettings.Mode#GRACEFUL}): a cluster of
 * server processes on a fresh PostgreSQL schema, a receiver that answers 200 at once, API-scheduled webhook jobs and a
 * steady {@link RunStream}; then round after round, one member (rotating) is killed or stopped, its shards watched
 * until they fire again, and it is restarted until the shards are spread again. The instances are judged at the end
 * ({@link FailoverAudit}).
 *
 * <pre>
 *   start members ── spread ── jobs ── runs flow ── warm-up ─┬─ round: signal ─ leases move ─ observe ─ restart ─ spread ─ settle
 *                                                            └─ ... ── stop runs ── every instance ended ── stop members ── audit
 * </pre>
 *
 * <p>Not thread-safe: confined to the benchmark thread.
 */
public final class FailoverRun {

    private static final Duration SPREAD_BOUND = Duration.ofSeconds(90);
    private static final Duration STABLE_FOR = Duration.ofSeconds(1);
    private static final long LEASE_POLL_MS = 100;
    /** Time for a repeated call, were there one, to reach the receiver after the members stopped. */
    private static final long LATE_DUPLICATE_WAIT_MS = 500;
    /** How long the runs in flight when the stream stops may take to be answered. */
    private static final Duration ANSWERS_BOUND = Duration.ofSeconds(60);

    /**
     * What a run found.
     *
     * @param mode        TAKEOVER or GRACEFUL
     * @param audit       the instances, round by round and in all
     * @param runFailures API runs that got no 201, each with why
     * @param malformed   deliveries the receiver refused (no or a bad key)
     * @param loadAtStart the load average when the run began
     * @param loadAtEnd   and when it ended
     * @param tookS       the run's length
     * @param disturbed   what other clients did to PostgreSQL during the run ({@link PostgresWatch}), or null
     * @param violations  what the run must not show (lost instances, a round without a take-over, ...), each in a
     *                    sentence; empty when it passed
     */
    public record Outcome(ClusterSettings.Mode mode, FailoverAudit audit, List<String> runFailures, long malformed,
                          String loadAtStart, String loadAtEnd, long tookS, String disturbed,
                          List<String> violations) {
        public boolean passed() {
            return violations.isEmpty();
        }
    }

    private final ClusterSettings settings;
    private final ClusterSettings.Mode mode;
    private final PrintStream progress;

    private FailoverRun(ClusterSettings settings, ClusterSettings.Mode mode, PrintStream progress) {
        if (mode == ClusterSettings.Mode.THROUGHPUT) {
            throw new IllegalArgumentException("a failover run is TAKEOVER or GRACEFUL: " + mode);
        }
        this.settings = settings;
        this.mode = mode;
        this.progress = progress;
    }

    /** Runs {@code mode} with {@code settings}, printing each round to {@code progress}. */
    public static Outcome run(ClusterSettings settings, ClusterSettings.Mode mode, PrintStream progress)
            throws InterruptedException {
        return new FailoverRun(settings, mode, progress).run();
    }

    private Outcome run() throws InterruptedException {
        long startNanos = System.nanoTime();
        String loadAtStart = Machine.loadAverage();
        int roundCount = mode == ClusterSettings.Mode.TAKEOVER ? settings.kills() : settings.stops();
        Path logDir = settings.logDir().resolve(mode.id() + "-" + System.currentTimeMillis());
        try (BenchDatabase database = BenchDatabase.postgres(settings.pgUrl());
                LoadReceiver receiver = LoadReceiver.start(ReceiverMode.fast());
                ClusterProcesses cluster = new ClusterProcesses(ClusterSettings.memberLaunch(), database.jdbcUrl(),
                        settings.serverArgs(), logDir)) {
            progress.printf("%s: %s; store %s; server logs in %s%n", mode.id(), settings.describe(mode), database,
                    logDir);
            PostgresWatch watchAtStart = PostgresWatch.read(database.jdbcUrl());
            cluster.start(settings.members());
            ClusterSnapshot spread = cluster.awaitSpread(SPREAD_BOUND, STABLE_FOR);
            progress.println("  joined: " + spread.describe());
            List<ClusterJob> jobs = ClusterJob.create(cluster, receiver.url(), settings.jobs(), "cluster-bench");
            List<String> violations = new ArrayList<>();
            requireEveryMemberHoldsJobs(spread, jobs, violations);
            List<FailoverRound> rounds = new ArrayList<>();
            List<RunStream.Run> runs;
            List<String> runFailures;
            try (RunStream stream = RunStream.start(cluster, jobs, RunStream.Plan.open(settings.runGapMinMs(),
                    settings.runGapMaxMs(), settings.runDelayMs(), settings.seed()))) {
                Thread.sleep(settings.warmUpMs());
                for (int r = 1; r <= roundCount; r++) {
                    Member victim = cluster.members().get((r - 1) % cluster.members().size());
                    try {
                        FailoverRound round = round(cluster, database.jdbcUrl(), r, victim);
                        rounds.add(round);
                        progress.println("  " + describe(round));
                    } catch (RuntimeException e) {
                        // Report what the rounds so far measured, and why the rest did not run.
                        violations.add("round " + r + " aborted, no further rounds: " + e.getMessage());
                        progress.println("  round " + r + " aborted: " + e);
                        break;
                    }
                }
                stream.stop(ANSWERS_BOUND);
                runs = stream.runs();
                runFailures = stream.failures();
            }
            long lastDueMs = runs.stream().mapToLong(RunStream.Run::dueMs).max().orElse(0);
            Thread.sleep(Math.max(0, lastDueMs - System.currentTimeMillis()));
            List<Instance> rows;
            try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
                awaitAllEnded(stores, cluster, violations);
                cluster.requireNoneDied();
                cluster.terminateAll();
                Thread.sleep(LATE_DUPLICATE_WAIT_MS);
                rows = StoreRows.readAll(stores.instances());
            }
            Optional<String> disturbed = PostgresWatch.read(database.jdbcUrl()).disturbedSince(watchAtStart);
            FailoverAudit audit = new FailoverAudit(rounds, runs, rows, receiver.deliveries(), settings.observeMs());
            judge(audit, runFailures, receiver.malformed(), disturbed, violations);
            return new Outcome(mode, audit, runFailures, receiver.malformed(), loadAtStart, Machine.loadAverage(),
                    Duration.ofNanos(System.nanoTime() - startNanos).toSeconds(), disturbed.orElse(null), violations);
        }
    }

    /** One round: signal the victim, watch its shards move, observe, restart it, wait for the spread, settle. */
    private FailoverRound round(ClusterProcesses cluster, String jdbcUrl, int number, Member victim)
            throws InterruptedException {
        PostgresWatch watch = PostgresWatch.read(jdbcUrl);
        ClusterSnapshot before = cluster.snapshot();
        int victimNode = victim.nodeId();
        Set<Integer> shards = before.shardsHeldBy(victimNode);
        String load = Machine.loadAverage();
        boolean graceful = mode == ClusterSettings.Mode.GRACEFUL;
        long signalAtMs;
        ClusterProcesses.PendingStop pending;
        if (graceful) {
            pending = cluster.terminateAsync(victim);
            signalAtMs = pending.signalledAtMs();
        } else {
            signalAtMs = cluster.kill(victim);
            pending = new ClusterProcesses.PendingStop(signalAtMs,
                    CompletableFuture.completedFuture(new ClusterProcesses.Stop(signalAtMs, Duration.ZERO, 137)));
        }
        long movedAtMs = awaitMoved(cluster, shards, victimNode,
                signalAtMs + Math.max(settings.observeMs(), 6 * settings.leaseTtlMs()));
        ClusterProcesses.Stop stopped = pending.await();
        Thread.sleep(Math.max(0, signalAtMs + settings.observeMs() - System.currentTimeMillis()));
        cluster.requireNoneDied();
        long restartAtMs = System.currentTimeMillis();
        cluster.restart(victim);
        long spreadAtMs = cluster.awaitSpread(SPREAD_BOUND, STABLE_FOR).readAtMs();
        Thread.sleep(settings.settleMs());
        String disturbance = PostgresWatch.read(jdbcUrl).disturbedSince(watch).orElse(null);
        return new FailoverRound(number, graceful, victim.name(), victimNode, shards, signalAtMs,
                graceful ? stopped.took().toMillis() : -1,
                stopped.exitCode(), movedAtMs, restartAtMs, victim.nodeId(), spreadAtMs, load, disturbance);
    }

    /** Polls GET /api/cluster until every one of {@code shards} is held by another node; -1 if not by the deadline. */
    private static long awaitMoved(ClusterProcesses cluster, Set<Integer> shards, int formerHolder, long deadlineMs)
            throws InterruptedException {
        while (System.currentTimeMillis() < deadlineMs) {
            var view = cluster.trySnapshot();
            if (view.isPresent() && view.get().movedAway(shards, formerHolder)) {
                return view.get().readAtMs();
            }
            Thread.sleep(LEASE_POLL_MS);
        }
        return -1;
    }

    /** Waits until no instance is WAITING or DISPATCHING (foreign claims settle the job timeout + 1 s after a take-over). */
    private void awaitAllEnded(JdbcStores stores, ClusterProcesses cluster, List<String> violations)
            throws InterruptedException {
        long boundMs = 60_000 + Math.max(settings.callTimeoutMs(), 10_000);
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
        Map<InstanceStatus, Long> counts = stores.instances().countByStatus();
        while (open(counts) > 0) {
            if (System.nanoTime() - deadlineNanos > 0) {
                violations.add("not every instance ended within " + boundMs / 1000 + " s of the last due time: "
                        + new TreeMap<>(counts));
                return;
            }
            cluster.requireNoneDied();
            Thread.sleep(500);
            counts = stores.instances().countByStatus();
        }
    }

    private static long open(Map<InstanceStatus, Long> counts) {
        return counts.getOrDefault(InstanceStatus.WAITING, 0L) + counts.getOrDefault(InstanceStatus.DISPATCHING, 0L);
    }

    private static void requireEveryMemberHoldsJobs(ClusterSnapshot spread, List<ClusterJob> jobs,
                                                    List<String> violations) {
        Set<Integer> jobShards = ClusterJob.shardsOf(jobs);
        for (int node : spread.liveNodeIds()) {
            if (spread.shardsHeldBy(node).stream().noneMatch(jobShards::contains)) {
                violations.add("node " + node + " holds none of the jobs' " + jobShards.size() + " shards: raise"
                        + " --jobs");
            }
        }
    }

    /**
     * Lost instances and stray deliveries fail a run whatever happened; API failures and rounds without a take-over
     * fail it only if nobody else disturbed PostgreSQL meanwhile (then they are the outage's, and reported).
     */
    private void judge(FailoverAudit audit, List<String> runFailures, long malformed, Optional<String> disturbed,
                       List<String> violations) {
        if (audit.lost() > 0) {
            violations.add("lost " + audit.lost() + " of " + audit.created() + " instances (" + audit.notInStore()
                    + " not in the store)");
        }
        if (audit.stray() > 0 || malformed > 0) {
            violations.add(audit.stray() + " stray and " + malformed + " malformed deliveries");
        }
        if (!runFailures.isEmpty() && disturbed.isEmpty()) {
            violations.add(runFailures.size() + " runs failed, first: " + runFailures.get(0));
        }
        for (FailoverAudit.RoundMeasure m : audit.rounds()) {
            if (m.round().disturbed()) {
                continue;
            }
            if (Double.isNaN(m.takeoverMs())) {
                violations.add("round " + m.round().number() + ": no instance of the victim's shards due after the"
                        + " signal arrived");
            }
            if (m.round().leasesMovedAtMs() < 0) {
                violations.add("round " + m.round().number() + ": the victim's leases never moved");
            }
        }
    }

    private static String describe(FailoverRound round) {
        return String.format(java.util.Locale.ROOT, "round %d: %s %s (node %d, %d shards)%s, leases moved after %s;"
                        + " restarted and spread again in %.1f s; load %s",
                round.number(), round.graceful() ? "SIGTERM" : "kill -9", round.victim(), round.victimNode(),
                round.victimShards().size(),
                round.graceful() ? String.format(java.util.Locale.ROOT, ", stop took %d ms (exit %d)",
                        round.stopTookMs(), round.exitCode()) : "",
                round.leasesMovedMs() < 0 ? "never" : round.leasesMovedMs() + " ms", round.rejoinMs() / 1000.0,
                round.loadAverage()) + (round.disturbed() ? "; DISTURBED: " + round.disturbance() : "");
    }
}
