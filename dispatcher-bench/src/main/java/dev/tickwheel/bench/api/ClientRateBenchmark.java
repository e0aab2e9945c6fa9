package dev.tickwheel.bench.api;

import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.api.LoadOperation.Outcome;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.client.TickwheelClient;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.client.TickwheelException;
import dev.tickwheel.client.model.RunRequest;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The single-call rate of Tickwheel's Java client ({@code tickwheel-client}: Apache HttpClient 5, Jackson,
 * typed answers) beside the API benchmark's own JVM client ({@link SchedulingApi}: Apache HttpClient 5, answers
 * scanned as text), in the same run against the same server: figures 1 (run) and 2 (keyed run) of
 * {@link ApiLoadBenchmark}, each client with {@code --concurrency} (32) worker threads blocking on a sync call, so
 * the same closed loop at 32 in flight. The Tickwheel client's workers call {@code client.jobs().run(jobId, run)} and
 * get a {@code RunResult}; a call that throws counts as an error named by its HTTP status or exception.
 *
 * <p>Per round: a job of its own, then run (first client), run (second), keyed run (first), keyed run (second), the
 * order of the two clients swapped every round so neither always meets the fresher table; the job is deleted and the
 * table vacuumed at the round's end. Before round 1, {@code --server-warmup-seconds} of untimed runs, half with each
 * client. Each figure's median (min–max) over the rounds is printed as a Markdown table.
 *
 * <p>Run (from the repository root; PostgreSQL on 127.0.0.1:5432, trust auth, database {@code test}):
 * <pre>
 * mvn -B -q package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.api.ClientRateBenchmark --rounds 3 --seconds 10
 * </pre>
 * Options as {@link ApiLoadBenchmark}'s ({@link ApiLoadSettings}): {@code --concurrency}, {@code --seconds},
 * {@code --warmup-seconds}, {@code --rounds}, {@code --delay-ms}, {@code --server-warmup-seconds}, {@code --pg-url},
 * {@code --server-jar}, {@code --log-dir}; the others are ignored. About 4 × 13 s a round.
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class ClientRateBenchmark {

    private static final Duration HEALTHY_BOUND = Duration.ofMinutes(2);
    private static final String JVM = "JVM client (Apache HttpClient 5)";
    private static final String TICKWHEEL = "tickwheel-client (Apache HttpClient 5 classic, Jackson)";

    private ClientRateBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("logback.configurationFile", "tickwheel-bench-logback.xml");
        ApiLoadSettings settings = ApiLoadSettings.DEFAULTS.with(CommandLine.parse(args, ApiLoadSettings.OPTIONS));
        long startNanos = System.nanoTime();
        Map<String, List<PhaseResult>> results = new LinkedHashMap<>();
        String server = run(settings, results, System.out);
        System.out.println();
        System.out.printf("Run on %s, %d rounds of %d s warm-up + %d s measured per figure, %d requests in flight,"
                        + " after %d s of untimed runs; the whole run took %d s. Server: `%s`. %s.%n%n",
                LocalDate.now(), settings.rounds(), settings.warmUp().toSeconds(), settings.measure().toSeconds(),
                settings.concurrency(), settings.serverWarmUp().toSeconds(),
                (System.nanoTime() - startNanos) / 1_000_000_000, server, Machine.loadAverage());
        System.out.println(table(results));
    }

    /** Runs the rounds; fills {@code results} by row label; returns how the server was started. */
    static String run(ApiLoadSettings settings, Map<String, List<PhaseResult>> results, PrintStream out)
            throws Exception {
        Path log = settings.logDir().resolve("client-bench-server-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".log");
        try (BenchDatabase db = BenchDatabase.postgres(settings.pgUrl())) {
            BenchSchema schema = new BenchSchema(db.jdbcUrl());
            out.println(schema.describe() + ", " + db);
            ServerLaunch launch = (settings.serverJar() != null ? ServerLaunch.ofJar(settings.serverJar())
                    : ServerLaunch.onThisClassPath()).withJvmFlags(ApiLoadSettings.SERVER_FLAGS);
            try (ServerProcess server = ServerProcess.start(launch, List.of("--port", "0", "--db-url", db.jdbcUrl()),
                    log);
                    SchedulingApi api = new SchedulingApi(server.awaitBaseUrl(HEALTHY_BOUND),
                            settings.concurrency() + 2);
                    TickwheelClient client = TickwheelClient.builder(api.baseUrl())
                            .requestTimeout(Duration.ofSeconds(30)).build()) {
                out.println("server pid " + server.pid() + " (" + launch.describe() + ") at " + api.baseUrl()
                        + ", log " + log);
                ApiLoadBenchmark.awaitHealthy(server, api);
                AtomicLong keys = new AtomicLong();
                ApiCalls calls = new ApiCalls(api, settings.delayMs(), settings.batchSize(), keys);
                warmUp(settings, server.pid(), api, calls, client, keys, out);
                LoadLoop loop = new LoadLoop(settings.concurrency(), settings.warmUp(), settings.measure(),
                        () -> CpuSample.take(server.pid()));
                for (int round = 1; round <= settings.rounds(); round++) {
                    long jobId = api.createJob("client bench round " + round);
                    boolean jvmFirst = round % 2 == 1;
                    for (boolean keyed : new boolean[] {false, true}) {
                        for (boolean jvm : new boolean[] {jvmFirst, !jvmFirst}) {
                            String row = (keyed ? "2. keyed run" : "1. run") + " (" + (jvm ? JVM : TICKWHEEL) + ")";
                            LoadOperation op = jvm ? (keyed ? calls.keyedRun(jobId, new IdPool())
                                    : calls.run(jobId, new IdPool()))
                                    : tickwheelRun(client, jobId, settings.delayMs(), keyed ? keys : null);
                            PhaseResult result = loop.run(keyed ? Figure.RUN_KEYED : Figure.RUN, round, op);
                            results.computeIfAbsent(row, r -> new ArrayList<>()).add(result);
                            out.println(row + ": " + result.line());
                        }
                    }
                    try {
                        api.deleteJob(jobId);
                    } catch (RuntimeException e) {
                        // the round's figures stand; its leftover runs fall due delayMs after they were made
                        out.println("round " + round + ": WARNING: could not delete its job: " + e.getMessage());
                    }
                    schema.vacuum();
                    out.printf("round %d done: load average %s%n", round, Machine.loadAverage());
                }
                return launch.describe();
            }
        }
    }

    /**
     * Single runs of {@code jobId} through the Tickwheel client's sync call, due {@code delayMs} out; with
     * {@code keys}, each with a key no run had ({@code t-N}).
     */
    static LoadOperation tickwheelRun(TickwheelClient client, long jobId, long delayMs, AtomicLong keys) {
        RunRequest unkeyed = RunRequest.after(Duration.ofMillis(delayMs));
        return worker -> {
            RunRequest run = keys == null ? unkeyed : unkeyed.withKey("t-" + keys.incrementAndGet());
            try {
                client.jobs().run(jobId, run);
                return Outcome.success(1);
            } catch (TickwheelException e) {
                return Outcome.error(e.httpStatus() == 0 ? e.code() : String.valueOf(e.httpStatus()), e.getMessage());
            }
        };
    }

    /** Untimed runs before round 1, half of {@code --server-warmup-seconds} with each client. */
    private static void warmUp(ApiLoadSettings settings, long serverPid, SchedulingApi api, ApiCalls calls,
                               TickwheelClient client, AtomicLong keys, PrintStream out) throws InterruptedException {
        if (settings.serverWarmUp().isZero()) {
            return;
        }
        Duration half = Duration.ofMillis(Math.max(1_000, settings.serverWarmUp().toMillis() / 2));
        LoadLoop untimed = new LoadLoop(settings.concurrency(), Duration.ZERO, half, () -> CpuSample.take(serverPid));
        long jobId = api.createJob("client bench warm-up");
        out.println("warm-up (not reported): " + untimed.run(Figure.RUN, 0, calls.run(jobId, new IdPool())).line());
        out.println("warm-up (not reported): " + untimed.run(Figure.RUN_KEYED, 0,
                tickwheelRun(client, jobId, settings.delayMs(), keys)).line());
        try {
            api.deleteJob(jobId);
        } catch (RuntimeException e) {
            out.println("warm-up: WARNING: could not delete its job: " + e.getMessage());
        }
    }

    /** The Markdown table: one row per client and call, medians (min–max) over the rounds. */
    static String table(Map<String, List<PhaseResult>> results) {
        StringBuilder s = new StringBuilder("| figure | median calls/s | min–max | latency p50 / p99 µs (median) "
                + "| CPU cores (µs per call) server / client, machine busy | errors |\n| --- | --- | --- | --- | --- "
                + "| --- |\n");
        results.forEach((row, rounds) -> {
            List<PhaseResult> valid = rounds.stream().filter(PhaseResult::valid).toList();
            if (valid.isEmpty()) {
                s.append("| ").append(row).append(" | — | — | — | — | ")
                        .append(rounds.stream().map(PhaseResult::errorText).toList()).append(" |\n");
                return;
            }
            double rate = median(valid, PhaseResult::itemsPerSecond);
            double server = median(valid, r -> r.cpu() == null ? -1 : r.cpu().serverCores());
            double clientCores = median(valid, r -> r.cpu() == null ? -1 : r.cpu().clientCores());
            s.append(String.format("| %s | **%,.0f** | %,.0f–%,.0f | %,.0f / %,.0f | %.2f (%.0f) / %.2f (%.0f), "
                            + "%.0f %% | %d |%n", row, rate,
                    valid.stream().mapToDouble(PhaseResult::itemsPerSecond).min().orElse(0),
                    valid.stream().mapToDouble(PhaseResult::itemsPerSecond).max().orElse(0),
                    median(valid, r -> r.p50Us()), median(valid, r -> r.p99Us()), server, server * 1e6 / rate,
                    clientCores, clientCores * 1e6 / rate,
                    median(valid, r -> r.cpu() == null ? -1 : r.cpu().machineBusyPercent()),
                    rounds.stream().mapToLong(PhaseResult::errorCount).sum()));
        });
        return s.toString();
    }

    private static double median(List<PhaseResult> results, ToDoubleFunction<PhaseResult> value) {
        List<Double> sorted = results.stream().map(value::applyAsDouble).sorted(Comparator.naturalOrder()).toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
