package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * The rows the paged-scan plan tests explain their queries over ({@code PostgresPagedScanPlanTest},
 * {@code H2HotPathPlanTest}): ids 1..n, an enabled one-shot job each, due {@code baseMs + id / 10}, in shard
 * {@code id % 256}, with one WAITING instance of the same id and due time.
 *
 * <p>Stateless.
 */
final class PlanTestRows {

    private PlanTestRows() {
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
}
