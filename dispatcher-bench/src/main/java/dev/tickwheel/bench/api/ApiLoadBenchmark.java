package dev.tickwheel.bench.api;

import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.api.ApiLoadReport.RunFacts;
import dev.tickwheel.bench.api.ApiLoadSettings.Part;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.fixtures.Poll;
import dev.tickwheel.fixtures.Throttled;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP scheduling API at platform scale (issue "Scheduling calls at platform scale"), with the client in another
 * process than the server, and PostgreSQL's own ceiling for the same statements in the same run:
 *
 * <ol>
 *   <li>single {@code POST /api/jobs/{id}/run} calls/s and latency p50/p99 (target ≥ 10 000/s, p99 ≤ 20 ms), each
 *       run due {@code --delay-ms} (10 min) out so that nothing fires during the run;
 *   <li>the same with a unique {@code "key"} on every run (target ≥ 8 000/s);
 *   <li>single cancels by id ({@code POST /api/instances/{id}/cancel}, of 1's instances) and by key
 *       ({@code POST /api/jobs/{jobId}/runs/{key}/cancel}, of 2's) (target ≥ 10 000/s each);
 *   <li>batches of 1 000: {@code POST /api/jobs/{id}/runs} (runs created/s) and {@code POST /api/instances/cancel}
 *       (cancels/s) (target ≥ 50 000/s each);
 *   <li>the ceiling: bare JDBC on the same schema, 32 threads, the server's statements (job lock, insert, commit;
 *       cancel by {@code id = ANY(?)}) with 1, 32 and 1 000 rows a transaction, keyed and not ({@link JdbcCeiling}).
 * </ol>
 *
 * How: a fresh PostgreSQL schema; the server jar in a child JVM ({@code -Xms1g -Xmx1g}) on a free loopback port, up
 * when {@code GET /health} answers 200; {@code --concurrency} (32) requests in flight, each on its own keep-alive
 * connection, from one or two clients ({@code --client}): the JVM client, 32 threads in this JVM each blocking on
 * its connection ({@link LoadLoop}), and for the single calls (1 to 3b) also wrk, a C load generator in its own
 * process ({@link WrkClient}), whose rows stand beside the JVM client's: on a 2-core machine the JVM client's own
 * CPU (100–200 µs a call) is taken from the server, wrk's is a fraction of it. Each figure a warm-up then a fixed
 * measured window; every figure once per round; before round 1, {@code --server-warmup-seconds} of untimed single
 * calls so that the JIT has compiled the server's request path; the report the median (min–max) over the rounds.
 * Only 2xx answers count; errors are counted by status. The schema is dropped at the end.
 *
 * <p>Run (from the repository root; PostgreSQL on 127.0.0.1:5432, trust auth, database {@code test}):
 * <pre>
 * mvn -B -q package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.api.ApiLoadBenchmark --out docs/api-benchmark.md
 * </pre>
 * Options ({@link ApiLoadSettings} has their meaning): {@code --concurrency 32}, {@code --seconds 10},
 * {@code --warmup-seconds 3}, {@code --rounds 3}, {@code --delay-ms 600000}, {@code --batch-size 1000},
 * {@code --small-group 32}, {@code --parts api,ceiling}, {@code --client jvm|wrk|both} (default {@code both} if
 * {@code --wrk} (default {@code /usr/bin/wrk}) is an executable, else {@code jvm}), {@code --wrk PATH},
 * {@code --server-warmup-seconds 15}, {@code --pg-url jdbc:postgresql://...},
 * {@code --server-jar PATH} (default {@code dispatcher-server/target/tickwheel-server.jar} if it exists, else the
 * class path; {@code classpath} forces the class path), {@code --log-dir DIR} (the server's output; default
 * {@code $TMPDIR/tickwheel-api-bench}; wrk's outputs go to {@code wrk-<time>/} there), {@code --out FILE} (writes
 * the "Results" section into FILE). A full run with both clients takes about 20 minutes (3 rounds of 18 phases of
 * 13 s, plus making wrk's runs to cancel and each round's clean-up). The program exits 1 if a round
 * failed (the server died, a call outside the measured phases failed), after reporting the rounds before it.
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class ApiLoadBenchmark {

    private static final Duration HEALTHY_BOUND = Duration.ofMinutes(2);
    private static final Duration HEALTH_POLL = Duration.ofMillis(100);
    /** A graceful stop lets calls end for its stop timeout; after this the server is killed. */
    private static final Duration STOP_BOUND = Duration.ofSeconds(30);

    private ApiLoadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        // Before the first logger: the client's HTTP library logs only warnings.
        System.setProperty("logback.configurationFile", "tickwheel-bench-logback.xml");
        ApiLoadSettings settings = ApiLoadSettings.DEFAULTS.with(CommandLine.parse(args, ApiLoadSettings.OPTIONS));
        long startNanos = System.nanoTime();
        Map<Figure, List<PhaseResult>> results = new EnumMap<>(Figure.class);
        List<String> loadAverages = new ArrayList<>();
        Environment environment = run(settings, results, loadAverages, System.out);
        RunFacts facts = new RunFacts(LocalDate.now().toString(), command(args), environment.server(),
                environment.clients(), environment.postgres(), environment.keyColumn(), loadAverages,
                (System.nanoTime() - startNanos) / 1_000_000_000, environment.failure());
        String section = new ApiLoadReport(settings, facts, results).section();
        System.out.println();
        System.out.println(section);
        if (settings.out() != null) {
            ApiLoadReport.writeInto(settings.out(), section);
            System.out.println("written into " + settings.out());
        }
        if (environment.failure() != null) {
            System.exit(1);
        }
    }

    /**
     * What a run found out about what it ran on.
     *
     * @param server    how the server was started (flags and jar)
     * @param clients   the clients that sent the calls (wrk's version)
     * @param postgres  the database's version and settings
     * @param keyColumn whether the server's schema had {@code tw_instance.run_key}
     * @param failure   why the rounds stopped early, or null if every round ran
     */
    record Environment(String server, String clients, String postgres, boolean keyColumn, String failure) {
    }

    /**
     * Runs every round on a fresh schema and server; fills {@code results} and {@code loadAverages}. A round that
     * fails ends the rounds (the failure is returned, the rounds before it are kept); a failure before the first
     * round (no server, no job) is thrown.
     */
    static Environment run(ApiLoadSettings settings, Map<Figure, List<PhaseResult>> results, List<String> loadAverages,
                        PrintStream out) throws Exception {
        Path log = settings.logDir().resolve("server-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".log");
        try (BenchDatabase db = BenchDatabase.postgres(settings.pgUrl())) {
            BenchSchema schema = new BenchSchema(db.jdbcUrl());
            String postgres = schema.describe();
            out.println(postgres + ", " + db);
            // The server in a process of its own: client and server share no heap, no JIT, no GC and no threads.
            ServerLaunch launch = (settings.serverJar() != null ? ServerLaunch.ofJar(settings.serverJar())
                    : ServerLaunch.onThisClassPath()).withJvmFlags(ApiLoadSettings.SERVER_FLAGS);
            try (ServerProcess server = ServerProcess.start(launch, List.of("--port", "0", "--db-url", db.jdbcUrl()),
                    log);
                    SchedulingApi api = new SchedulingApi(server.awaitBaseUrl(HEALTHY_BOUND),
                            settings.concurrency() + 2)) {
                out.println("server pid " + server.pid() + " (" + launch.describe() + ") at " + api.baseUrl()
                        + ", log " + log);
                awaitHealthy(server, api);
                boolean keyColumn = schema.hasRunKeyColumn();
                if (!keyColumn) {
                    out.println("tw_instance has no run_key column (schema before the run-key migration): the keyed"
                            + " ceilings will fail");
                }
                long ceilingJobId = api.createJob("bench ceiling");
                ApiCalls calls = new ApiCalls(api, settings.delayMs(), settings.batchSize(), new AtomicLong());
                BenchRound rounds = new BenchRound(settings, server.pid(), out, results);
                boolean wrkUsed = settings.measures(Part.API) && settings.client().wrk();
                try (JdbcCeiling ceiling = new JdbcCeiling(db.jdbcUrl(), ceilingJobId, settings.delayMs(),
                        settings.concurrency(), keyColumn);
                        WrkClient wrk = wrkUsed ? WrkClient.create(settings, api.baseUrl(), server.pid(), out)
                                : null) {
                    String clients = clients(settings, wrk);
                    out.println("clients: " + clients + (wrk == null ? "" : "; wrk's output in " + wrk.outputs()));
                    String failure = null;
                    if (settings.measures(Part.API)) {
                        try {
                            rounds.serverWarmUp(api, calls, schema, server.pid());
                        } catch (RuntimeException e) {
                            failure = "the server warm-up before round 1 failed: " + e.getMessage();
                            out.println(failure);
                            e.printStackTrace(out);
                        }
                    }
                    for (int round = 1; round <= settings.rounds() && failure == null; round++) {
                        try {
                            if (settings.measures(Part.API)) {
                                rounds.api(round, api, calls, schema, wrk);
                            }
                            if (settings.measures(Part.CEILING)) {
                                rounds.ceiling(round, ceiling, schema, ceilingJobId);
                            }
                            rounds.vacuum(round, schema);
                        } catch (RuntimeException e) {
                            failure = "round " + round + " failed: " + e.getMessage();
                            out.println(failure);
                            e.printStackTrace(out);
                        }
                        loadAverages.add(Machine.loadAverage().replace(" (1 / 5 / 15 min)", ""));
                        if (!server.isAlive()) {
                            failure = (failure == null ? "" : failure + "; ") + "the server ended during round "
                                    + round + "; last lines of its log:\n" + String.join("\n", server.tail(8));
                        }
                    }
                    return new Environment(launch.describe(), clients, postgres, keyColumn, failure);
                } finally {
                    stopGracefully(server, out);
                }
            }
        }
    }

    /**
     * Waits, at most {@link #HEALTHY_BOUND}, for {@code GET /health} to answer 200.
     *
     * @throws IllegalStateException if the server ends first or the bound passes, with its last lines
     */
    static void awaitHealthy(ServerProcess server, SchedulingApi api) {
        Poll.until(() -> "the server (pid " + server.pid() + ") to be healthy; last lines:\n"
                        + String.join("\n", server.tail()), HEALTHY_BOUND,
                Throttled.every(HEALTH_POLL, () -> {
                    if (!server.isAlive()) {
                        throw new IllegalStateException("the server (pid " + server.pid() + ") ended before it was"
                                + " healthy; last lines:\n" + String.join("\n", server.tail()));
                    }
                    return api.healthy();
                }));
    }

    /** {@code SIGTERM} (the server's graceful stop), killed if it has not ended after {@link #STOP_BOUND}. */
    private static void stopGracefully(ServerProcess server, PrintStream out) throws InterruptedException {
        try {
            server.terminate(STOP_BOUND);
        } catch (IllegalStateException hung) {
            out.println(hung.getMessage());
        }
    }

    /** Which clients sent the calls, for the report. */
    private static String clients(ApiLoadSettings settings, WrkClient wrk) {
        String jvm = "the JVM client (Apache HttpClient 5 classic, " + settings.concurrency() + " threads, in the "
                + "benchmark's JVM)";
        if (!settings.measures(Part.API)) {
            return "none (no API figures)";
        }
        String batches = settings.client().jvm() ? "" : " for the batches (4a, 4b)";
        return (wrk == null ? jvm : wrk.version() + " (" + WrkClient.threads(settings.concurrency()) + " threads, "
                + settings.concurrency() + " connections, its own process) for the rows marked (wrk), and " + jvm
                + batches);
    }

    /** The command line as one would type it from the repository root. */
    private static String command(String[] args) {
        String classPath = System.getProperty("java.class.path");
        String shown = classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator) ? classPath
                : "<class path>";
        return "java -cp " + shown + " " + ApiLoadBenchmark.class.getName()
                + (args.length == 0 ? "" : " " + String.join(" ", args));
    }
}
