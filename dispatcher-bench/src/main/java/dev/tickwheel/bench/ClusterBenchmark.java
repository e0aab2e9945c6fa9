package dev.tickwheel.bench;

import dev.tickwheel.bench.cluster.CancelRun;
import dev.tickwheel.bench.cluster.ClusterReport;
import dev.tickwheel.bench.cluster.ClusterSettings;
import dev.tickwheel.bench.cluster.FailoverRun;
import dev.tickwheel.bench.cluster.ThroughputRun;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Cluster mode on PostgreSQL, measured with real server processes (docs/cluster.md's numbers): every member is a
 * {@code dev.tickwheel.server.app.Main} in a child JVM on one fresh schema, webhooks go to a
 * {@link dev.tickwheel.bench.webhook.LoadReceiver} in this JVM.
 *
 * <ul>
 *   <li><b>takeover</b>: three members, 256 API-scheduled webhook jobs, a run every 20–50 ms due 1 s after it is
 *       sent; 20 rounds of {@code kill -9} of one member (rotating): take-over time (signal → first arrival of an
 *       instance of the victim's shards due after the signal), p50 and max over the kills (targets 6 s and 8 s),
 *       the lateness of the victim's instances due in the 10 s after, and over the whole run instances lost and keys
 *       delivered twice;
 *   <li><b>graceful</b>: the same with {@code SIGTERM} (target 1 s), and how long the stop took;
 *   <li><b>throughput</b>: 100 000 instances over 1 000 jobs created ahead, due over 2 s, on one member and on three
 *       (alternating, 3 runs each): dispatch rate as the webhook benchmark's FAST scenario defines it, and the
 *       database's statements (pg_stat_statements) or transactions (pg_stat_database) per dispatched instance;
 *   <li><b>cancel</b>: {@code --members} members under the take-over runs' steady load; 2 000 runs, each created on
 *       one member and cancelled through the next: the cancel call's latency p50/p90/p99/max (target p99 20 ms), and
 *       none of them delivered.
 * </ul>
 * See {@link dev.tickwheel.bench.cluster.FailoverAudit} for the exact definitions. Each mode prints a Markdown
 * section; the machine (and the load average with each round and run) comes last. The program exits 1 if a check
 * failed (an instance lost, a round without take-over, a member that died by itself, ...), after the report.
 *
 * <p>Run (from the repository root; PostgreSQL on 127.0.0.1:5432, trust auth, database {@code test}):
 * <pre>
 * mvn -B -q -DskipTests package
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ClusterBenchmark --mode takeover --kills 20
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ClusterBenchmark --mode graceful --stops 20
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ClusterBenchmark --mode throughput --nodes 1,3 --runs 3
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ClusterBenchmark --mode cancel --members 3
 * </pre>
 * Options ({@link ClusterSettings} has their meaning): {@code --mode takeover,graceful,throughput,cancel} (default all),
 * {@code --kills 20}, {@code --stops 20}, {@code --members 3}, {@code --jobs 256}, {@code --run-gap-min-ms 20},
 * {@code --run-gap-max-ms 50}, {@code --run-delay-ms 1000}, {@code --warm-up-s 10}, {@code --observe-s 10},
 * {@code --settle-ms 2000}, {@code --lease-ttl-ms 5000}, {@code --lease-renew-ms 1000}, {@code --nodes 1,3},
 * {@code --runs 3}, {@code --instances 100000}, {@code --instance-jobs 1000}, {@code --lead-ms 30000},
 * {@code --spread-ms 2000}, {@code --max-calls-in-flight N}, {@code --max-calls-per-host N},
 * {@code --call-timeout-ms N} (0, the default: the server's own), {@code --timeout-s 300}, {@code --cancels 2000},
 * {@code --cancel-gap-ms 5}, {@code --receiver-latency-ms 0},
 * {@code --pg-url jdbc:postgresql://...}, {@code --log-dir DIR} (every server's output; default
 * {@code $TMPDIR/tickwheel-cluster-bench}), {@code --seed 1}.
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class ClusterBenchmark {

    private ClusterBenchmark() {
    }

    public static void main(String[] args) throws InterruptedException {
        // Before the first logger: the receiver's Jetty and the store reader log only warnings.
        System.setProperty("logback.configurationFile", "tickwheel-bench-logback.xml");
        ClusterSettings settings = ClusterSettings.DEFAULTS.with(CommandLine.parse(args, ClusterSettings.OPTIONS));
        Results results = run(settings, System.out);
        System.out.println();
        System.out.println(results.markdown());
        if (!results.passed()) {
            System.exit(1);
        }
    }

    /**
     * What a run printed, as Markdown, and whether every check passed.
     *
     * @param markdown the report
     * @param failures each failed check, with its mode
     */
    public record Results(String markdown, List<String> failures) {
        public boolean passed() {
            return failures.isEmpty();
        }
    }

    /** Runs every mode of {@code settings}, printing progress to {@code progress}; returns the report. */
    public static Results run(ClusterSettings settings, PrintStream progress) throws InterruptedException {
        long startNanos = System.nanoTime();
        String loadAtStart = Machine.loadAverage();
        progress.println("load average at start: " + loadAtStart);
        StringBuilder md = new StringBuilder("## Cluster benchmark, " + LocalDate.now() + "\n\n");
        List<String> failures = new ArrayList<>();
        for (ClusterSettings.Mode mode : settings.modes()) {
            try {
                switch (mode) {
                    case TAKEOVER, GRACEFUL -> {
                        FailoverRun.Outcome outcome = FailoverRun.run(settings, mode, progress);
                        String section = ClusterReport.failover(settings, outcome);
                        progress.println(section);
                        md.append(section).append('\n');
                        outcome.violations().forEach(v -> failures.add(mode.id() + ": " + v));
                    }
                    case CANCEL -> {
                        CancelRun.Outcome outcome = CancelRun.run(settings, progress);
                        String section = ClusterReport.cancel(settings, outcome);
                        progress.println(section);
                        md.append(section).append('\n');
                        outcome.violations().forEach(v -> failures.add(mode.id() + ": " + v));
                    }
                    case THROUGHPUT -> {
                        List<ThroughputRun.Outcome> runs = throughput(settings, progress);
                        String section = ClusterReport.throughput(settings, runs);
                        md.append(section).append('\n');
                        runs.forEach(o -> o.violations().forEach(v -> failures.add(mode.id() + " on " + o.nodes()
                                + ": " + v)));
                    }
                }
            } catch (RuntimeException e) {
                // A mode that could not finish (a member that would not start, a cluster that never spread, ...)
                // is reported with what it saw; the next mode still runs.
                failures.add(mode.id() + ": " + e.getMessage());
                md.append("### ").append(mode.id()).append(": FAILED\n\n```\n").append(e).append("\n```\n\n");
                progress.println(mode.id() + " FAILED: " + e);
                e.printStackTrace(progress);
            }
        }
        md.append("### Machine\n\n").append(Machine.describe(ClusterSettings.MEMBER_FLAGS))
                .append("\nEvery member is a separate JVM with these flags; all of them, the receiver, this program"
                        + " and PostgreSQL share the cores above.\n\nLoad average at start ").append(loadAtStart)
                .append(", at end ").append(Machine.loadAverage()).append("; took ")
                .append(Duration.ofNanos(System.nanoTime() - startNanos).toSeconds()).append(" s.\n");
        if (!failures.isEmpty()) {
            md.append("\n**FAILED checks:**\n\n");
            failures.forEach(f -> md.append("- ").append(f.replace('\n', ' ')).append('\n'));
        }
        return new Results(md.toString(), List.copyOf(failures));
    }

    /** Throughput runs, the cluster sizes alternating: 1, 3, 1, 3, ... */
    private static List<ThroughputRun.Outcome> throughput(ClusterSettings settings, PrintStream progress)
            throws InterruptedException {
        List<ThroughputRun.Outcome> outcomes = new ArrayList<>();
        for (int run = 1; run <= settings.runs(); run++) {
            for (int nodes : settings.throughputNodes()) {
                progress.printf("throughput run %d of %d, %d member(s)%n", run, settings.runs(), nodes);
                ThroughputRun.Outcome o = ThroughputRun.run(settings, nodes, progress);
                progress.printf("  dispatch %.0f/s (rows), received %.0f/s, %s/instance %.2f, lost %d, twice %d,"
                                + " claims by node %s, load %s%s%n", o.store().dispatchPerSec(), o.receivedPerSec(),
                        o.activity().statementsLabel(), o.statementsPerInstance(), o.lost(), o.duplicateKeys(),
                        o.claimsByNode(), o.loadAtEnd(), o.passed() ? "" : " FAILED: " + o.violations());
                outcomes.add(o);
            }
        }
        return outcomes;
    }
}
