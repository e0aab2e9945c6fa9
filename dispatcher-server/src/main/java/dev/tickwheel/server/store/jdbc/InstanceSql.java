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
            "expected_trigger_time_ms", "actual_trigger_time_ms", "attempt", "error", "params", "call_started_at_ms",
            "created_at_ms", "updated_at_ms");

    static final String COLUMNS = String.join(", ", INSERT_COLUMNS);

    /** Parameters: the 12 {@link #INSERT_COLUMNS} in order. */
    static final String INSERT = "INSERT INTO tw_instance (" + COLUMNS + ")"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Parameters: new next trigger, job id, expected next trigger, expected version. The job's compare-and-set; it
     * also takes the job's row lock, which serialises everything that creates instances for the job. The version
     * makes a pass planned from a job that a user has changed since write nothing: the changed schedule stands.
     */
    static final String ADVANCE_JOB = "UPDATE tw_job SET next_trigger_time_ms = ?"
            + " WHERE id = ? AND enabled = TRUE AND next_trigger_time_ms IS NOT DISTINCT FROM ? AND version = ?";

    /**
     * Parameters: job id. Locks a fixed-delay job whose chain waits on a completion (enabled, no next trigger) and
     * returns its row if so; serialises follow-ups of one job with each other and with loaders.
     */
    static final String LOCK_FIXED_DELAY_JOB_AWAITING_FOLLOW_UP = "SELECT id FROM tw_job WHERE id = ?"
            + " AND enabled = TRUE AND next_trigger_time_ms IS NULL AND schedule_type = 'FIXED_DELAY' FOR UPDATE";

    /**
     * Parameters: job id. A scheduled instance of the job that is still waiting or dispatching: a fixed-delay chain
     * already goes on from it. Served by the (job_id, id) index.
     */
    static final String SELECT_LIVE_SCHEDULED_OF_JOB = "SELECT id FROM tw_instance WHERE job_id = ?"
            + " AND scheduled_trigger_time_ms IS NOT NULL AND status IN ('WAITING', 'DISPATCHING')"
            + " FETCH FIRST 1 ROWS ONLY";

    /** Parameters: job id. Locks the job row so a concurrent delete cannot leave this instance behind. */
    static final String LOCK_JOB = "SELECT id FROM tw_job WHERE id = ? FOR UPDATE";

    /** Parameters: to, actual trigger, updated at, id, from. */
    static final String CLAIM = "UPDATE tw_instance SET status = ?, attempt = attempt + 1,"
            + " actual_trigger_time_ms = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, actual trigger, updated at, ids (BIGINT array), from. Wrapped to return the claimed rows. */
    static final String CLAIM_ALL = "UPDATE tw_instance SET status = ?, attempt = attempt + 1,"
            + " actual_trigger_time_ms = ?, updated_at_ms = ? WHERE id = ANY(?) AND status = ?";

    /** Parameters: to, error (null to clear), updated at, id, from. Succeed and fail. */
    static final String FINISH = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ? AND status = ?";

    /** Parameters: to, error (null to clear), updated at, ids (BIGINT array), from. Wrapped to return the ids. */
    static final String FINISH_ALL = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ANY(?) AND status = ?";

    /** Parameters: to, expected trigger, error, updated at, id, from. */
    static final String RETRY = "UPDATE tw_instance SET status = ?, expected_trigger_time_ms = ?, error = ?,"
            + " call_started_at_ms = NULL, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, updated at, id, from. The claim undone: the same attempt is claimed again. */
    static final String RELEASE = "UPDATE tw_instance SET status = ?, attempt = attempt - 1,"
            + " call_started_at_ms = NULL, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: call started at, ids (BIGINT array), status. */
    static final String MARK_CALL_STARTED = "UPDATE tw_instance SET call_started_at_ms = ?"
            + " WHERE id = ANY(?) AND status = ?";

    /** Parameters: to, updated at, id, from. */
    static final String CANCEL = "UPDATE tw_instance SET status = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, updated at, job id, from. Wrapped to return the cancelled ids. */
    static final String CANCEL_ALL_OF_JOB = "UPDATE tw_instance SET status = ?, updated_at_ms = ?"
            + " WHERE job_id = ? AND status = ?";

    /** Parameters: job id, status. */
    static final String SELECT_IDS_OF_JOB_IN_STATUS = "SELECT id FROM tw_instance WHERE job_id = ? AND status = ?"
            + " ORDER BY id";

    /** Parameters: id. */
    static final String SELECT_STATUS = "SELECT status FROM tw_instance WHERE id = ?";

    /** Parameters: id. */
    static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM tw_instance WHERE id = ?";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_BY_IDS = "SELECT " + COLUMNS + " FROM tw_instance WHERE id = ANY(?)";

    /** Parameters: status, afterId, limit. Served by the (status, id) index. */
    static final String SELECT_IN_STATUS = "SELECT " + COLUMNS + " FROM tw_instance"
            + " WHERE status = ? AND id > ? ORDER BY id LIMIT ?";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_EXISTING_IDS = "SELECT id FROM tw_instance WHERE id = ANY(?)";

    /** No parameters. */
    static final String COUNT_BY_STATUS = "SELECT status, COUNT(*) AS n FROM tw_instance GROUP BY status";

    final String insertScheduledIfAbsent;
    final String cancelAllOfJobReturningIds;
    /** {@link #CLAIM_ALL} returning every {@link #COLUMNS} of the claimed rows. */
    final String claimAllReturningRows;
    /** {@link #FINISH_ALL} returning the ids it moved. */
    final String finishAllReturningIds;

    InstanceSql(SqlDialect dialect) {
        insertScheduledIfAbsent = dialect.insertIfAbsent(
                "tw_instance", INSERT_COLUMNS, List.of("job_id", "scheduled_trigger_time_ms"));
        cancelAllOfJobReturningIds = dialect.updateReturningIds(CANCEL_ALL_OF_JOB);
        claimAllReturningRows = dialect.updateReturning(CLAIM_ALL, COLUMNS);
        finishAllReturningIds = dialect.updateReturningIds(FINISH_ALL);
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
