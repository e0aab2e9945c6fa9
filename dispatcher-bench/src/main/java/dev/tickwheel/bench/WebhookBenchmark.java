package dev.tickwheel.bench;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.RunResult;
import dev.tickwheel.bench.webhook.ScenarioResult;
import dev.tickwheel.bench.webhook.ScenarioRun;
import dev.tickwheel.bench.webhook.ScenarioSettings;
import dev.tickwheel.bench.webhook.ServerRun;
import dev.tickwheel.bench.webhook.WebhookScenario;
import dev.tickwheel.server.TickwheelServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * End-to-end benchmark with webhook targets (issue 10): a {@link dev.tickwheel.bench.webhook.LoadReceiver} on
 * loopback answers the server's calls, and four scenarios measure what the dispatch path promises.
 *
 * <ul>
 *   <li><b>fast</b>: 100 000 one-shot instances due over 2 s, a receiver that answers at once: instances/s
 *       dispatched over HTTP, and its ratio to the in-process handler's figure, measured in the same run by the
 *       existing {@link EndToEndBenchmark} scenario (same instances, same timing, same JVM flags);
 *   <li><b>slow</b>: 1 000 instances/s for 30 s, a receiver that answers after 1 s, calls in flight limited to
 *       1 000 (server and host): sustained instances/s, and DISPATCHING rows against calls in flight, sampled every
 *       100 ms;
 *   <li><b>stalled</b>: 32 calls to a receiver that stalls mid-body (job deadline 5 s) and 200 to a healthy
 *       receiver on another port, all due at once: healthy calls' lateness, stalled calls' end;
 *   <li><b>heap</b>: 10 000 calls held 20 s by the receiver, limits raised to 10 000: live heap per call in flight.
 * </ul>
 *
 * <p>Each scenario run is a fresh store (a new PostgreSQL schema, or a temporary H2 directory) and a child JVM for the
 * server ({@link ServerRun}); the receivers run in this JVM ({@link ScenarioRun}). Each prints one result line and
 * checks its invariants (0 lost, 0 duplicate keys, DISPATCHING ≤ in flight + one claim batch, ...): a run that breaks
 * one prints {@code FAILED: ...}, and the program exits 1 after the summary.
 *
 * <p>Run (from the repository root):
 * <pre>
 * mvn -B -q -pl dispatcher-bench -am package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.WebhookBenchmark --runs 3
 * </pre>
 * Options: {@code --db pg|h2} (default pg), {@code --runs 3}, {@code --scenarios fast,slow,stalled,heap} (default
 * all; {@code fast} also runs the in-process scenario), {@code --in-process-handler-threads N} (that scenario's
 * handler pool, which bounds its calls in flight; default the server's, 8 on 2 cores),
 * {@code --pg-url jdbc:postgresql://...}, and the sizes of {@link ScenarioSettings} ({@code --fast-instances 100000},
 * {@code --fast-limit 0} (calls in flight and per host; 0: the server's defaults, 2 000 and 500),
 * {@code --slow-rate 1000}, {@code --slow-duration-s 30},
 * {@code --slow-latency-ms 1000}, {@code --slow-limit 1000}, {@code --stalled-calls 32}, {@code --healthy-calls 200},
 * {@code --stall-timeout-ms 5000}, {@code --stall-mode stall|stall-headers}, {@code --heap-calls 10000},
 * {@code --heap-hold-ms 20000}, {@code --lead-ms 5000}, {@code --timeout-s 300}, ...).
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class WebhookBenchmark {

    /** Child JVM flags: the same as the in-process end-to-end benchmark's, so that the FAST ratio compares like. */
    static final List<String> CHILD_FLAGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true",
            "-DTICKWHEEL_LOG_LEVEL=WARN", "-Dlogback.configurationFile=tickwheel-bench-logback.xml");
    /** HEAP holds 10 000 connections' buffers; it gets more room, so that it measures and does not collect. */
    static final List<String> HEAP_CHILD_FLAGS = List.of("-Xms2g", "-Xmx2g", "-XX:+UseG1GC",
            "-Djava.awt.headless=true", "-DTICKWHEEL_LOG_LEVEL=WARN",
            "-Dlogback.configurationFile=tickwheel-bench-logback.xml");
    private static final Duration CHILD_SLACK = Duration.ofMinutes(2);

    private WebhookBenchmark() {
    }

    public static void main(String[] args) {
        // Before the first logger: the receivers' Jetty and the store reader log only warnings, like the children.
        System.setProperty("logback.configurationFile", "tickwheel-bench-logback.xml");
        Options options = Options.parse(args);
        if (options.single != null) {
            Map<String, String> result = ServerRun.run(options.single, options.settings, options.jdbcUrl,
                    options.receiverUrls);
            ChildJvm.emit(result);
            return;
        }
        long startNanos = System.nanoTime();
        System.out.println("load average at start: " + Machine.loadAverage());
        Map<WebhookScenario, List<ScenarioResult>> results = new EnumMap<>(WebhookScenario.class);
        List<RunResult> inProcess = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int run = 1; run <= options.runs; run++) {
            for (WebhookScenario scenario : options.scenarios) {
                if (scenario == WebhookScenario.FAST) {
                    System.out.printf("run %d of %d: in-process handler (EndToEndBenchmark)%n", run, options.runs);
                    try {
                        RunResult r = inProcessRun(options);
                        System.out.println("  in-process: " + r.toLine());
                        inProcess.add(r);
                    } catch (RuntimeException e) {
                        failures.add("run " + run + " in-process: " + e.getMessage());
                        System.out.println("  in-process FAILED: " + e.getMessage());
                    }
                }
                System.out.printf("run %d of %d: %s%n", run, options.runs, scenario.id());
                ScenarioResult result;
                try {
                    result = ScenarioRun.run(scenario, options.settings, options.databases(),
                            WebhookBenchmark::serverInChild);
                } catch (RuntimeException e) {
                    failures.add("run " + run + " " + scenario.id() + ": " + e.getMessage());
                    System.out.println("  " + scenario.id() + " FAILED: " + e);
                    continue;
                }
                System.out.println("  " + result.toLine());
                results.computeIfAbsent(scenario, s -> new ArrayList<>()).add(result);
                if (!result.passed()) {
                    failures.add("run " + run + " " + result.toLine());
                }
            }
        }
        System.out.println();
        System.out.printf("summary: median (min-max) of %d runs, %s, %s; took %d s; load average at end: %s%n",
                options.runs, options.db.equals("pg") ? "PostgreSQL" : "H2", options.settings,
                Duration.ofNanos(System.nanoTime() - startNanos).toSeconds(), Machine.loadAverage());
        if (!inProcess.isEmpty()) {
            System.out.println("in-process (EndToEndBenchmark, same instances and timing):");
            System.out.printf(Locale.ROOT, "  %-22s %s%n", "dispatchPerSec",
                    ScenarioResult.medianAndRange(inProcess.stream().mapToDouble(RunResult::dispatchPerSec).toArray()));
        }
        results.forEach((scenario, runs) -> {
            System.out.println(scenario.id() + ":");
            System.out.print(ScenarioResult.summarize(runs));
            if (scenario == WebhookScenario.FAST && !inProcess.isEmpty()) {
                System.out.printf(Locale.ROOT, "  %-22s %s%n", "ratio to in-process", ratio(runs, inProcess));
            }
        });
        System.out.println();
        System.out.println(Machine.describe(CHILD_FLAGS));
        if (!failures.isEmpty()) {
            System.out.println("FAILED runs:");
            failures.forEach(f -> System.out.println("  " + f));
            System.exit(1);
        }
    }

    /** Median webhook dispatch/s over median in-process dispatch/s, and each run's own ratio. */
    private static String ratio(List<ScenarioResult> fast, List<RunResult> inProcess) {
        double[] http = fast.stream().mapToDouble(r -> r.number("dispatchPerSec")).toArray();
        double[] local = inProcess.stream().mapToDouble(RunResult::dispatchPerSec).toArray();
        StringBuilder perRun = new StringBuilder();
        for (int i = 0; i < Math.min(http.length, local.length); i++) {
            perRun.append(perRun.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f",
                    http[i] / local[i]));
        }
        return String.format(Locale.ROOT, "%.2f (medians; per run: %s)", median(http) / median(local), perRun);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The existing in-process scenario, with FAST's instances and timing, in a child JVM with the same flags. */
    private static RunResult inProcessRun(Options options) {
        ScenarioSettings s = options.settings;
        List<String> args = List.of("--single", options.db, "--pg-url", options.pgUrl,
                "--instances", Integer.toString(s.fastInstances()), "--lead-ms", Long.toString(s.fastLeadMs()),
                "--spread-ms", Long.toString(s.fastSpreadMs()), "--timeout-s", Long.toString(s.timeout().toSeconds()),
                "--handler-threads", Integer.toString(options.inProcessHandlerThreads));
        return RunResult.of(ChildJvm.run(EndToEndBenchmark.class, CHILD_FLAGS, args,
                s.timeout().plus(CHILD_SLACK)));
    }

    /** {@link ScenarioRun.ServerSide} in a child JVM: this program with {@code --single}. */
    private static Map<String, String> serverInChild(WebhookScenario scenario, ScenarioSettings settings,
                                                     String jdbcUrl, List<String> receiverUrls) {
        List<String> args = new ArrayList<>(List.of("--single", scenario.id(), "--jdbc-url", jdbcUrl,
                "--receiver-urls", String.join(",", receiverUrls)));
        settings.toOptions().forEach((name, value) -> {
            args.add(name);
            args.add(value);
        });
        List<String> flags = scenario == WebhookScenario.HEAP ? HEAP_CHILD_FLAGS : CHILD_FLAGS;
        return ChildJvm.run(WebhookBenchmark.class, flags, args, settings.timeout().plus(CHILD_SLACK));
    }

    /** Command-line options; later occurrences win. */
    private static final class Options {
        String db = "pg";
        int runs = 3;
        List<WebhookScenario> scenarios = List.of(WebhookScenario.values());
        String pgUrl = BenchDatabase.DEFAULT_PG_URL;
        ScenarioSettings settings = ScenarioSettings.FULL;
        WebhookScenario single;
        String jdbcUrl;
        List<String> receiverUrls = List.of();
        int inProcessHandlerThreads = TickwheelServer.DEFAULT_HANDLER_THREADS;

        static Options parse(String[] args) {
            Options o = new Options();
            Map<String, String> sizes = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                String value = args[++i];
                switch (name) {
                    case "--db" -> {
                        if (!value.equals("pg") && !value.equals("h2")) {
                            throw new IllegalArgumentException("--db must be pg or h2: " + value);
                        }
                        o.db = value;
                    }
                    case "--runs" -> o.runs = Integer.parseInt(value);
                    case "--scenarios" -> o.scenarios = Arrays.stream(value.split(",")).map(String::trim)
                            .map(WebhookScenario::of).distinct().toList();
                    case "--pg-url" -> o.pgUrl = value;
                    case "--single" -> o.single = WebhookScenario.of(value);
                    case "--jdbc-url" -> o.jdbcUrl = value;
                    case "--receiver-urls" -> o.receiverUrls = List.of(value.split(","));
                    case "--in-process-handler-threads" -> o.inProcessHandlerThreads = Integer.parseInt(value);
                    default -> {
                        if (!ScenarioSettings.OPTIONS.contains(name)) {
                            throw new IllegalArgumentException("unknown option: " + name);
                        }
                        sizes.put(name, value);
                    }
                }
            }
            if (o.runs < 1) {
                throw new IllegalArgumentException("--runs must be at least 1: " + o.runs);
            }
            o.settings = o.settings.with(sizes);
            if (o.single != null && o.jdbcUrl == null) {
                throw new IllegalArgumentException("--single needs --jdbc-url");
            }
            return o;
        }

        Supplier<BenchDatabase> databases() {
            return db.equals("pg") ? () -> BenchDatabase.postgres(pgUrl) : BenchDatabase::h2;
        }
    }
}
