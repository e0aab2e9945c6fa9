package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The rows the paged-scan plan tests explain their queries over ({@code PostgresPagedScanPlanTest},
 * {@code H2PagedScanPlanTest}): ids 1..n, an enabled one-shot job each, due {@code baseMs + id / 10}, in shard
 * {@code id % 256}, with one WAITING instance of the same id and due time; and the reading of a plan, which the H2
 * history plan test shares.
 *
 * <p>Stateless.
 */
final class PlanTestRows {

    private PlanTestRows() {
    }

    /** Binds a query's parameters. */
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /**
     * Runs {@code explainQuery} (the query behind the database's {@code EXPLAIN} keywords) and returns its rows, one
     * line each: PostgreSQL gives a plan node per row, H2 the whole plan in one.
     */
    static String explain(Connection c, String explainQuery, Binder binder) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(explainQuery)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        return plan.toString();
    }

    /**
     * @param series a {@code FROM} item yielding the ids 1..n as column {@code i} (the databases spell it differently)
     */
    static void insert(Statement s, long baseMs, String series) throws SQLException {
        s.execute("INSERT INTO tw_job (id, name, schedule_type, target_type, target_value, enabled, misfire_policy,"
                + " retry_max_attempts, retry_backoff_ms, next_trigger_time_ms, created_at_ms, updated_at_ms,"
                + " version, shard) SELECT i, 'job-' || i, 'ONE_SHOT', 'HANDLER', 'noop', TRUE, 'FIRE_NOW', 1, 0, "
                + baseMs + " + i / 10, 0, 0, 0, MOD(i, 256) FROM " + series);
        s.execute("INSERT INTO tw_instance (id, job_id, status, expected_trigger_time_ms, attempt,"
                + " created_at_ms, updated_at_ms, shard) SELECT i, i, 'WAITING', " + baseMs
                + " + i / 10, 0, 0, 0, MOD(i, 256) FROM " + series);
    }

    /**
     * Binds {@link JobSql#SELECT_DUE_AFTER} for a page in the middle of a pass over these rows: due until the last,
     * after the cursor (due {@code baseMs + 10}, id 100), every shard, {@code limit} rows.
     */
    static void bindDueJobsAfter(PreparedStatement ps, long baseMs, int rows, int limit) throws SQLException {
        long cursorMs = baseMs + 10;
        ps.setLong(1, baseMs + rows);
        ps.setLong(2, cursorMs);
        ps.setLong(3, cursorMs);
        ps.setLong(4, cursorMs);
        ps.setLong(5, 100);
        ps.setArray(6, ps.getConnection().createArrayOf("integer", allShards()));
        ps.setInt(7, limit);
    }

    /** Every shard of the default shard count (256), as the INTEGER array the walks bind. */
    static Integer[] allShards() {
        return java.util.stream.IntStream.range(0, 256).boxed().toArray(Integer[]::new);
    }
}
