package dev.tickwheel.bench;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Retention on the partitioned PostgreSQL history: the time and the WAL it takes to remove one day of
 * {@code --instances} finished instances (1 000 000 by default) by dropping the day's partitions
 * ({@link InstanceStore#maintainPartitions}) against deleting its rows with the batched purge
 * ({@link InstanceStore#purgeFinished}, 500 rows a batch, one batch after another), and the {@code VACUUM} the deletes
 * leave behind. Each way runs on a fresh schema loaded with the same day.
 *
 * <pre>
 * The day, written with SQL in one transaction (the store makes its partitions first):
 *   1 000 jobs; instance x created at day + x * 86 400 000 / N ms, job x % 1000 + 1, SUCCEEDED a second later
 *   90 %  scheduled: a slot 30 s after creation in tw_instance_slot
 *   10 %  on-demand, half of them with a caller's key in tw_run_key
 *    2 %  with one retried attempt in tw_attempt
 * Then VACUUM ANALYZE and CHECKPOINT, so that the measured step starts, as it would days later, from pages written
 * out long ago (its first change of each page writes the whole page to the WAL).
 * Measured: wall time of the store call(s), and pg_wal_lsn_diff(pg_current_wal_lsn()) around them. The WAL is the
 * server's, so anything else running on it in the meantime counts too: run it on a quiet server.
 * </pre>
 *
 * <p>Run (from the repository root):
 * <pre>
 * mvn -B -q -pl dispatcher-bench -am package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.RetentionDropBenchmark --runs 3
 * </pre>
 * Options: {@code --instances 1000000}, {@code --runs 1}, {@code --batch-size 500},
 * {@code --pg-url jdbc:postgresql://127.0.0.1:5432/test?user=postgres}.
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class RetentionDropBenchmark {

    /** The day removed: any past day; the store's clock is set a week after it. */
    private static final Instant DAY = Instant.parse("2030-01-10T00:00:00Z");
    private static final Instant NOW = DAY.plus(Duration.ofDays(8));
    private static final int JOBS = 1_000;
    private static final long DAY_MS = 86_400_000L;

    private final int instances;
    private final int batchSize;
    private final String pgUrl;

    private RetentionDropBenchmark(int instances, int batchSize, String pgUrl) {
        this.instances = instances;
        this.batchSize = batchSize;
        this.pgUrl = pgUrl;
    }

    public static void main(String[] args) throws Exception {
        CommandLine line = CommandLine.parse(args, Set.of("--instances", "--runs", "--batch-size", "--pg-url"));
        RetentionDropBenchmark bench = new RetentionDropBenchmark(line.integer("--instances", 1_000_000),
                line.integer("--batch-size", 500), line.text("--pg-url", BenchDatabase.DEFAULT_PG_URL));
        int runs = line.integer("--runs", 1);
        List<String> rows = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            System.out.printf("run %d of %d%n", run, runs);
            rows.add(bench.measure("drop the day's partitions", true));
            rows.add(bench.measure("batched purge (" + bench.batchSize + " rows a batch)", false));
        }
        System.out.println();
        System.out.println(Machine.describe(List.of()));
        System.out.println("load average: " + Machine.loadAverage());
        System.out.println();
        System.out.printf("| removing one day of %,d instances | rows removed | time | WAL | then VACUUM: time, WAL |%n",
                bench.instances);
        System.out.println("| --- | ---: | ---: | ---: | ---: |");
        rows.forEach(System.out::println);
    }

    /** One way on a fresh schema: load the day, then remove it and measure. */
    private String measure(String way, boolean drop) throws SQLException {
        try (BenchDatabase database = BenchDatabase.postgres(pgUrl);
                JdbcStores stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl())
                        .poolName("tickwheel-retention-bench").maxPoolSize(2)
                        .clock(Clock.fixed(NOW, ZoneOffset.UTC)).build())) {
            InstanceStore store = stores.instances();
            // A day after the day: its last rows finished 31 s into the next day, and must be past the cutoff too.
            Instant cutoff = DAY.plus(Duration.ofDays(2));
            // The day's partitions (and the two after it), made by the store; nothing is past this cutoff yet.
            store.maintainPartitions(DAY, DAY.minus(Duration.ofDays(1)), Set.of());
            long loadStart = System.nanoTime();
            load(database.jdbcUrl());
            System.out.printf("  %s: loaded %,d instances in %.1f s%n", database, instances,
                    (System.nanoTime() - loadStart) / 1e9);
            settle(database.jdbcUrl());

            String before = walLsn(database.jdbcUrl());
            long start = System.nanoTime();
            long removed = 0;
            if (drop) {
                removed = store.maintainPartitions(DAY, cutoff, Set.of()); // now = DAY: no partition to create
            } else {
                PurgeScope everything = PurgeScope.allJobsExcept(Set.of(), null);
                long cursor = -1;
                PurgeBatch batch;
                do {
                    batch = store.purgeFinished(everything, cutoff, cursor, batchSize);
                    removed += batch.deleted();
                    cursor = batch.lastId();
                } while (!batch.exhausted());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long walBytes = walBytesSince(database.jdbcUrl(), before);

            String vacuumBefore = walLsn(database.jdbcUrl());
            long vacuumStart = System.nanoTime();
            vacuum(database.jdbcUrl());
            double vacuumSeconds = (System.nanoTime() - vacuumStart) / 1e9;
            long vacuumWal = walBytesSince(database.jdbcUrl(), vacuumBefore);
            String row = String.format(Locale.ROOT, "| %s | %,d | %.2f s | %s | %.2f s, %s |", way, removed, seconds,
                    mib(walBytes), vacuumSeconds, mib(vacuumWal));
            System.out.println("  " + row);
            return row;
        }
    }

    private void load(String jdbcUrl) throws SQLException {
        long dayMs = DAY.toEpochMilli();
        long epochMs = SnowflakeIdGenerator.EPOCH.toEpochMilli();
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO tw_job (id, name, schedule_type,"
                    + " schedule_period_ms, schedule_at_ms, target_type, target_value, enabled, misfire_policy,"
                    + " retry_max_attempts, retry_backoff_ms, next_trigger_time_ms, created_at_ms, updated_at_ms,"
                    + " version, shard) VALUES (?, ?, 'FIXED_RATE', 60000, ?, 'HANDLER', 'noop', TRUE, 'FIRE_ONCE_NOW',"
                    + " 1, 1000, NULL, ?, ?, 0, ?)")) {
                for (long j = 1; j <= JOBS; j++) {
                    ps.setLong(1, j);
                    ps.setString(2, "job-" + j);
                    ps.setLong(3, dayMs);
                    ps.setLong(4, dayMs);
                    ps.setLong(5, dayMs);
                    ps.setInt(6, Shards.of(j, Shards.DEFAULT_COUNT));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            String created = "(" + dayMs + " + x * " + DAY_MS + " / " + instances + ")";
            String id = "((" + created + " - " + epochMs + ") * 4194304 + x % 4096)";
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO tw_instance (id, job_id, status, scheduled_trigger_time_ms,"
                        + " expected_trigger_time_ms, actual_trigger_time_ms, attempt, created_at_ms, updated_at_ms,"
                        + " shard, run_key, claim_node, claim_epoch)"
                        + " SELECT " + id + ", j.id, 'SUCCEEDED',"
                        + " CASE WHEN x % 10 = 0 THEN NULL ELSE " + created + " + 30000 END, " + created + " + 30000, "
                        + created + " + 30005, CASE WHEN x % 50 = 3 THEN 2 ELSE 1 END, " + created + ", " + created
                        + " + 31000, j.shard, CASE WHEN x % 20 = 0 THEN 'order-' || x END, 0, 1"
                        + " FROM generate_series(CAST(0 AS BIGINT), " + (instances - 1) + ") AS x"
                        + " JOIN tw_job j ON j.id = x % " + JOBS + " + 1");
                s.executeUpdate("INSERT INTO tw_instance_slot (job_id, scheduled_trigger_time_ms, instance_id)"
                        + " SELECT job_id, scheduled_trigger_time_ms, id FROM tw_instance"
                        + " WHERE scheduled_trigger_time_ms IS NOT NULL");
                s.executeUpdate("INSERT INTO tw_run_key (job_id, run_key, instance_id)"
                        + " SELECT job_id, run_key, id FROM tw_instance WHERE run_key IS NOT NULL");
                s.executeUpdate("INSERT INTO tw_attempt (instance_id, attempt, started_at_ms, ended_at_ms,"
                        + " expected_trigger_time_ms, error, claim_node, claim_epoch)"
                        + " SELECT id, 1, actual_trigger_time_ms - 2000, actual_trigger_time_ms - 1900,"
                        + " expected_trigger_time_ms, 'HTTP 503', 0, 1 FROM tw_instance WHERE attempt = 2");
            }
            c.commit();
        }
    }

    /** Fresh statistics, no dead rows, and every page on disk before the measured step. */
    private static void settle(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            for (String table : List.of("tw_instance", "tw_attempt", "tw_instance_slot", "tw_run_key")) {
                s.execute("VACUUM ANALYZE " + table);
            }
            s.execute("CHECKPOINT");
        }
    }

    private static void vacuum(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            for (String table : List.of("tw_instance", "tw_attempt", "tw_instance_slot", "tw_run_key")) {
                s.execute("VACUUM " + table);
            }
        }
    }

    private static String walLsn(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long walBytesSince(String jdbcUrl, String lsn) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
                PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(),"
                        + " CAST(? AS pg_lsn))::bigint")) {
            ps.setString(1, lsn);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String mib(long bytes) {
        return bytes < 1024 * 1024 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0)
                : String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }
}
