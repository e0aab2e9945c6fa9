package dev.tickwheel.server.store.jdbc;

import java.util.List;

/**
 * The SQL text of the instance store. Statements that differ between databases are built once from a
 * {@link SqlDialect}; the rest are the same on H2 and PostgreSQL. Parameter order is documented per statement.
 *
 * <p>Every status change names the status it expects ({@code AND status = ?}): that is the compare-and-set.
 *
 * <p>Immutable; thread-safe.
 */
final class InstanceSql {

    static final List<String> INSERT_COLUMNS = List.of("id", "job_id", "status", "scheduled_trigger_time_ms",
            "expected_trigger_time_ms", "actual_trigger_time_ms", "attempt", "error", "params", "created_at_ms",
            "updated_at_ms");

    static final String COLUMNS = String.join(", ", INSERT_COLUMNS);

    /** Parameters: the 11 {@link #INSERT_COLUMNS} in order. */
    static final String INSERT = "INSERT INTO tw_instance (" + COLUMNS + ")"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Parameters: new next trigger, job id, expected next trigger. The job's compare-and-set; it also takes the
     * job's row lock, which serialises everything that creates instances for the job.
     */
    static final String ADVANCE_JOB = "UPDATE tw_job SET next_trigger_time_ms = ?"
            + " WHERE id = ? AND enabled = TRUE AND next_trigger_time_ms IS NOT DISTINCT FROM ?";

    /** Parameters: job id. Locks the job row so a concurrent delete cannot leave this instance behind. */
    static final String LOCK_JOB = "SELECT id FROM tw_job WHERE id = ? FOR UPDATE";

    /** Parameters: to, actual trigger, updated at, id, from. */
    static final String CLAIM = "UPDATE tw_instance SET status = ?, attempt = attempt + 1,"
            + " actual_trigger_time_ms = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, actual trigger, updated at, ids (BIGINT array), from. Wrapped to return the claimed ids. */
    static final String CLAIM_ALL = "UPDATE tw_instance SET status = ?, attempt = attempt + 1,"
            + " actual_trigger_time_ms = ?, updated_at_ms = ? WHERE id = ANY(?) AND status = ?";

    /** Parameters: to, error (null to clear), updated at, id, from. Succeed and fail. */
    static final String FINISH = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ? AND status = ?";

    /** Parameters: to, expected trigger, error, updated at, id, from. */
    static final String RETRY = "UPDATE tw_instance SET status = ?, expected_trigger_time_ms = ?, error = ?,"
            + " updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, updated at, id, from. */
    static final String CANCEL = "UPDATE tw_instance SET status = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, updated at, job id, from. Wrapped to return the cancelled ids. */
    static final String CANCEL_ALL_OF_JOB = "UPDATE tw_instance SET status = ?, updated_at_ms = ?"
            + " WHERE job_id = ? AND status = ?";

    /** Parameters: id. */
    static final String SELECT_STATUS = "SELECT status FROM tw_instance WHERE id = ?";

    /** Parameters: id. */
    static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM tw_instance WHERE id = ?";

    /** Parameters: status, afterId, limit. Served by the (status, id) index. */
    static final String SELECT_IN_STATUS = "SELECT " + COLUMNS + " FROM tw_instance"
            + " WHERE status = ? AND id > ? ORDER BY id LIMIT ?";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_EXISTING_IDS = "SELECT id FROM tw_instance WHERE id = ANY(?)";

    /** No parameters. */
    static final String COUNT_BY_STATUS = "SELECT status, COUNT(*) AS n FROM tw_instance GROUP BY status";

    final String insertScheduledIfAbsent;
    final String claimAllReturningIds;
    final String cancelAllOfJobReturningIds;

    InstanceSql(SqlDialect dialect) {
        insertScheduledIfAbsent = dialect.insertIfAbsent(
                "tw_instance", INSERT_COLUMNS, List.of("job_id", "scheduled_trigger_time_ms"));
        claimAllReturningIds = dialect.updateReturningIds(CLAIM_ALL);
        cancelAllOfJobReturningIds = dialect.updateReturningIds(CANCEL_ALL_OF_JOB);
    }

    /**
     * A page query with optional filters. Parameters: job id (if filtered), status (if filtered), afterId, limit.
     */
    static String selectPage(boolean byJob, boolean byStatus) {
        StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS).append(" FROM tw_instance WHERE ");
        if (byJob) {
            sql.append("job_id = ? AND ");
        }
        if (byStatus) {
            sql.append("status = ? AND ");
        }
        return sql.append("id > ? ORDER BY id LIMIT ?").toString();
    }
}
