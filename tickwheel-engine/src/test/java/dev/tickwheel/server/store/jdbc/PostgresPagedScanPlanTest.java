package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.InstanceStatus;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The keyset-paged scans a member runs over its shards (the loader's due jobs, recovery's and the sweep's waiting
 * instances) must walk their index in order, whatever the planner's statistics say: a plan that collects the whole
 * range and sorts it reads every remaining row on every page, and a pass over 100 000 rows then costs 200 pages x 40
 * ms instead of 200 x 1 ms (what made the loader three times slower in the one-node cluster benchmark).
 *
 * <p>The state that misled the planner is made on purpose: tables analyzed while empty, then bulk-loaded, autovacuum
 * off for them so that it cannot analyze them mid-test. Each query is explained with the values a page binds; the
 * first check shows the state does mislead the planner without {@link SqlDialect#preferIndexOrder} (so the test can
 * fail), the second that with it the plan has no sort. The batched claim, which selects by id, must probe the
 * primary key per id in the same state rather than read every waiting row.
 */
class PostgresPagedScanPlanTest {

    private static final int ROWS = 100_000;
    private static final long BASE_MS = 1_800_000_000_000L;

    private PostgresTestDatabase database;

    @BeforeEach
    void load() throws SQLException {
        database = PostgresTestDatabase.createSchema();
        JdbcStores.open(database.jdbcUrl()).close(); // the schema, by Flyway
        try (Connection c = DriverManager.getConnection(database.jdbcUrl()); Statement s = c.createStatement()) {
            // Ids 1..ROWS were minted in the id epoch's first millisecond: one day partition holds them all.
            TestPartitions.createDays(c, SnowflakeIdGenerator.EPOCH, SnowflakeIdGenerator.EPOCH);
            s.execute("ALTER TABLE tw_job SET (autovacuum_enabled = false)");
            TestPartitions.setAutovacuum(c, "tw_instance", false);
            s.execute("ANALYZE tw_job");
            s.execute("ANALYZE tw_instance");
            PlanTestRows.insert(s, BASE_MS, "generate_series(1, " + ROWS + ") i");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        database.dropSchema();
    }

    @Test
    void dueJobsPage_walksTheDueIndexInOrder() throws SQLException {
        assertPlans(JobSql.SELECT_DUE_AFTER, ps -> PlanTestRows.bindDueJobsAfter(ps, BASE_MS, ROWS, 500));
    }

    /**
     * A page of a walk over the waiting instances in due order (the horizon pass, recovery, the sweep): a range of
     * the partial index of waiting rows by due time, in order, with no sort, whether the walk starts at the
     * beginning or in the middle. The misled planner is not asserted here: with an index whose order is the query's,
     * it walks it anyway; {@code preferIndexOrder} keeps it so.
     */
    @Test
    void waitingInstancesPage_walksTheWaitingDueIndexInOrder() throws SQLException {
        for (long cursorMs : new long[] {Long.MIN_VALUE, BASE_MS + 5_000}) {
            try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
                c.setAutoCommit(false);
                new PostgresDialect().preferIndexOrder(c);
                String plan = explain(c, InstanceSql.SELECT_WAITING_DUE, ps -> {
                    ps.setArray(1, ps.getConnection().createArrayOf("integer", PlanTestRows.allShards()));
                    ps.setLong(2, cursorMs);
                    ps.setLong(3, cursorMs);
                    ps.setLong(4, 1_000);
                    ps.setLong(5, BASE_MS + ROWS);
                    ps.setInt(6, 1_000);
                });
                // No sort node ("Merge Append" over the day partitions names its "Sort Key", which is no sort), no
                // sequential scan, and every scan on the index of waiting rows by due time (a partition's copy of
                // it is named after its columns).
                assertFalse(java.util.regex.Pattern.compile("(^|->)\\s*(Incremental )?Sort\\s+\\(",
                        java.util.regex.Pattern.MULTILINE).matcher(plan).find(), plan);
                assertFalse(plan.contains("Seq Scan"), plan);
                assertTrue(plan.contains("Index Scan using " + WaitingDueIndex.INDEX)
                        || plan.contains("expected_trigger_time_ms_id_idx"), plan);
                assertFalse(plan.contains("Index Scan using tw_instance_status_idx")
                        || plan.contains("status_id_idx"), plan);
                c.rollback();
            }
        }
    }

    /**
     * The batched claim finds each row by its primary key, whatever the statistics: the misled planner, given the
     * plain {@code status = 'WAITING'}, reads every waiting row through the partial index of waiting rows (or the
     * status index) once per claim and joins it with the ids (checked first, so that the test can fail); with
     * {@link InstanceSql#STATUS_BY_ROW} no index matches the status, and each id is one probe of the primary key.
     */
    @Test
    void batchedClaim_probesThePrimaryKeyPerId() throws SQLException {
        String claim = new InstanceSql(new PostgresDialect()).claimAllReturningRows;
        String plain = claim.replace(InstanceSql.STATUS_BY_ROW + " = ?", "status = ?");
        if (plain.equals(claim)) {
            throw new IllegalStateException("the claim no longer compares " + InstanceSql.STATUS_BY_ROW + ": " + claim);
        }
        Fence fence = new Fence(1, new DatabaseClock(new PostgresDialect(), null));
        PlanTestRows.Binder claimOf500 = ps -> TransitionBinding.claim(ps, BASE_MS,
                TransitionBinding.ids(ps.getConnection().createArrayOf("bigint", LongStream.rangeClosed(1_001, 1_500)
                        .boxed().toArray(Long[]::new))),
                TransitionBinding.ids(ps.getConnection().createArrayOf("bigint", LongStream.rangeClosed(1_001, 1_500)
                        .map(i -> BASE_MS + i).boxed().toArray(Long[]::new))), fence);
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            String misled = explain(c, plain, claimOf500);
            assertTrue(misled.contains("Materialize") || misled.contains("Hash"),
                    "the bulk-loaded state misleads the planner into reading every waiting row:\n" + misled);
            String plan = explain(c, claim, claimOf500);
            assertTrue(plan.contains("_pkey on tw_instance") && plan.contains("Index Cond: (id = c.claim_id)"), plan);
            assertFalse(plan.contains("Materialize") || plan.contains("Hash") || plan.contains("Bitmap"), plan);
            // Sequential scans only of the empty partitions of the days ahead (cost 0: no page to read).
            assertTrue(plan.lines().filter(line -> line.contains("Seq Scan"))
                    .allMatch(line -> line.contains("cost=0.00..0.00")), plan);
        }
    }

    private void assertPlans(String query, PlanTestRows.Binder binder) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            c.setAutoCommit(false);
            String misled = explain(c, query, binder);
            assertTrue(misled.contains("Sort"), "the bulk-loaded state misleads the planner into sorting:\n" + misled);
            new PostgresDialect().preferIndexOrder(c);
            String plan = explain(c, query, binder);
            assertFalse(plan.contains("Sort"), plan);
            assertTrue(plan.contains("Index Scan"), plan);
            c.rollback();
        }
    }

    private static String explain(Connection c, String query, PlanTestRows.Binder binder) throws SQLException {
        return PlanTestRows.explain(c, "EXPLAIN " + query, binder);
    }
}
