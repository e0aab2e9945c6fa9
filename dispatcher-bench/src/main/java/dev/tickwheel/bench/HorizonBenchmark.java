package dev.tickwheel.bench;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a backlog of waiting instances costs a server at start: a PostgreSQL store holding N waiting instances of one
 * job due evenly over the next {@code --over-hours} (24), and a server started on it in a fresh JVM
 * ({@code -Xmx}{@value #CHILD_HEAP}): how long {@code start()} took (store open, leases, recovery of every shard, the
 * first pass), how many instances it armed, and the heap it holds after a full GC, less the heap of the same JVM
 * before the server started. With the arm horizon (default 2 min) the server arms what is due within it; "arm all" is
 * the same server with a horizon longer than the backlog, as every server was before the horizon existed.
 *
 * <pre>
 *   java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.HorizonBenchmark \
 *        --waiting 1000000,10000000 --runs 2 [--over-hours 24] [--arm-all-up-to 1000000] [--pg-url jdbc:...]
 * </pre>
 *
 * <p>The rows are written by one {@code INSERT ... SELECT generate_series} and analyzed, as a store that has run for a
 * day would be; then each configuration starts {@code --runs} times, alternating.
 */
public final class HorizonBenchmark {

    private static final String CHILD_HEAP = "4g";
    private static final String RESULT = "RESULT ";
    private static final long JOB_ID = 1_000;

    private HorizonBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        CommandLine cli = CommandLine.parse(args, Set.of("--waiting", "--runs", "--over-hours", "--arm-all-up-to",
                "--pg-url", "--child-url", "--child-horizon-ms"));
        if (cli.has("--child-url")) {
            child(cli.text("--child-url", null), cli.number("--child-horizon-ms", 0));
            return;
        }
        List<Long> sizes = new ArrayList<>();
        for (String n : cli.list("--waiting", List.of("1000000", "10000000"))) {
            sizes.add(Long.parseLong(n.trim()));
        }
        int runs = cli.integer("--runs", 2);
        long overMs = Duration.ofHours(cli.number("--over-hours", 24)).toMillis();
        long armAllUpTo = cli.number("--arm-all-up-to", 1_000_000);
        String pgUrl = cli.text("--pg-url", BenchDatabase.DEFAULT_PG_URL);
        System.out.println("machine: " + Machine.describe());
        System.out.printf("%-10s %-22s %5s %10s %10s %12s%n", "waiting", "server", "run", "start ms", "armed",
                "heap MB");
        for (long n : sizes) {
            try (BenchDatabase db = BenchDatabase.postgres(pgUrl)) {
                long loadStart = System.nanoTime();
                load(db.jdbcUrl(), n, overMs);
                System.out.printf("# %d waiting instances due over %d h written and analyzed in %.1f s%n", n,
                        overMs / 3_600_000, (System.nanoTime() - loadStart) / 1e9);
                List<long[]> configs = new ArrayList<>();
                configs.add(new long[] {TickwheelServer.DEFAULT_ARM_HORIZON.toMillis()});
                if (n <= armAllUpTo) {
                    configs.add(new long[] {overMs + Duration.ofHours(1).toMillis()});
                }
                for (int run = 1; run <= runs; run++) {
                    for (long[] config : configs) {
                        String[] result = runChild(db.jdbcUrl(), config[0]);
                        String name = config[0] == TickwheelServer.DEFAULT_ARM_HORIZON.toMillis()
                                ? "horizon " + config[0] / 60_000 + " min" : "arm all (before)";
                        System.out.printf("%-10d %-22s %5d %10s %10s %12s%n", n, name, run, result[0], result[1],
                                result[2]);
                    }
                }
            }
        }
    }

    /** The schema by Flyway, one on-demand job, and {@code n} waiting instances due evenly over {@code overMs}. */
    private static void load(String url, long n, long overMs) throws SQLException {
        JdbcStores.open(url).close();
        // Ids of now (a Snowflake id's high bits are its creation millisecond): today's partition of the history.
        long firstId = SnowflakeIdGenerator.lowestIdAt(Instant.now());
        long firstDue = System.currentTimeMillis() + Duration.ofSeconds(10).toMillis();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO tw_job (id, name, schedule_type, target_type, target_value, enabled,"
                    + " misfire_policy, retry_max_attempts, retry_backoff_ms, next_trigger_time_ms, created_at_ms,"
                    + " updated_at_ms, version, shard) VALUES (" + JOB_ID + ", 'reminders', 'API', 'HANDLER', 'noop',"
                    + " TRUE, 'FIRE_ONCE_NOW', 1, 0, NULL, 0, 0, 0, 0)");
            s.execute("INSERT INTO tw_instance (id, job_id, status, expected_trigger_time_ms, attempt,"
                    + " created_at_ms, updated_at_ms, shard) SELECT " + firstId + " + i, " + JOB_ID
                    + ", 'WAITING', " + firstDue + " + i * " + overMs + " / " + n + ", 0, 0, 0, i % 256"
                    + " FROM generate_series(0::bigint, " + (n - 1) + ") i");
            s.execute("ANALYZE tw_instance");
        }
    }

    private static String[] runChild(String url, long horizonMs) throws IOException, InterruptedException {
        String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(javaBin, "-Xms" + CHILD_HEAP, "-Xmx" + CHILD_HEAP,
                "-XX:+UseG1GC", "-cp", System.getProperty("java.class.path"), HorizonBenchmark.class.getName(),
                "--child-url", url, "--child-horizon-ms", Long.toString(horizonMs));
        pb.redirectErrorStream(true);
        Process process = pb.start();
        String result = null;
        List<String> output = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.add(line);
                if (line.startsWith(RESULT)) {
                    result = line.substring(RESULT.length());
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || result == null) {
            throw new IllegalStateException("the server JVM exited with " + exit + ":\n"
                    + String.join("\n", output.subList(Math.max(0, output.size() - 40), output.size())));
        }
        return result.split(" ");
    }

    /** In the child JVM: start a server on the store, report start time, armed instances and heap. */
    private static void child(String url, long horizonMs) throws Exception {
        long baseline = usedHeapAfterGc();
        long startNanos = System.nanoTime();
        try (TickwheelServer server = TickwheelServer.builder().jdbcUrl(url).armHorizon(Duration.ofMillis(horizonMs))
                .handler("noop", ctx -> { }).build().start()) {
            long startMs = (System.nanoTime() - startNanos) / 1_000_000;
            int armed = server.pendingTimers();
            long heap = usedHeapAfterGc() - baseline;
            System.out.println(RESULT + startMs + " " + armed + " " + String.format("%.1f", heap / 1048576.0));
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200); // a benchmark, not a test: lets the concurrent collector finish its cycle
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
