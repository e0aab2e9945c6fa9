package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The keyset-paged scans a member runs over its shards (the loader's due jobs, recovery's and the sweep's waiting
 * instances) read their index in order on H2 and stop after a page. H2 2.3 walks a secondary index in order only when
 * the {@code ORDER BY} starts with the index's first column, even when the {@code WHERE} binds that column to a
 * constant; otherwise it reads every row of the range and sorts them on every page, so that a loader pass over 100 000
 * due jobs read about 5 million rows (most of the loader's time in the end-to-end benchmark). Each query is run with
 * {@code EXPLAIN ANALYZE} on 20 000 due rows: the plan must say {@code index sorted} and the scan count must be about
 * one page, not the range.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2PagedScanPlanTest {

    private static final int ROWS = 20_000;
    private static final int PAGE = 500;
    private static final long BASE_MS = 1_800_000_000_000L;
    private static final Pattern SCAN_COUNT = Pattern.compile("scanCount: (\\d+)");

    private JdbcStores stores;

    @BeforeAll
    void load() throws SQLException {
        stores = JdbcStores.open("jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", ""));
        try (Connection c = stores.dataSource().getConnection(); Statement s = c.createStatement()) {
            PlanTestRows.insert(s, BASE_MS, "(SELECT x AS i FROM SYSTEM_RANGE(1, " + ROWS + "))");
        }
    }

    @AfterAll
    void close() {
        if (stores != null) {
            stores.close();
        }
    }

    @Test
    void dueJobsFirstPage_readsOnePageOfTheDueIndex() throws SQLException {
        String plan = explain(JobSql.SELECT_DUE_FIRST, ps -> {
            ps.setLong(1, BASE_MS + ROWS);
            ps.setArray(2, ps.getConnection().createArrayOf("integer", PlanTestRows.allShards()));
            ps.setInt(3, PAGE);
        });
        assertReadsOnePage(plan, "TW_JOB_DUE_IDX");
    }

    @Test
    void dueJobsLaterPage_readsOnePageOfTheDueIndex() throws SQLException {
        String plan = explain(JobSql.SELECT_DUE_AFTER, ps -> PlanTestRows.bindDueJobsAfter(ps, BASE_MS, ROWS, PAGE));
        assertReadsOnePage(plan, "TW_JOB_DUE_IDX");
    }

    @Test
    void waitingInstancesPage_fromTheStartOrTheMiddle_readsOnePageOfTheWaitingDueIndex() throws SQLException {
        for (long cursorMs : new long[] {Long.MIN_VALUE, BASE_MS + 500}) {
            String plan = explain(InstanceSql.SELECT_WAITING_DUE, ps -> {
                ps.setArray(1, ps.getConnection().createArrayOf("integer", PlanTestRows.allShards()));
                ps.setLong(2, cursorMs);
                ps.setLong(3, cursorMs);
                ps.setLong(4, 1_000);
                ps.setLong(5, BASE_MS + ROWS);
                ps.setInt(6, PAGE);
            });
            assertReadsOnePage(plan, WaitingDueIndex.INDEX.toUpperCase(java.util.Locale.ROOT));
        }
    }


    private String explain(String query, PlanTestRows.Binder binder) throws SQLException {
        try (Connection c = stores.dataSource().getConnection()) {
            String plan = PlanTestRows.explain(c, "EXPLAIN ANALYZE " + query, binder);
            assertTrue(!plan.isEmpty(), "no plan row");
            return plan;
        }
    }

    private static void assertReadsOnePage(String plan, String index) {
        assertTrue(plan.contains("/* index sorted */"), "reads in index order:\n" + plan);
        assertTrue(plan.contains("." + index), "uses " + index + ":\n" + plan);
        Matcher scanned = SCAN_COUNT.matcher(plan);
        assertTrue(scanned.find(), "the plan has a scan count:\n" + plan);
        // The walk stops after the page; the shard filter (all shards here) drops nothing.
        assertTrue(Long.parseLong(scanned.group(1)) <= PAGE + 1, "reads one page of " + PAGE + ", not the "
                + ROWS + " due rows:\n" + plan);
    }
}
