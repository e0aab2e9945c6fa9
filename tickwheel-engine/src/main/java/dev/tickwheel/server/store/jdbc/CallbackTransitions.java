package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.instance.WorkflowStep;
import dev.tickwheel.server.store.CallbackAttempt;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The moves of an instance whose job completes by callback ({@code dev.tickwheel.server.job.Completion}): the
 * caller's record that the target accepted the call, and the settles of the attempt by the target's report, its
 * heartbeat or its deadline.
 *
 * <p><b>Why a report is not fenced by a lease.</b> A report may reach any member, long after the call and after the
 * shard changed hands; the member that made the call may be gone. What makes it safe is that it names one attempt
 * exactly: its statements apply only to the row that is still DISPATCHING with the attempt number and the claim epoch
 * of the report's token ({@link CallbackAttempt}). A claim moves the epoch or the attempt, so a report for an older
 * attempt, or for a claim made again after a take-over, changes nothing; the status compare-and-set makes each
 * report, heartbeat and deadline settle exclusive with the others, and a report is refused once the deadline has
 * passed, a deadline settle while it has not, both by the same stored deadline. The accept itself is the caller's and is
 * fenced like every settle of a claim ({@link InstanceSql#CLAIM_EPOCH_HELD}).
 *
 * <p>Stateless but for its statements; thread-safe.
 */
final class CallbackTransitions {

    private static final String READ_COLUMNS_OF_I = InstanceSql.READ_COLUMNS.stream().map(c -> "i." + c)
            .collect(Collectors.joining(", "));

    /** The row of one attempt: parameters id, attempt, claim epoch. */
    private static final String ATTEMPT = " WHERE id = ? AND status = '" + InstanceTransition.SUCCEED.from()
            + "' AND attempt = ? AND claim_epoch = ?";
    /** Before its deadline, or accepted not yet: parameter now. */
    private static final String IN_TIME = " AND (callback_deadline_ms IS NULL OR callback_deadline_ms > ?)";
    /** Past its deadline: parameter now. */
    private static final String TIMED_OUT = " AND callback_deadline_ms <= ?";

    /**
     * Parameters: deadline, deadline, id, attempt, session. The target accepted the call: the report is due by the
     * deadline (a heartbeat that came first and set a later one keeps it).
     */
    static final String ACCEPT = "UPDATE tw_instance SET callback_deadline_ms = CASE WHEN callback_deadline_ms IS NULL"
            + " OR callback_deadline_ms < ? THEN ? ELSE callback_deadline_ms END WHERE id = ? AND status = '"
            + InstanceTransition.SUCCEED.from() + "' AND attempt = ?" + InstanceSql.CLAIM_EPOCH_HELD;

    /** Parameters: output, updated at, then {@link #ATTEMPT}, then now. */
    private static final String SUCCEED = "UPDATE tw_instance SET status = '" + InstanceTransition.SUCCEED.to()
            + "', error = NULL, output = ?, callback_deadline_ms = NULL, updated_at_ms = ?" + ATTEMPT;

    /** Parameters: error, updated at, then {@link #ATTEMPT}, then now. */
    private static final String FAIL = "UPDATE tw_instance SET status = '" + InstanceTransition.FAIL.to()
            + "', error = ?, callback_deadline_ms = NULL, updated_at_ms = ?" + ATTEMPT;

    /** Parameters: next trigger, error, updated at, then {@link #ATTEMPT}, then now. */
    private static final String RETRY = "UPDATE tw_instance SET status = '" + InstanceTransition.RETRY.to()
            + "', expected_trigger_time_ms = ?, error = ?, call_started_at_ms = NULL, callback_deadline_ms = NULL,"
            + " updated_at_ms = ?" + ATTEMPT;

    /** Parameters: ended at, error, then {@link #ATTEMPT}, then now. The attempt a {@link #RETRY} ends. */
    private static final String RECORD_RETRIED_ATTEMPT = "INSERT INTO tw_attempt (instance_id, attempt,"
            + " started_at_ms, ended_at_ms, expected_trigger_time_ms, error, claim_node, claim_epoch)"
            + " SELECT id, attempt, actual_trigger_time_ms, ?, expected_trigger_time_ms, ?, claim_node, claim_epoch"
            + " FROM tw_instance" + ATTEMPT;

    /** Parameters: id. The workflow step of an instance, if it is one. */
    private static final String SELECT_STEP = "SELECT workflow_run_id, workflow_node FROM tw_instance WHERE id = ?";

    /** Parameters: new deadline, updated at, then {@link #ATTEMPT}, then now. */
    private static final String HEARTBEAT = "UPDATE tw_instance SET callback_deadline_ms = ?, updated_at_ms = ?"
            + ATTEMPT + IN_TIME;

    private final TransactionRunner runner;
    private final Clock clock;
    private final Fence fence;
    private final WorkflowSteps steps;
    /** Parameters: session, lease clock, deadline bound, limit. Awaiting rows of the held shards past a deadline. */
    private final String selectTimedOut;
    /**
     * Parameters: session, lease clock. Awaiting rows of the held shards whose job has a {@code maxConcurrent}: the
     * calls its limit still counts.
     */
    private final String selectAwaitingOfLimitedJobs;

    CallbackTransitions(TransactionRunner runner, SqlDialect dialect, Clock clock, Fence fence, WorkflowSteps steps) {
        this.runner = runner;
        this.steps = steps;
        this.clock = clock;
        this.fence = fence;
        String now = new DatabaseClock(dialect, null).sql();
        String heldAwaiting = " FROM tw_shard_lease l JOIN tw_instance i ON i.shard = l.shard"
                + " WHERE l.owner_session = ? AND l.expires_at_ms > " + now + " AND i.status = '"
                + InstanceTransition.SUCCEED.from() + "' AND i.callback_deadline_ms IS NOT NULL";
        selectTimedOut = "SELECT " + READ_COLUMNS_OF_I + heldAwaiting + " AND i.callback_deadline_ms <= ?"
                + " ORDER BY i.id LIMIT ?";
        selectAwaitingOfLimitedJobs = "SELECT " + READ_COLUMNS_OF_I + heldAwaiting.replace(
                " WHERE", " JOIN tw_job j ON j.id = i.job_id WHERE j.max_concurrent > 0 AND");
    }

    /** @see dev.tickwheel.server.store.InstanceStore#acceptCallbacks */
    Set<Long> accept(Collection<CallbackAttempt> accepted, Instant deadline) {
        long deadlineMs = deadline.toEpochMilli();
        List<CallbackAttempt> ordered = new ArrayList<>(accepted);
        ordered.sort((a, b) -> Long.compare(a.instanceId(), b.instanceId())); // row locks in one order
        return runner.inTransaction("record " + ordered.size() + " calls accepted for a callback", connection -> {
            Set<Long> moved = new HashSet<>();
            try (PreparedStatement ps = connection.prepareStatement(ACCEPT)) {
                for (CallbackAttempt a : ordered) {
                    ps.setLong(1, deadlineMs);
                    ps.setLong(2, deadlineMs);
                    ps.setLong(3, a.instanceId());
                    ps.setInt(4, a.attempt());
                    fence.claimEpochHeld().bind(ps, 5);
                    if (ps.executeUpdate() == 1) {
                        moved.add(a.instanceId());
                    }
                }
            }
            return moved;
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#callbackSucceeded */
    Optional<List<Instance>> succeed(CallbackAttempt a, String output, LongSupplier ids) {
        long nowMs = clock.millis();
        return runner.inTransaction("succeed instance " + a.instanceId() + " by its callback", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(SUCCEED + IN_TIME)) {
                JdbcValues.setString(ps, 1, output);
                ps.setLong(2, nowMs);
                bindAttempt(ps, 3, a, nowMs);
                if (ps.executeUpdate() != 1) {
                    return Optional.<List<Instance>>empty();
                }
            }
            return Optional.of(nextStep(connection, a, InstanceStatus.SUCCEEDED, ids));
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#callbackFailed */
    Optional<List<Instance>> fail(CallbackAttempt a, boolean timedOut, String error, LongSupplier ids) {
        long nowMs = clock.millis();
        return runner.inTransaction("fail instance " + a.instanceId() + " by its callback", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(FAIL + (timedOut ? TIMED_OUT : IN_TIME))) {
                JdbcValues.setString(ps, 1, InstanceTransitions.truncate(error));
                ps.setLong(2, nowMs);
                bindAttempt(ps, 3, a, nowMs);
                if (ps.executeUpdate() != 1) {
                    return Optional.<List<Instance>>empty();
                }
            }
            return Optional.of(nextStep(connection, a, InstanceStatus.FAILED, ids));
        });
    }

    /** A workflow step's next step, in the transaction that ended it; nothing for any other instance. */
    private List<Instance> nextStep(Connection connection, CallbackAttempt a, InstanceStatus ended, LongSupplier ids)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SELECT_STEP)) {
            ps.setLong(1, a.instanceId());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || JdbcValues.getLong(rs, "workflow_run_id") == null) {
                    return List.of();
                }
                WorkflowStep step = new WorkflowStep(rs.getLong("workflow_run_id"), rs.getString("workflow_node"),
                        "{}");
                return steps.afterFinal(connection, step, ended.name(), ids);
            }
        }
    }

    /** @see dev.tickwheel.server.store.InstanceStore#callbackRetry */
    boolean retry(CallbackAttempt a, boolean timedOut, Instant next, String error) {
        Objects.requireNonNull(next, "next");
        long nowMs = clock.millis();
        String stored = InstanceTransitions.truncate(error);
        String when = timedOut ? TIMED_OUT : IN_TIME;
        return runner.inTransaction("retry instance " + a.instanceId() + " after its callback", connection -> {
            try (PreparedStatement record = connection.prepareStatement(RECORD_RETRIED_ATTEMPT + when)) {
                record.setLong(1, nowMs);
                JdbcValues.setString(record, 2, stored);
                bindAttempt(record, 3, a, nowMs);
                if (record.executeUpdate() == 0) {
                    return false;
                }
            }
            try (PreparedStatement ps = connection.prepareStatement(RETRY + when)) {
                ps.setLong(1, next.toEpochMilli());
                JdbcValues.setString(ps, 2, stored);
                ps.setLong(3, nowMs);
                bindAttempt(ps, 4, a, nowMs);
                if (ps.executeUpdate() == 1) {
                    return true;
                }
            }
            connection.rollback();
            return false;
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#callbackHeartbeat */
    boolean heartbeat(CallbackAttempt a, Instant newDeadline) {
        long nowMs = clock.millis();
        return runner.autoCommit("extend the callback deadline of instance " + a.instanceId(), connection -> {
            try (PreparedStatement ps = connection.prepareStatement(HEARTBEAT)) {
                ps.setLong(1, newDeadline.toEpochMilli());
                ps.setLong(2, nowMs);
                bindAttempt(ps, 3, a, nowMs);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#findTimedOutCallbacks */
    List<Instance> findTimedOut(Instant now, int limit) {
        QueryLimits.checkPageSize(limit);
        return runner.autoCommit("find callbacks past their deadline", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(selectTimedOut)) {
                fence.leaseHeld().bind(ps, 1);
                ps.setLong(3, now.toEpochMilli());
                ps.setInt(4, limit);
                return read(ps);
            }
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#findAwaitingCallbacksOfLimitedJobs */
    List<Instance> findAwaitingOfLimitedJobs() {
        return runner.autoCommit("find awaited callbacks of jobs with a limit", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(selectAwaitingOfLimitedJobs)) {
                fence.leaseHeld().bind(ps, 1);
                return read(ps);
            }
        });
    }

    private static List<Instance> read(PreparedStatement ps) throws SQLException {
        List<Instance> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(InstanceRowMapper.read(rs));
            }
        }
        return rows;
    }

    /** Binds {@link #ATTEMPT} and the deadline condition's now from {@code index}. */
    private static void bindAttempt(PreparedStatement ps, int index, CallbackAttempt a, long nowMs)
            throws SQLException {
        ps.setLong(index, a.instanceId());
        ps.setInt(index + 1, a.attempt());
        ps.setLong(index + 2, a.claimEpoch());
        ps.setLong(index + 3, nowMs);
    }
}
