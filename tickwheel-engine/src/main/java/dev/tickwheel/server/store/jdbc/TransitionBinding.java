package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.InstanceTransition;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The one place the parameters of the instance status-change statements of {@link InstanceSql} are bound. Each
 * statement shape has a single-row form ({@code WHERE id = ?}) and a set form ({@code WHERE id = ANY(?)} or
 * {@code WHERE job_id = ?}) with the same parameter order; only the row key differs, so the key is passed as a
 * {@link RowKey} and everything else (the statuses from the {@link InstanceTransition}, the times, the error) is bound
 * here, once. The fencing condition that ends a statement comes last and is bound by a {@link Fence.Binder}
 * ({@link Fence#NONE} for the unfenced ones).
 *
 * <p>Stateless; thread-safe.
 */
final class TransitionBinding {

    /** Binds the parameter that picks the rows: one id, an id array, or a job id. */
    @FunctionalInterface
    interface RowKey {
        void bind(PreparedStatement ps, int index) throws SQLException;
    }

    private TransitionBinding() {
    }

    /** The row whose id is {@code id} (also the job id of {@link InstanceSql#CANCEL_ALL_OF_JOB}). */
    static RowKey id(long id) {
        return (ps, index) -> ps.setLong(index, id);
    }

    /** The rows whose id is in {@code ids}, a BIGINT array. */
    static RowKey ids(Array ids) {
        return (ps, index) -> ps.setArray(index, ids);
    }

    /**
     * {@link InstanceSql#claim} and {@link InstanceSql#claimAllReturningRows} (WAITING → DISPATCHING): to, actual
     * trigger, updated at, session (whose lease's node and epoch the row records), the rows and the times their timers
     * were armed for (two parameters: an id and a time, or an id array and a time array), from, then the lease fence.
     * The actual trigger time and the update time are both {@code nowMs}.
     */
    static void claim(PreparedStatement ps, long nowMs, RowKey rows, RowKey armedForMs, Fence fence)
            throws SQLException {
        InstanceTransition t = InstanceTransition.CLAIM;
        ps.setString(1, t.to().name());
        ps.setLong(2, nowMs);
        ps.setLong(3, nowMs);
        ps.setLong(4, fence.session());
        rows.bind(ps, 5);
        armedForMs.bind(ps, 6);
        ps.setString(7, t.from().name());
        fence.leaseHeld().bind(ps, 8);
    }

    /**
     * {@link InstanceSql#FINISH}, {@link InstanceSql#FINISH_ALL} and {@link InstanceSql#SKIP}: to, error (null clears
     * it), updated at, row key, from, then the fence. Used by succeed, fail, interrupt and skip.
     */
    static void finish(PreparedStatement ps, InstanceTransition t, String error, long nowMs, RowKey rows,
                       Fence.Binder fence) throws SQLException {
        ps.setString(1, t.to().name());
        JdbcValues.setString(ps, 2, error);
        ps.setLong(3, nowMs);
        rows.bind(ps, 4);
        ps.setString(5, t.from().name());
        fence.bind(ps, 6);
    }

    /** {@link InstanceSql#SUCCEED_WITH_OUTPUT}: output, updated at, id, then the fence. */
    static void succeedWithOutput(PreparedStatement ps, String output, long nowMs, long id, Fence.Binder fence)
            throws SQLException {
        ps.setString(1, output);
        ps.setLong(2, nowMs);
        ps.setLong(3, id);
        fence.bind(ps, 4);
    }

    /**
     * {@link InstanceSql#RETRY} (DISPATCHING → WAITING): to, expected trigger, error, updated at, id, from, then the
     * fence.
     */
    static void retry(PreparedStatement ps, long nextTriggerMs, String error, long nowMs, long id,
                      Fence.Binder fence) throws SQLException {
        InstanceTransition t = InstanceTransition.RETRY;
        ps.setString(1, t.to().name());
        ps.setLong(2, nextTriggerMs);
        JdbcValues.setString(ps, 3, error);
        ps.setLong(4, nowMs);
        ps.setLong(5, id);
        ps.setString(6, t.from().name());
        fence.bind(ps, 7);
    }

    /**
     * {@link InstanceSql#CANCEL}, {@link InstanceSql#RELEASE} and {@link InstanceSql#CANCEL_ALL_OF_JOB}: to, updated
     * at, row key, from, then the fence.
     */
    static void move(PreparedStatement ps, InstanceTransition t, long nowMs, RowKey rows, Fence.Binder fence)
            throws SQLException {
        ps.setString(1, t.to().name());
        ps.setLong(2, nowMs);
        rows.bind(ps, 3);
        ps.setString(4, t.from().name());
        fence.bind(ps, 5);
    }

    /**
     * {@link InstanceSql#MARK_CALL_STARTED} and {@link InstanceSql#MARK_CALL_STARTED_ALL}: call started at, row key,
     * status (DISPATCHING), then the fence.
     */
    static void markCallStarted(PreparedStatement ps, long startedMs, RowKey rows, Fence.Binder fence)
            throws SQLException {
        ps.setLong(1, startedMs);
        rows.bind(ps, 2);
        ps.setString(3, InstanceTransition.CLAIM.to().name());
        fence.bind(ps, 4);
    }

    /**
     * {@link InstanceSql#releaseForeign}: to, updated at, id, from, claim epoch, then the fence
     * ({@link InstanceSql#shardTakenOver}).
     */
    static void releaseForeign(PreparedStatement ps, long nowMs, long id, long claimEpoch, Fence.Binder fence)
            throws SQLException {
        InstanceTransition t = InstanceTransition.RELEASE;
        ps.setString(1, t.to().name());
        ps.setLong(2, nowMs);
        ps.setLong(3, id);
        ps.setString(4, t.from().name());
        ps.setLong(5, claimEpoch);
        fence.bind(ps, 6);
    }

    /**
     * {@link InstanceSql#interruptForeign}: to, reason, updated at, id, from, claim epoch, then the fence
     * ({@link InstanceSql#shardTakenOver}).
     */
    static void interruptForeign(PreparedStatement ps, String reason, long nowMs, long id, long claimEpoch,
                                 Fence.Binder fence) throws SQLException {
        InstanceTransition t = InstanceTransition.INTERRUPT;
        ps.setString(1, t.to().name());
        JdbcValues.setString(ps, 2, reason);
        ps.setLong(3, nowMs);
        ps.setLong(4, id);
        ps.setString(5, t.from().name());
        ps.setLong(6, claimEpoch);
        fence.bind(ps, 7);
    }
}
