package dev.tickwheel.bench;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.EndToEndReport;
import dev.tickwheel.bench.e2e.EndToEndRun;
import dev.tickwheel.bench.e2e.RunResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * End-to-end benchmark of the dispatch engine (issue 4): 100 000 one-shot instances due within 10 s are created by
 * the loader, fired by the wheel, claimed in the store, run by an in-process handler and recorded SUCCEEDED, on H2
 * (file) and on PostgreSQL over loopback. Reports the loader's creation rate, dispatch throughput (instances/s from
 * the first fire to the last SUCCEEDED write), lateness percentiles (actual minus scheduled trigger time, from the
 * store rows) and duplicate dispatches (must be 0). Each run is a separate JVM on a fresh store (a temporary H2
 * directory, or a new PostgreSQL schema dropped afterwards); the summary gives medians and min–max.
 *
 * <p>What "one-shot instances" means here: 100 000 ONE_SHOT jobs, one instance each, created by the server's own
 * loader pass (the production path), not by a bulk insert of instance rows. See {@link EndToEndRun} for the fixture.
 *
 * <p>Run (from the repository root):
 * <pre>
 * mvn -B -q -pl dispatcher-bench -am package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.EndToEndBenchmark --db pg
 * </pre>
 * Options: {@code --db h2|pg|both} (default both), {@code --runs 3}, {@code --instances 100000},
 * {@code --lead-ms 10000} (all instances due within this of the server start), {@code --spread-ms 2000} (they are due
 * evenly over the last this-many ms of the lead), {@code --pg-url jdbc:postgresql://127.0.0.1:5432/test?user=postgres},
 * {@code --timeout-s 300}, {@code --handler-threads N} (the server's handler pool; default
 * {@code TickwheelServer.DEFAULT_HANDLER_THREADS}, which also bounds the handler calls in flight), {@code --warmup N}
 * (default 0: none; before the measured run, the child JVM runs the same path twice, with the same lead and spread,
 * with N instances on a store of its own each time, so that the measured run finds the dispatch path compiled, as in
 * a server that has been running),
 * {@code --pools N} (default 0: jobs without a pool; N &gt; 0: every job of the run, the warm-up's too, names one of N
 * pools whose limits never bind, stored before the jobs; see {@link EndToEndRun}).
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class EndToEndBenchmark {

    /** Warm-up runs before the measured one, each on a store of its own (see {@code runSingle}). */
    static final int WARMUP_ROUNDS = 2;

    private EndToEndBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (options.single != null) {
            runSingle(options);
            return;
        }
        List<String> databases = options.db.equals("both") ? List.of("h2", "pg") : List.of(options.db);
        List<String> summary = new ArrayList<>();
        for (String db : databases) {
            List<RunResult> results = new ArrayList<>();
            for (int run = 1; run <= options.runs; run++) {
                System.out.printf("%s run %d of %d%n", db, run, options.runs);
                RunResult result = runChild(db, args);
                System.out.println("  " + result.toLine());
                results.add(result);
            }
            summary.add(EndToEndReport.summarize(db, results));
        }
        System.out.println();
        if (options.pools > 0) {
            System.out.printf("every job in one of %d pools (maxConcurrent %d, no rate)%n", options.pools,
                    EndToEndRun.POOL_MAX_CONCURRENT);
        }
        System.out.println(EndToEndReport.header(options.instances, options.leadMs, options.spreadMs));
        summary.forEach(System.out::println);
    }

    private static void runSingle(Options options) throws Exception {
        if (options.warmup > 0) {
            // The same path, on a store of its own, before the measured run: a server dispatches for as long as it
            // runs, and a run of seconds on a cold JVM otherwise measures the JIT compiling the dispatch path (a
            // thread profile of a cold PostgreSQL run found the compiler threads taking half the JVM's CPU during
            // dispatch). It has the measured run's shape, its lead and spread: with a 3 s lead the warm-up fired its
            // instances while the loader still created them, at the creation rate, and C2 still compiled for 0.7 s of
            // CPU within the measured 3 s dispatch window (per-thread /proc sampling, issue 26). Twice: the second
            // round's server deoptimizes and recompiles what the first one's shutdown and restart left (JDK queue
            // and lock methods, the slot admission), which after one round took C2 0.8 s of CPU in the window.
            EndToEndRun warm = new EndToEndRun(options.warmup, options.leadMs, options.spreadMs,
                    Duration.ofSeconds(options.timeoutS), options.handlerThreads,
                    Math.min(options.pools, options.warmup));
            for (int round = 1; round <= WARMUP_ROUNDS; round++) {
                try (BenchDatabase database = freshDatabase(options)) {
                    System.err.println("  warm-up " + round + ": " + warm.run(database).toLine());
                }
            }
        }
        EndToEndRun run = new EndToEndRun(options.instances, options.leadMs, options.spreadMs,
                Duration.ofSeconds(options.timeoutS), options.handlerThreads, options.pools);
        try (BenchDatabase database = freshDatabase(options)) {
            System.err.println("  store: " + database);
            RunResult result = run.run(database);
            System.out.println(result.toLine());
        }
    }

    /** A fresh store of the kind {@code --single} names: a new PostgreSQL schema or a new H2 directory. */
    private static BenchDatabase freshDatabase(Options options) {
        return options.single.equals("pg") ? BenchDatabase.postgres(options.pgUrl) : BenchDatabase.h2();
    }

    /** Runs one measurement in a fresh JVM, so JIT state, caches and pools never carry over between runs. */
    private static RunResult runChild(String db, String[] args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms1g", "-Xmx1g", "-DTICKWHEEL_LOG_LEVEL=WARN",
                "-cp", System.getProperty("java.class.path"),
                EndToEndBenchmark.class.getName()));
        command.addAll(List.of(args));
        command.addAll(List.of("--single", db));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("TICKWHEEL_LOG_LEVEL", "WARN");
        Process process = builder.start();
        RunResult result = null;
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (RunResult.isResultLine(line)) {
                    result = RunResult.parse(line);
                } else {
                    System.out.println("  | " + line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || result == null) {
            throw new IllegalStateException(db + " run failed (exit " + exit + ")");
        }
        return result;
    }

    /** Command-line options; later occurrences win. */
    static final class Options {
        String db = "both";
        int runs = 3;
        int instances = 100_000;
        long leadMs = 10_000;
        long spreadMs = 2_000;
        String pgUrl = BenchDatabase.DEFAULT_PG_URL;
        long timeoutS = 300;
        int handlerThreads = dev.tickwheel.server.TickwheelServer.DEFAULT_HANDLER_THREADS;
        int warmup;
        int pools;
        String single;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                String value = args[++i];
                switch (name) {
                    case "--db" -> o.db = oneOf(name, value, "h2", "pg", "both");
                    case "--runs" -> o.runs = Integer.parseInt(value);
                    case "--instances" -> o.instances = Integer.parseInt(value);
                    case "--lead-ms" -> o.leadMs = Long.parseLong(value);
                    case "--spread-ms" -> o.spreadMs = Long.parseLong(value);
                    case "--pg-url" -> o.pgUrl = value;
                    case "--timeout-s" -> o.timeoutS = Long.parseLong(value);
                    case "--handler-threads" -> o.handlerThreads = Integer.parseInt(value);
                    case "--warmup" -> o.warmup = Integer.parseInt(value);
                    case "--pools" -> o.pools = notNegative(name, Integer.parseInt(value));
                    case "--single" -> o.single = oneOf(name, value, "h2", "pg");
                    default -> throw new IllegalArgumentException("unknown option: " + name);
                }
            }
            return o;
        }

        private static int notNegative(String name, int value) {
            if (value < 0) {
                throw new IllegalArgumentException(name + " must not be negative: " + value);
            }
            return value;
        }

        private static String oneOf(String name, String value, String... allowed) {
            if (!List.of(allowed).contains(value)) {
                throw new IllegalArgumentException(name + " must be one of " + List.of(allowed) + ": " + value);
            }
            return value;
        }
    }
}
