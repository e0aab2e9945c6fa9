package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.Summary;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.webhook.LoadReceiver;
import dev.tickwheel.bench.webhook.ReceiverMode;
import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A cancel run ({@link ClusterSettings.Mode#CANCEL}): {@code members} server processes under the take-over runs'
 * steady {@link RunStream} (so the owners are busy arming, claiming and calling), and {@code cancels} times, one
 * after the other: a run due {@value #CANCELLED_DELAY_MS} ms later is created on one member and cancelled through the
 * next one (never its creator when there are several), the cancel call timed by the client from request to response
 * over a kept-alive loopback connection. Afterwards, once every cancelled run's due time has passed: each one must be
 * CANCELLED in the store and never have reached the receiver.
 *
 * <p>What a cancel costs on a member that is not the owner: the store's compare-and-set, the row read back for the
 * answer, and the prompt to the owner (a NOTIFY in the same transaction as nothing else, see PgClusterBus); the
 * owner's timer is dropped when the prompt arrives, and a timer that fires first finds the row CANCELLED.
 *
 * <p>Not thread-safe: confined to the benchmark thread.
 */
public final class CancelRun {

    /** Long enough that the cancel always comes first, short enough that the audit need not wait long. */
    static final long CANCELLED_DELAY_MS = 3_000;
    private static final long SPREAD_BOUND_S = 90;
    /** Time for a delivery that should not happen to arrive after the last cancelled run was due. */
    private static final long AFTER_LAST_DUE_MS = 3_000;
    /** How long the runs in flight when the stream stops may take to be answered. */
    private static final java.time.Duration ANSWERS_BOUND = java.time.Duration.ofSeconds(60);

    /**
     * What a run found.
     *
     * @param members      server processes
     * @param latenciesUs  every cancel call's client-side latency in microseconds, sorted
     * @param delivered    cancelled runs that reached the receiver anyway (must be 0)
     * @param notCancelled cancelled runs (200 CANCELLED) whose row is not CANCELLED (must be 0)
     * @param failures     create or cancel calls that did not answer as expected, each with why
     * @param loadAtStart  the load average at the start
     * @param loadAtEnd    and at the end
     * @param violations   what must not happen; empty when it passed
     */
    public record Outcome(int members, long[] latenciesUs, long delivered, long notCancelled, List<String> failures,
                          String loadAtStart, String loadAtEnd, List<String> violations) {

        public Outcome {
            latenciesUs = latenciesUs.clone();
            failures = List.copyOf(failures);
            violations = List.copyOf(violations);
        }

        /** Percentile {@code p} (0..100) in milliseconds; NaN if no cancel was measured. */
        public double percentileMs(double p) {
            return Summary.percentile(latenciesUs, p) / 1000.0;
        }

        public double maxMs() {
            return latenciesUs.length == 0 ? Double.NaN : latenciesUs[latenciesUs.length - 1] / 1000.0;
        }

        public boolean passed() {
            return violations.isEmpty();
        }
    }

    private CancelRun() {
    }

    /** Runs once with {@code settings.members()} members, printing progress to {@code progress}. */
    public static Outcome run(ClusterSettings settings, PrintStream progress) throws InterruptedException {
        String loadAtStart = Machine.loadAverage();
        Path logDir = settings.logDir().resolve("cancel-" + System.currentTimeMillis());
        try (BenchDatabase database = BenchDatabase.postgres(settings.pgUrl());
                LoadReceiver receiver = LoadReceiver.start(ReceiverMode.fast());
                ClusterProcesses cluster = new ClusterProcesses(ClusterSettings.memberLaunch(), database.jdbcUrl(),
                        settings.serverArgs(), logDir)) {
            progress.printf("cancel: %s; store %s; server logs in %s%n", settings.describe(ClusterSettings.Mode.CANCEL),
                    database, logDir);
            cluster.start(settings.members());
            ClusterSnapshot spread = cluster.awaitSpread(java.time.Duration.ofSeconds(SPREAD_BOUND_S),
                    java.time.Duration.ofSeconds(1));
            progress.println("  joined: " + spread.describe());
            List<ClusterJob> jobs = ClusterJob.create(cluster, receiver.url(), settings.jobs(), "cluster-bench");
            List<String> failures = new ArrayList<>();
            Set<Long> cancelled = new HashSet<>();
            long[] latencies = new long[settings.cancels()];
            int measured = 0;
            long lastDueMs = 0;
            try (RunStream stream = RunStream.start(cluster, jobs, RunStream.Plan.open(settings.runGapMinMs(),
                    settings.runGapMaxMs(), settings.runDelayMs(), settings.seed()))) {
                Thread.sleep(settings.warmUpMs());
                List<Member> members = cluster.members();
                String body = "{\"delayMs\": " + CANCELLED_DELAY_MS + "}";
                for (int i = 0; i < settings.cancels(); i++) {
                    ClusterJob job = jobs.get(i % jobs.size());
                    Member creator = members.get(i % members.size());
                    Member canceller = members.get((i + 1) % members.size());
                    long sentAtMs = System.currentTimeMillis();
                    Optional<ApiClient.Reply> created = creator.call(
                            api -> api.post("/api/jobs/" + job.id() + "/run", body));
                    if (created.isEmpty() || created.get().status() != 201) {
                        failures.add("run of job " + job.id() + " on " + creator.name() + ": " + created);
                        continue;
                    }
                    String id = created.get().json().get("instanceId").asText();
                    long startNanos = System.nanoTime();
                    Optional<ApiClient.Reply> answer = canceller.call(
                            api -> api.post("/api/instances/" + id + "/cancel", ""));
                    long tookUs = (System.nanoTime() - startNanos) / 1_000;
                    if (answer.isEmpty() || answer.get().status() != 200) {
                        failures.add("cancel of " + id + " on " + canceller.name() + ": " + answer);
                        continue;
                    }
                    latencies[measured++] = tookUs;
                    cancelled.add(Long.parseLong(id));
                    lastDueMs = Math.max(lastDueMs, sentAtMs + CANCELLED_DELAY_MS);
                    if (settings.cancelGapMs() > 0) {
                        Thread.sleep(settings.cancelGapMs());
                    }
                }
                stream.stop(ANSWERS_BOUND);
                failures.addAll(stream.failures());
            }
            Thread.sleep(Math.max(0, lastDueMs + AFTER_LAST_DUE_MS - System.currentTimeMillis()));
            cluster.requireNoneDied();
            long[] delivered = {0};
            receiver.deliveries().forEach((instanceId, attempt, arrivalMs) -> {
                if (cancelled.contains(instanceId)) {
                    delivered[0]++;
                }
            });
            long notCancelled = 0;
            try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
                for (long id : cancelled) {
                    Optional<Instance> row = stores.instances().get(id);
                    if (row.isEmpty() || row.get().status() != InstanceStatus.CANCELLED) {
                        notCancelled++;
                    }
                }
            }
            cluster.terminateAll();
            long[] sorted = Arrays.copyOf(latencies, measured);
            Arrays.sort(sorted);
            List<String> violations = new ArrayList<>();
            if (delivered[0] > 0) {
                violations.add(delivered[0] + " cancelled runs were delivered");
            }
            if (notCancelled > 0) {
                violations.add(notCancelled + " cancelled runs are not CANCELLED in the store");
            }
            if (!failures.isEmpty()) {
                violations.add(failures.size() + " calls failed, first: " + failures.get(0));
            }
            return new Outcome(settings.members(), sorted, delivered[0], notCancelled, failures, loadAtStart,
                    Machine.loadAverage(), violations);
        }
    }
}
