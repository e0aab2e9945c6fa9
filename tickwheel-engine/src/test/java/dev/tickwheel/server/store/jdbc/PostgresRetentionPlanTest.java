package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retention purge's statements ({@link FinishedInstancePurge}) on a table of 200 000 instances: each batch's read
 * walks an index range (the primary key, or (job_id, id) for a job's pass) and its delete finds its rows by primary key;
 * none scans the table, nor the (status, id) index, whose finished part is nearly all of it (the delete's plan did,
 * with stale statistics, while it re-checked the status as {@code IN (finished)}).
 *
 * <p>Checked in the state that misleads planners (statistics taken while the table was empty, then a bulk load,
 * autovacuum off) and with fresh statistics, each both as the first executions plan it (the values bound) and as a
 * prepared statement reused many times may be planned (generic, {@code plan_cache_mode = force_generic_plan}): the
 * purge runs the same statements every minute, so pgjdbc soon prepares them on the server.
 */
class PostgresRetentionPlanTest {

    private static final int ROWS = 200_000;
    /** Row i was created at START_MS + i ms: its id is that millisecond's lowest (node 0, sequence 0). */
    private static final long START_MS = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();
    private static final long START_OFFSET_MS = START_MS - SnowflakeIdGenerator.EPOCH.toEpochMilli();
    private static final int JOBS = 2_000;
    private static final int LIMIT = 500;

    private PostgresTestDatabase database;

    @BeforeEach
    void load() throws SQLException {
        database = PostgresTestDatabase.createSchema();
        JdbcStores.open(database.jdbcUrl()).close(); // the schema, by Flyway
        try (Connection c = DriverManager.getConnection(database.jdbcUrl()); Statement s = c.createStatement()) {
            // Rows over 200 s from START_MS: one day partition (the history is partitioned on PostgreSQL).
            TestPartitions.createDays(c, Instant.ofEpochMilli(START_MS), Instant.ofEpochMilli(START_MS + ROWS));
            TestPartitions.setAutovacuum(c, "tw_instance", false);
            TestPartitions.setAutovacuum(c, "tw_instance_slot", false);
            s.execute("ALTER TABLE tw_run_key SET (autovacuum_enabled = false)");
            s.execute("ANALYZE tw_instance");
            s.execute("ANALYZE tw_instance_slot");
            s.execute("ANALYZE tw_run_key");
            // Mostly finished history, every 50th row still waiting; job i % 2000 + 1, in that job's shard.
            s.execute("INSERT INTO tw_instance (id, job_id, status, expected_trigger_time_ms, attempt, created_at_ms,"
                    + " updated_at_ms, shard) SELECT (" + START_OFFSET_MS + " + i) << 22, i % " + JOBS + " + 1,"
                    + " CASE WHEN i % 50 = 0 THEN 'WAITING' WHEN i % 7 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END, "
                    + START_MS + " + i, 1, " + START_MS + " + i, " + START_MS + " + i + 1000, (i % " + JOBS
                    + " + 1) % 256 FROM generate_series(1, " + ROWS + ") i");
            // Their keys, where the partitioned history keeps them: every row's slot, every tenth a caller's key.
            s.execute("INSERT INTO tw_instance_slot (job_id, scheduled_trigger_time_ms, instance_id)"
                    + " SELECT job_id, expected_trigger_time_ms, id FROM tw_instance");
            s.execute("INSERT INTO tw_run_key (job_id, run_key, instance_id)"
                    + " SELECT job_id, 'key-' || id, id FROM tw_instance WHERE expected_trigger_time_ms % 10 = 0");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        database.dropSchema();
    }

    @Test
    void defaultPassWindow_walksThePrimaryKey() throws SQLException {
        assertUsesIndex(FinishedInstancePurge.SELECT_WINDOW, "tw_instance_pkey", -1L, idBound(), LIMIT);
    }

    @Test
    void jobPassWindow_walksTheJobIndex() throws SQLException {
        assertUsesIndex(FinishedInstancePurge.SELECT_WINDOW_OF_JOB, "tw_instance_job_idx", 7L, -1L, idBound(), LIMIT);
    }

    @Test
    void deleteOfTheChosenRows_findsThemByPrimaryKey() throws SQLException {
        Long[] ids = LongStream.rangeClosed(1, LIMIT).map(i -> (START_OFFSET_MS + i * 3) << 22).boxed()
                .toArray(Long[]::new);
        assertUsesIndex(FinishedInstancePurge.DELETE_FINISHED, "tw_instance_pkey", ids, ids[0], ids[LIMIT - 1],
                START_MS + ROWS / 2);
    }

    @Test
    void deleteOfTheDeletedRowsSlots_findsThemByTheSlotKey() throws SQLException {
        List<Long> rows = LongStream.rangeClosed(1, LIMIT).map(i -> i * 3).boxed().toList();
        assertUsesIndex(FinishedInstancePurge.DELETE_SLOTS, "tw_instance_slot_pk",
                rows.stream().map(i -> i % JOBS + 1).toArray(Long[]::new),
                rows.stream().map(i -> START_MS + i).toArray(Long[]::new),
                rows.stream().map(i -> (START_OFFSET_MS + i) << 22).toArray(Long[]::new));
    }

    @Test
    void deleteOfTheDeletedRowsRunKeys_findsThemByTheKey() throws SQLException {
        List<Long> rows = LongStream.rangeClosed(1, LIMIT).map(i -> i * 10).boxed().toList();
        assertUsesIndex(FinishedInstancePurge.DELETE_RUN_KEYS, "tw_run_key_pk",
                rows.stream().map(i -> i % JOBS + 1).toArray(Long[]::new),
                rows.stream().map(i -> "key-" + ((START_OFFSET_MS + i) << 22)).toArray(String[]::new),
                rows.stream().map(i -> (START_OFFSET_MS + i) << 22).toArray(Long[]::new));
    }

    /** Half the rows were created before the bound. */
    private static long idBound() {
        return SnowflakeIdGenerator.lowestIdAt(Instant.ofEpochMilli(START_MS + ROWS / 2));
    }

    private void assertUsesIndex(String statement, String index, Object... params) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            for (boolean freshStatistics : List.of(false, true)) {
                if (freshStatistics) {
                    try (Statement s = c.createStatement()) {
                        s.execute("ANALYZE tw_instance");
                        s.execute("ANALYZE tw_instance_slot");
                        s.execute("ANALYZE tw_run_key");
                    }
                }
                c.setAutoCommit(false);
                new PostgresDialect().preferIndexOrder(c); // as the store does for the batch's transaction
                new PostgresDialect().preferIndexLookups(c); // as it does before the deletes of the keys
                String state = freshStatistics ? "fresh statistics" : "statistics of the empty table";
                Set<String> wanted = TestPartitions.indexAndPartitions(c, index);
                Set<String> statusIndex = TestPartitions.indexAndPartitions(c, "tw_instance_status_idx");
                assertIndexPlan(explainBound(c, statement, params), wanted, statusIndex, state + ", values bound");
                assertIndexPlan(explainGeneric(c, statement, params), wanted, statusIndex, state + ", generic plan");
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    /**
     * On the partitioned history the plan scans each day's partition with that partition's index (an Append of index
     * scans): {@code index} stands for the index and its partitions.
     */
    private static void assertIndexPlan(String plan, Set<String> index, Set<String> statusIndex, String what) {
        // The tables that hold the rows: the day's partitions and the run keys. The empty partitions of the days the
        // store made ahead at open (analyzed empty, like everything here) may get a sequential scan: it reads nothing.
        PartitionDay day = PartitionDay.ofMillis(START_MS);
        for (String table : List.of(day.partitionOf("tw_instance"), day.partitionOf("tw_instance_slot"), "tw_run_key")) {
            assertFalse(plan.contains("Seq Scan on " + table + " "), what + ":\n" + plan);
        }
        assertFalse(statusIndex.stream().anyMatch(name -> plan.contains(name + " ")),
                "every finished row's entry read, " + what + ":\n" + plan);
        assertTrue(index.stream().anyMatch(name -> plan.contains(name + " ")), what + ", expected " + index + ":\n"
                + plan);
    }

    private static String explainBound(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + statement)) {
            bind(c, ps, params);
            return readPlan(ps);
        }
    }

    /** The plan PostgreSQL would reuse for every execution of the statement prepared on the server. */
    private static String explainGeneric(Connection c, String statement, Object... params) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : statement.toCharArray()) {
            numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
            s.execute("PREPARE purge_plan AS " + numbered);
        }
        String args = java.util.Arrays.stream(params).map(p -> p instanceof Object[] values
                ? "'{" + java.util.Arrays.stream(values).map(String::valueOf).collect(Collectors.joining(",")) + "}'"
                : String.valueOf(p)).collect(Collectors.joining(", "));
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN EXECUTE purge_plan(" + args + ")")) {
            return readPlan(ps);
        } finally {
            try (Statement s = c.createStatement()) {
                s.execute("DEALLOCATE purge_plan");
            }
        }
    }

    private static void bind(Connection c, PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            if (params[i] instanceof Long[] ids) {
                ps.setArray(i + 1, c.createArrayOf("bigint", ids));
            } else if (params[i] instanceof String[] keys) {
                ps.setArray(i + 1, c.createArrayOf("varchar", keys));
            } else if (params[i] instanceof Integer value) {
                ps.setInt(i + 1, value);
            } else {
                ps.setLong(i + 1, (Long) params[i]);
            }
        }
    }

    private static String readPlan(PreparedStatement ps) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
