package dev.tickwheel.bench;

import dev.tickwheel.bench.ceiling.CeilingResult;
import dev.tickwheel.bench.ceiling.CeilingRun;
import dev.tickwheel.bench.ceiling.CeilingSettings;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.EndToEndReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The store's ceiling (issue 26): the statements the engine runs for every instance on its way to SUCCEEDED (the
 * loader page's job advances and inserts, the batched claim, the batched success), with the engine's batch sizes,
 * from bare loops over the engine's own connection pool, on H2 (file, as the server opens it) and on PostgreSQL. The
 * statements are the engine's code, not copies ({@code InstancePathStatements}); no wheel, slot, handler or planner
 * runs, so what is left is what the database and its driver allow. See {@link CeilingRun} for the phases and
 * {@link CeilingResult} for the measures; the engine's own figure is {@link EndToEndBenchmark}'s dispatch/s, to be
 * compared with {@code dispatch} (claim and success pipelined), and, creation included, with {@code best}.
 *
 * <p>Each run is a child JVM ({@code -Xms1g -Xmx1g}, as the end-to-end runs) on a fresh store (a temporary H2
 * directory or a new PostgreSQL schema, dropped afterwards); the summary gives median (min–max).
 *
 * <p>Run (from the repository root):
 * <pre>
 * mvn -B -q -pl dispatcher-bench -am package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.StoreCeilingBenchmark --db both --runs 3
 * </pre>
 * Options: {@code --db h2|pg|both} (default both), {@code --runs 3}, {@code --instances 100000} (per phase),
 * {@code --pg-url jdbc:postgresql://127.0.0.1:5432/test?user=postgres}, {@code --timeout-s 600}, {@code --warmup N}
 * (default 0: none; before the measured run, the child JVM runs every phase with N instances on a store of its own,
 * twice, as the end-to-end benchmark warms the engine).
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class StoreCeilingBenchmark {

    /** The child JVM's flags: those of the end-to-end runs. */
    static final List<String> CHILD_FLAGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true",
            "-DTICKWHEEL_LOG_LEVEL=WARN", "-Dlogback.configurationFile=tickwheel-bench-logback.xml");

    private StoreCeilingBenchmark() {
    }

    public static void main(String[] args) {
        Options options = Options.parse(args);
        if (options.single() != null) {
            // The same phases on a store of their own first, as many times as the end-to-end benchmark warms the
            // engine, so that the measured run finds the driver's and the statements' code compiled: the two
            // figures are compared.
            for (int round = 0; options.warmup() > 0 && round < EndToEndBenchmark.WARMUP_ROUNDS; round++) {
                try (BenchDatabase database = options.database(options.single())) {
                    new CeilingRun(CeilingSettings.engine(options.warmup()), Duration.ofSeconds(options.timeoutS()))
                            .run(database);
                }
            }
            try (BenchDatabase database = options.database(options.single())) {
                CeilingResult result = new CeilingRun(CeilingSettings.engine(options.instances()),
                        Duration.ofSeconds(options.timeoutS())).run(database);
                ChildJvm.emit(result.toMap());
            }
            return;
        }
        List<String> databases = options.db().equals("both") ? List.of("h2", "pg") : List.of(options.db());
        List<String> summary = new ArrayList<>();
        for (String db : databases) {
            List<CeilingResult> results = new ArrayList<>();
            for (int run = 1; run <= options.runs(); run++) {
                List<String> childArgs = new ArrayList<>(List.of(args));
                childArgs.addAll(List.of("--single", db));
                CeilingResult result = CeilingResult.of(ChildJvm.run(StoreCeilingBenchmark.class, CHILD_FLAGS,
                        childArgs, Duration.ofSeconds(options.timeoutS() * 2)));
                System.out.printf("%s run %d of %d: %s%n", db, run, options.runs(), result.toMap());
                results.add(result);
            }
            summary.add(summarize(db, results));
        }
        System.out.println();
        System.out.printf("store ceiling, %,d instances a phase, instances/s, median (min-max) of %d runs%n",
                options.instances(), options.runs());
        StringBuilder header = new StringBuilder(String.format("%-4s", "db"));
        CeilingResult.MEASURES.keySet().forEach(name -> header.append(String.format(" %-24s", name)));
        System.out.println(header);
        summary.forEach(System.out::println);
        System.out.println();
        System.out.println("load average " + Machine.loadAverage());
        System.out.print(Machine.describe(CHILD_FLAGS));
    }

    static String summarize(String db, List<CeilingResult> results) {
        StringBuilder line = new StringBuilder(String.format("%-4s", db));
        CeilingResult.MEASURES.values().forEach(measure -> line.append(String.format(" %-24s",
                EndToEndReport.medianMinMax(results.stream().mapToDouble(measure).toArray()))));
        return line.toString();
    }

    /** Command-line options ({@link CommandLine}). */
    private record Options(String db, int runs, int instances, String pgUrl, long timeoutS, int warmup,
            String single) {

        static Options parse(String[] args) {
            CommandLine line = CommandLine.parse(args, Set.of("--db", "--runs", "--instances", "--pg-url",
                    "--timeout-s", "--warmup", "--single"));
            String single = line.has("--single") ? oneOf("--single", line.text("--single", null), "h2", "pg") : null;
            return new Options(oneOf("--db", line.text("--db", "both"), "h2", "pg", "both"),
                    line.integer("--runs", 3), line.integer("--instances", 100_000),
                    line.text("--pg-url", BenchDatabase.DEFAULT_PG_URL), line.number("--timeout-s", 600),
                    line.integer("--warmup", 0), single);
        }

        BenchDatabase database(String which) {
            return which.equals("pg") ? BenchDatabase.postgres(pgUrl) : BenchDatabase.h2();
        }

        private static String oneOf(String name, String value, String... allowed) {
            if (!List.of(allowed).contains(value)) {
                throw new IllegalArgumentException(name + " must be one of " + List.of(allowed) + ": " + value);
            }
            return value;
        }
    }
}
