package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.InstanceStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The history queries on H2 (the default store) read their index in order and stop after a page: H2's plan says
 * {@code index sorted} when it does, and otherwise collects every matching row and sorts them (for one status of a
 * million instances, 40 ms a page instead of 0.1 ms). H2 2.3 walks a secondary index backwards only when the
 * {@code ORDER BY} names all its columns, which is why {@link InstanceSql#selectLatest} orders by {@code status DESC,
 * id DESC} or {@code job_id DESC, id DESC}; this test fails if a statement loses that.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2HistoryPlanTest {

    private static final LargeHistory HISTORY = LargeHistory.of(100, 20_000);

    private JdbcStores stores;

    @BeforeAll
    void load() throws SQLException {
        stores = JdbcStores.open("jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", ""));
        try (Connection c = stores.dataSource().getConnection()) {
            HISTORY.load(c);
        }
    }

    @AfterAll
    void close() {
        if (stores != null) {
            stores.close();
        }
    }

    @Test
    void instancePages_everyFilterCombination_readTheirIndexInOrder() throws SQLException {
        long jobId = HISTORY.jobId(7);
        long middle = HISTORY.instanceId(HISTORY.instances() / 2);
        assertSorted(latest(null, null, 0, Long.MAX_VALUE), "PRIMARY_KEY");
        assertSorted(latest(null, null, 0, middle), "PRIMARY_KEY");
        assertSorted(latest(null, InstanceStatus.SUCCEEDED, 0, middle), "TW_INSTANCE_STATUS_IDX");
        assertSorted(latest(null, InstanceStatus.FAILED, HISTORY.instanceId(100), middle), "TW_INSTANCE_STATUS_IDX");
        assertSorted(latest(jobId, null, 0, Long.MAX_VALUE), "TW_INSTANCE_JOB_IDX");
        assertSorted(latest(jobId, InstanceStatus.SUCCEEDED, HISTORY.instanceId(100), middle), "TW_INSTANCE_JOB_IDX");
    }

    @Test
    void jobPages_withAndWithoutNameAndCursor_readTheNameIndexInOrder() throws SQLException {
        for (boolean filtered : new boolean[] {false, true}) {
            for (boolean afterCursor : new boolean[] {false, true}) {
                String plan = explain(JobSql.selectByName(filtered, afterCursor), ps -> {
                    int i = 1;
                    if (filtered) {
                        ps.setString(i++, "%sync%");
                    }
                    if (afterCursor) {
                        ps.setString(i++, "mail");
                        ps.setString(i++, "mail");
                        ps.setString(i++, "mail");
                        ps.setLong(i++, 0);
                    }
                    ps.setInt(i, 101);
                });
                assertSorted(plan, "TW_JOB_NAME_IDX");
            }
        }
    }


    private String latest(Long jobId, InstanceStatus status, long minId, long maxId) throws SQLException {
        return explain(InstanceSql.selectLatest(jobId != null, status != null), ps -> {
            int i = 1;
            if (jobId != null) {
                ps.setLong(i++, jobId);
            }
            if (status != null) {
                ps.setString(i++, status.name());
            }
            ps.setLong(i++, minId);
            ps.setLong(i++, maxId);
            ps.setInt(i, 101);
        });
    }

    private String explain(String query, PlanTestRows.Binder binder) throws SQLException {
        try (Connection c = stores.dataSource().getConnection()) {
            String plan = PlanTestRows.explain(c, "EXPLAIN " + query, binder);
            assertTrue(!plan.isEmpty(), "no plan row");
            return plan;
        }
    }

    private static void assertSorted(String plan, String index) {
        assertTrue(plan.contains("/* index sorted */"), "reads in index order:\n" + plan);
        assertTrue(plan.toUpperCase(Locale.ROOT).contains("." + index), "uses " + index + ":\n" + plan);
    }
}
