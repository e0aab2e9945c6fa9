package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.store.JobAdvance;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL text of the instance store. Statements that differ between databases, or that read the lease clock, are
 * built once from a {@link SqlDialect}; the rest are the same on H2 and PostgreSQL. Parameter order is documented
 * per statement.
 *
 * <p>Every status change names the status it expects ({@code AND status = ?}): that is the compare-and-set.
 *
 * <p><b>The claim names the time its timer was armed for</b> ({@code expected_trigger_time_ms <= armed for}). A
 * reschedule moves a WAITING row's due time, and the timer armed for the old time may already have fired (on this
 * member or on the owner, in any order with the reschedule). Only a timer armed for the row's current due time or
 * later may claim it: after a reschedule to a later time the old timer's claim is refused and the new timer's claim
 * wins, so the instance runs once, at the new time; a reschedule that comes after the claim is refused
 * (ALREADY_DISPATCHED), so it runs once, at the old time. Timers re-armed later than the due time (a failed claim
 * retried a second later, a missed instance fired now) are armed for that later time and still qualify. No clock is
 * read: the comparison is between two stored times.
 *
 * <p><b>Fencing.</b> The claim and every settle of a claimed row also name the shard lease they need, in the same
 * statement, as an {@code EXISTS} over the row's lease ({@code l.shard = tw_instance.shard}, the lease's primary
 * key). Being one statement, the check and the change cannot be separated by a pause of this member:
 * <ul>
 *   <li>{@link #leaseHeld} (the claim): this session holds the row's shard, unexpired by the database's clock. The
 *       claim copies the lease's node and epoch into the row ({@code claim_node}, {@code claim_epoch}) from the
 *       same lease row. Safe because another member can take the shard only once the lease has expired, or was
 *       released, by the same clock; so a claim made while the lease was unexpired was made before any takeover,
 *       and carries the epoch a takeover then outdates.</li>
 *   <li>{@link #CLAIM_EPOCH_HELD} (success, failure, retry, release, interruption, the call-started mark): this
 *       session still holds the row's shard <em>under the epoch the row was claimed under</em>, expired or not. The
 *       epoch changes whenever the shard changes hands, so after a takeover nothing of the old claimant's applies,
 *       and the new owner settles the row ({@link #shardTakenOver}). There is deliberately no expiry check: an
 *       expired lease that nobody took is still exclusively this member's (any taker would have bumped the epoch),
 *       and this member may renew it; refusing the settle for the expiry alone would strand the row DISPATCHING
 *       under this member's own epoch, which no other member would ever release (it is not foreign to anyone until
 *       a takeover), while settling it changes nothing anyone else relies on.</li>
 *   <li>{@link #shardTakenOver} (a foreign claim's release or interruption): the row is still DISPATCHING under the
 *       given epoch, and this session holds the row's shard, unexpired, under another epoch, so the claimant has
 *       lost it.</li>
 * </ul>
 * Cancel, skip and a deleted job's cancel-all are not fenced: they move only WAITING rows, which any member may
 * cancel; the status compare-and-set alone keeps them from racing a claim.
 *
 * <p>On PostgreSQL (READ COMMITTED) the {@code EXISTS} reads the lease as of the statement's start, and the clock
 * ({@code clock_timestamp()}) when it evaluates; a takeover needs the lease expired by that same clock, so a
 * takeover after expiry cannot slip under a claim. A <em>release</em> (or a renewal with a shorter TTL) committed
 * while a claim statement of the releasing member is already running is not seen by that statement: the claim then
 * records the released epoch, its settles are refused, and the shard's next owner finds it as a foreign claim.
 * Members drain their calls before releasing (see {@code ShardListener#drained}), which keeps claims out of that
 * window.
 *
 * <p>Immutable; thread-safe.
 */
final class InstanceSql {

    /** Columns an insert writes. */
    static final List<String> INSERT_COLUMNS = List.of("id", "job_id", "status", "scheduled_trigger_time_ms",
            "expected_trigger_time_ms", "actual_trigger_time_ms", "attempt", "error", "params", "call_started_at_ms",
            "created_at_ms", "updated_at_ms", "shard", "run_key", "priority", "rerun_of", "workflow_run_id",
            "workflow_node", "upstream");

    /** Columns a read returns: the inserted ones, the claim's lease, the output and the callback deadline. */
    static final List<String> READ_COLUMNS = concat(INSERT_COLUMNS, List.of("claim_node", "claim_epoch", "output",
            "callback_deadline_ms"));

    static final String COLUMNS = String.join(", ", READ_COLUMNS);

    /**
     * A unique key of instances: its columns, unique in {@code tw_instance} itself on H2 (a unique index), and in
     * {@code table}, which maps the key to its {@code instance_id}, on the partitioned PostgreSQL history
     * ({@link PartitionedHistory}: a unique index on a partitioned table must include the partition key, the id).
     * A row with a null key column has no key and never conflicts.
     */
    record UniqueKey(String table, List<String> columns) {
    }

    /** The schedule slot: a loader that runs twice cannot fill it twice (tw_instance_slot_uk, tw_instance_slot). */
    static final UniqueKey SLOT_KEY = new UniqueKey("tw_instance_slot", List.of("job_id",
            "scheduled_trigger_time_ms"));

    /** The caller's run key ({@link RunKeyColumn} on H2, {@code tw_run_key} on PostgreSQL). */
    static final UniqueKey RUN_KEY = new UniqueKey("tw_run_key", List.of("job_id", "run_key"));

    /** The predicate of the partial run-key index that schema version 7 made on PostgreSQL. */
    static final String RUN_KEY_PREDICATE = "run_key IS NOT NULL";

    /** Parameters: the 19 {@link #INSERT_COLUMNS} in order. */
    static final String INSERT = "INSERT INTO tw_instance (" + String.join(", ", INSERT_COLUMNS) + ") VALUES ("
            + INSERT_COLUMNS.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";

    /**
     * Parameters: new next trigger, instances created from the schedule (added to {@code scheduled_runs}), job id,
     * expected next trigger, expected version ({@link #bindAdvance}). The job's compare-and-set; it
     * also takes the job's row lock, which serialises everything that creates instances for the job. The version
     * makes a pass planned from a job that a user has changed since write nothing: the changed schedule stands.
     */
    static final String ADVANCE_JOB = "UPDATE tw_job SET next_trigger_time_ms = ?, scheduled_runs = scheduled_runs + ?"
            + " WHERE id = ? AND enabled = TRUE AND next_trigger_time_ms IS NOT DISTINCT FROM ? AND version = ?";

    /** Binds the parameters of {@link #ADVANCE_JOB} for {@code advance}. */
    static void bindAdvance(PreparedStatement ps, JobAdvance advance) throws SQLException {
        JdbcValues.setInstant(ps, 1, advance.newNextTrigger());
        ps.setInt(2, advance.instances().size());
        ps.setLong(3, advance.jobId());
        JdbcValues.setInstant(ps, 4, advance.expectedNextTrigger());
        ps.setLong(5, advance.expectedVersion());
    }

    /**
     * Parameters: job id. Locks a fixed-delay job whose chain waits on a completion (enabled, no next trigger) and
     * returns its row if so; serialises follow-ups of one job with each other and with loaders.
     */
    static final String LOCK_FIXED_DELAY_JOB_AWAITING_FOLLOW_UP = "SELECT id, pool_name FROM tw_job WHERE id = ?"
            + " AND enabled = TRUE AND next_trigger_time_ms IS NULL AND schedule_type = 'FIXED_DELAY' FOR UPDATE";

    /**
     * Parameters: the job's shard, job id, WAITING, the job's shard again. Moves a job's waiting instances to its own
     * shard (a job that came to need one owner). Served by the (job_id, id) index.
     */
    static final String GATHER_WAITING_OF_JOB = "UPDATE tw_instance SET shard = ? WHERE job_id = ? AND status = ?"
            + " AND shard <> ?";

    /**
     * Parameters: job id. A scheduled instance of the job that is still waiting or dispatching: a fixed-delay chain
     * already goes on from it. Served by the (job_id, id) index.
     */
    static final String SELECT_LIVE_SCHEDULED_OF_JOB = "SELECT id FROM tw_instance WHERE job_id = ?"
            + " AND scheduled_trigger_time_ms IS NOT NULL AND status IN ('WAITING', 'DISPATCHING')"
            + " FETCH FIRST 1 ROWS ONLY";

    /** Parameters: job id. Locks the job row so a concurrent delete cannot leave this instance behind. */
    static final String LOCK_JOB = "SELECT id FROM tw_job WHERE id = ? FOR UPDATE";

    /**
     * The settle fence (see the class comment). Parameters: session. The lease is found by its primary key; no
     * expiry check, on purpose.
     */
    static final String CLAIM_EPOCH_HELD = " AND EXISTS (SELECT 1 FROM tw_shard_lease l"
            + " WHERE l.shard = tw_instance.shard AND l.owner_session = ? AND l.epoch = tw_instance.claim_epoch)";

    /**
     * The claim: status, attempt, times, and the node and epoch of this member's lease of the row's shard, the row
     * {@link #leaseHeld} checks (the same statement reads it once per snapshot). Naming the owner here too is not
     * needed for correctness; it makes PostgreSQL look the lease up by its primary key per row instead of scanning
     * the lease table per row.
     */
    private static final String CLAIM_SET = "UPDATE tw_instance SET status = ?, attempt = attempt + 1,"
            + " actual_trigger_time_ms = ?, updated_at_ms = ?,"
            + " (claim_node, claim_epoch) = (SELECT l.owner_node, l.epoch FROM tw_shard_lease l"
            + " WHERE l.shard = tw_instance.shard AND l.owner_session = ?)";

    /**
     * The status as the batched claim compares it: {@code status || ''}, the same value, but an expression that no
     * index matches, so that PostgreSQL finds each claimed row by its primary key whatever its statistics say.
     *
     * <p>Why: with {@code status = 'WAITING'} the partial index of waiting rows ({@link WaitingDueIndex}) is a
     * candidate, and on a partition that has not been analyzed since its rows arrived (every new day's, and any
     * after a burst of inserts) the planner takes the default selectivity of an equality (0.5 %) for what is really
     * every row. It then read all waiting rows once per claim and joined them with the ids in a nested loop:
     * {@code EXPLAIN ANALYZE} of a 500-id claim over 20 000 waiting rows took 1 355 ms instead of 11 ms (custom and
     * generic plans alike), so claims cost O(waiting rows) each, quadratic over a burst. With the expression, the
     * only access paths are the primary key (one probe per id) and a sequential scan, and the probes win under any
     * statistics. The compare-and-set is unchanged: the condition is re-checked on the locked row as before.
     */
    static final String STATUS_BY_ROW = "status || ''";

    /** Parameters: to, error (null to clear), updated at, id, from, session. Succeed, fail and interrupt. */
    static final String FINISH = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ? AND status = ?" + CLAIM_EPOCH_HELD;

    /**
     * Parameters: to, error (null to clear), updated at, ids (BIGINT array), from, session. Wrapped to return the
     * ids.
     */
    static final String FINISH_ALL = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ANY(?) AND status = ?" + CLAIM_EPOCH_HELD;

    /** Parameters: output, updated at, id, session. DISPATCHING → SUCCEEDED with the target's output. */
    static final String SUCCEED_WITH_OUTPUT = "UPDATE tw_instance SET status = '" + InstanceTransition.SUCCEED.to()
            + "', error = NULL, output = ?, updated_at_ms = ? WHERE id = ? AND status = '"
            + InstanceTransition.SUCCEED.from() + "'" + CLAIM_EPOCH_HELD;

    /** Parameters: to, reason, updated at, id, from. Skip: WAITING → CANCELLED, unfenced like a cancel. */
    static final String SKIP = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
            + " WHERE id = ? AND status = ?";

    /** Parameters: to, expected trigger, error, updated at, id, from, session. */
    static final String RETRY = "UPDATE tw_instance SET status = ?, expected_trigger_time_ms = ?, error = ?,"
            + " call_started_at_ms = NULL, updated_at_ms = ? WHERE id = ? AND status = ?" + CLAIM_EPOCH_HELD;

    /**
     * Parameters: ended at, error, id, from (DISPATCHING), session. The attempt a {@link #RETRY} ends, copied from the
     * row before the retry changes it (its due time moves on), under the same conditions as the retry: run first in
     * the retry's transaction, it inserts nothing if the retry would change nothing.
     */
    static final String RECORD_RETRIED_ATTEMPT = "INSERT INTO tw_attempt (instance_id, attempt, started_at_ms,"
            + " ended_at_ms, expected_trigger_time_ms, error, claim_node, claim_epoch)"
            + " SELECT id, attempt, actual_trigger_time_ms, ?, expected_trigger_time_ms, ?, claim_node, claim_epoch"
            + " FROM tw_instance WHERE id = ? AND status = ?" + CLAIM_EPOCH_HELD;

    /** Parameters: to, updated at, id, from, session. The claim undone: the same attempt is claimed again. */
    static final String RELEASE = "UPDATE tw_instance SET status = ?, attempt = attempt - 1,"
            + " call_started_at_ms = NULL, updated_at_ms = ? WHERE id = ? AND status = ?" + CLAIM_EPOCH_HELD;

    /** Parameters: call started at, id, status, session. */
    static final String MARK_CALL_STARTED = "UPDATE tw_instance SET call_started_at_ms = ?"
            + " WHERE id = ? AND status = ?" + CLAIM_EPOCH_HELD;

    /** Parameters: call started at, ids (BIGINT array), status, session. Wrapped to return the ids. */
    static final String MARK_CALL_STARTED_ALL = "UPDATE tw_instance SET call_started_at_ms = ?"
            + " WHERE id = ANY(?) AND status = ?" + CLAIM_EPOCH_HELD;

    /** Parameters: to, updated at, id, from. Unfenced: any member may cancel a waiting row. */
    static final String CANCEL = "UPDATE tw_instance SET status = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    /** Parameters: to, updated at, job id, from. Wrapped to return the cancelled ids. Unfenced, as a cancel. */
    static final String CANCEL_ALL_OF_JOB = "UPDATE tw_instance SET status = ?, updated_at_ms = ?"
            + " WHERE job_id = ? AND status = ?";

    /** Parameters: job id, status. */
    static final String SELECT_IDS_OF_JOB_IN_STATUS = "SELECT id FROM tw_instance WHERE job_id = ? AND status = ?"
            + " ORDER BY id";

    /** Parameters: id. */
    static final String SELECT_STATUS = "SELECT status FROM tw_instance WHERE id = ?";

    /** Parameters: id. */
    static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM tw_instance WHERE id = ?";

    /**
     * Parameters: id. The instance and its recorded attempts in one statement (one snapshot, so a retry committed
     * meanwhile shows in both or in neither): one row per attempt, or one row with null attempt columns.
     */
    static final String SELECT_WITH_ATTEMPTS = "SELECT "
            + READ_COLUMNS.stream().map(c -> "i." + c).collect(Collectors.joining(", "))
            + ", a.attempt AS a_attempt, a.started_at_ms AS a_started_at_ms, a.ended_at_ms AS a_ended_at_ms,"
            + " a.expected_trigger_time_ms AS a_expected_trigger_time_ms, a.error AS a_error,"
            + " a.claim_node AS a_claim_node, a.claim_epoch AS a_claim_epoch"
            + " FROM tw_instance i LEFT JOIN tw_attempt a ON a.instance_id = i.id WHERE i.id = ? ORDER BY a.attempt";


    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_BY_IDS = "SELECT " + COLUMNS + " FROM tw_instance WHERE id = ANY(?)";

    /**
     * Parameters: shards (an INTEGER array), the cursor's due time twice and its id, due by, limit. Waiting instances
     * in (due time, id) order: a range of {@link WaitingDueIndex}'s index walked in order (see
     * {@link SqlDialect#preferIndexOrder}), filtered by shard. The status is a literal so that PostgreSQL matches the
     * partial index's predicate; the first due-time bound gives H2 the start of its range. The {@code ORDER BY}
     * leads with the equality-bound status: H2's index is (status, due time, id), and H2 2.3 walks it in order (and
     * stops at the limit) only when the {@code ORDER BY} starts with its first column; PostgreSQL drops a column bound
     * to a constant from the order, which leaves its partial index's key.
     */
    static final String SELECT_WAITING_DUE = "SELECT " + COLUMNS + " FROM tw_instance"
            + " WHERE status = 'WAITING' AND shard = ANY(?) AND expected_trigger_time_ms >= ?"
            + " AND (expected_trigger_time_ms, id) > (?, ?) AND expected_trigger_time_ms <= ?"
            + " ORDER BY status, expected_trigger_time_ms, id LIMIT ?";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_EXISTING_IDS = "SELECT id FROM tw_instance WHERE id = ANY(?)";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_JOB_IDS = "SELECT id, job_id FROM tw_instance WHERE id = ANY(?)";

    /** No parameters. */
    static final String COUNT_BY_STATUS = "SELECT status, COUNT(*) AS n FROM tw_instance GROUP BY status";

    /**
     * The claim fence (see the class comment). Parameters: session, now. The lease is found by its primary key.
     */
    final String leaseHeld;
    /**
     * The foreign-claim fence (see the class comment). Parameters: session, now.
     */
    final String shardTakenOver;
    /**
     * Parameters: to, actual trigger, updated at, session, id, armed for (ms), from, session, now. The single-row claim
     * (H2's row by row). {@code expected_trigger_time_ms <= armed for}: see the class comment.
     */
    final String claim;
    /**
     * Parameters: to, actual trigger, updated at, session, ids (BIGINT array), armed-for times (BIGINT array, one per
     * id, in the same order), from, session, now; returns the rows. PostgreSQL only (it joins the two arrays with
     * {@code unnest}); H2 claims row by row.
     */
    final String claimAllReturningRows;
    /** {@link #FINISH_ALL} returning the ids it moved. */
    final String finishAllReturningIds;
    /** {@link #MARK_CALL_STARTED_ALL} returning the ids it marked. */
    final String markCallStartedAllReturningIds;
    /**
     * Parameters: to, updated at, id, from, claim epoch, session, now. A foreign claim back to WAITING as the same
     * attempt.
     */
    final String releaseForeign;
    /** Parameters: to, reason, updated at, id, from, claim epoch, session, now. A foreign claim interrupted. */
    final String interruptForeign;
    /**
     * Parameters: now, session, now, status, afterId, limit. The DISPATCHING rows of the shards this session holds,
     * claimed under another epoch, with the lease's acquisition time and the database's now. Served by the (shard,
     * status, id) index, once per held lease.
     */
    final String selectForeignClaims;
    final String cancelAllOfJobReturningIds;
    /**
     * Parameters: job id, run keys (a VARCHAR array). The instances with these keys: by the run-key index
     * ({@link RunKeyColumn}), or through {@code tw_run_key} where the history is partitioned.
     */
    final String selectByJobAndKeys;
    /** Parameters: job id, run keys (a VARCHAR array). The ids and keys only (id first, key second). */
    final String selectIdsByJobAndKeys;

    InstanceSql(SqlDialect dialect) {
        if (dialect.partitionsHistory()) {
            selectByJobAndKeys = "SELECT " + READ_COLUMNS.stream().map(c -> "i." + c).collect(Collectors.joining(", "))
                    + " FROM tw_run_key k JOIN tw_instance i ON i.id = k.instance_id"
                    + " WHERE k.job_id = ? AND k.run_key = ANY(?)";
            selectIdsByJobAndKeys = "SELECT instance_id, run_key FROM tw_run_key WHERE job_id = ? AND run_key = ANY(?)";
        } else {
            selectByJobAndKeys = "SELECT " + COLUMNS + " FROM tw_instance WHERE job_id = ? AND run_key = ANY(?)";
            selectIdsByJobAndKeys = "SELECT id, run_key FROM tw_instance WHERE job_id = ? AND run_key = ANY(?)";
        }
        String now = new DatabaseClock(dialect, null).sql();
        leaseHeld = " AND EXISTS (SELECT 1 FROM tw_shard_lease l WHERE l.shard = tw_instance.shard"
                + " AND l.owner_session = ? AND l.expires_at_ms > " + now + ")";
        shardTakenOver = " AND EXISTS (SELECT 1 FROM tw_shard_lease l WHERE l.shard = tw_instance.shard"
                + " AND l.owner_session = ? AND l.epoch <> tw_instance.claim_epoch AND l.expires_at_ms > " + now + ")";
        claim = CLAIM_SET + " WHERE id = ? AND expected_trigger_time_ms <= ? AND status = ?" + leaseHeld;
        claimAllReturningRows = dialect.updateReturning(CLAIM_SET
                + " FROM unnest(?, ?) AS c (claim_id, armed_for_ms) WHERE tw_instance.id = c.claim_id"
                + " AND tw_instance.expected_trigger_time_ms <= c.armed_for_ms AND " + STATUS_BY_ROW + " = ?"
                + leaseHeld, COLUMNS);
        finishAllReturningIds = dialect.updateReturningIds(FINISH_ALL);
        markCallStartedAllReturningIds = dialect.updateReturningIds(MARK_CALL_STARTED_ALL);
        releaseForeign = "UPDATE tw_instance SET status = ?, attempt = attempt - 1, call_started_at_ms = NULL,"
                + " updated_at_ms = ? WHERE id = ? AND status = ? AND claim_epoch = ?" + shardTakenOver;
        interruptForeign = "UPDATE tw_instance SET status = ?, error = ?, updated_at_ms = ?"
                + " WHERE id = ? AND status = ? AND claim_epoch = ?" + shardTakenOver;
        selectForeignClaims = "SELECT " + READ_COLUMNS.stream().map(c -> "i." + c).collect(Collectors.joining(", "))
                + ", l.acquired_at_ms AS lease_acquired_at_ms, " + now + " AS db_now_ms"
                + " FROM tw_shard_lease l JOIN tw_instance i ON i.shard = l.shard"
                + " WHERE l.owner_session = ? AND l.expires_at_ms > " + now
                + " AND i.status = ? AND i.claim_epoch <> l.epoch AND i.callback_deadline_ms IS NULL AND i.id > ?"
                + " ORDER BY i.id LIMIT ?";
        cancelAllOfJobReturningIds = dialect.updateReturningIds(CANCEL_ALL_OF_JOB);
    }

    /**
     * A history page, newest first, with optional filters. Parameters: job id (if {@code byJob}), status (if
     * {@code byStatus}), lowest id (inclusive), id bound (exclusive), limit.
     *
     * <p>The {@code ORDER BY} names the whole key of the index meant to serve it, the equality-bound leading column
     * included ({@code job_id DESC, id DESC} walks (job_id, id) backwards; {@code status DESC, id DESC} walks (status,
     * id)). Equivalent to {@code ORDER BY id DESC} under the equality, and PostgreSQL sees that; H2 2.3 walks a
     * secondary index backwards only when the {@code ORDER BY} names all its columns, and otherwise collects every row
     * of the job or the status and sorts (for one status of a million rows, 40 ms instead of 0.1 ms a page). With a
     * job and a status, the job's index is walked and the status filtered: a job has far fewer rows than a status.
     */
    /**
     * The instances of one namespace's jobs (parameter: the namespace, twice). A job without a namespace row was
     * deleted before schema 18 and was in the default namespace.
     */
    static final String IN_NAMESPACE = "(job_id IN (SELECT job_id FROM tw_job_namespace WHERE namespace = ?)"
            + " OR (? = '" + dev.tickwheel.server.access.Namespaces.DEFAULT + "'"
            + " AND job_id NOT IN (SELECT job_id FROM tw_job_namespace)))";

    static String selectLatest(boolean byJob, boolean byStatus) {
        return selectLatest(byJob, byStatus, false);
    }

    /** {@link #selectLatest(boolean, boolean)}, with the namespace (its two parameters first) if {@code byNamespace}. */
    static String selectLatest(boolean byJob, boolean byStatus, boolean byNamespace) {
        StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS).append(" FROM tw_instance WHERE ");
        if (byNamespace) {
            sql.append(IN_NAMESPACE).append(" AND ");
        }
        if (byJob) {
            sql.append("job_id = ? AND ");
        }
        if (byStatus) {
            sql.append("status = ? AND ");
        }
        sql.append("id >= ? AND id < ? ORDER BY ");
        if (byJob) {
            sql.append("job_id DESC, ");
        } else if (byStatus) {
            sql.append("status DESC, ");
        }
        return sql.append("id DESC LIMIT ?").toString();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
