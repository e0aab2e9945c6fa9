package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.instance.RescheduleOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The caller's moves of WAITING rows, many at a time: cancel a set of instances (WAITING → CANCELLED) and move one to
 * another due time (WAITING → WAITING). Unfenced, like every move of a waiting row: any member may make them, and the
 * status compare-and-set alone keeps them from racing a claim (a reschedule also changes what a claim accepts, see
 * {@link InstanceSql}).
 *
 * <p>A set cancel is one transaction: one compare-and-set statement over the set ({@code RETURNING} the ids it moved on
 * PostgreSQL; one compare-and-set per row on H2, see {@link RowByRowCas}), then one read of the statuses of the rest, to
 * say why each was refused. A refused row read as WAITING again (it was DISPATCHING at the compare-and-set and a retry
 * has since sent it back) is tried again, up to {@value #ATTEMPTS} times; after that it is reported
 * ALREADY_DISPATCHED, which each compare-and-set saw.
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class WaitingMoves {

    private static final int ATTEMPTS = 3;
    /** Parameters: to, updated at, ids (BIGINT array), from. Wrapped to return the ids it moved. */
    private static final String CANCEL_ALL = "UPDATE tw_instance SET status = ?, updated_at_ms = ?"
            + " WHERE id = ANY(?) AND status = ?";
    /** Parameters: ids (BIGINT array). */
    private static final String SELECT_STATUSES = "SELECT id, status FROM tw_instance WHERE id = ANY(?)";
    /** Parameters: expected trigger, updated at, id, status (WAITING). The due time only. */
    private static final String RESCHEDULE = "UPDATE tw_instance SET expected_trigger_time_ms = ?, updated_at_ms = ?"
            + " WHERE id = ? AND status = ?";
    /** Parameters: expected trigger, params, updated at, id, status (WAITING). The due time and the params. */
    private static final String RESCHEDULE_WITH_PARAMS = "UPDATE tw_instance SET expected_trigger_time_ms = ?,"
            + " params = ?, updated_at_ms = ? WHERE id = ? AND status = ?";

    private final TransactionRunner runner;
    private final Clock clock;
    private final boolean batchedCasIsExact;
    private final String cancelAllReturningIds;

    WaitingMoves(TransactionRunner runner, SqlDialect dialect, Clock clock) {
        this.runner = runner;
        this.clock = clock;
        this.batchedCasIsExact = dialect.batchedCompareAndSetIsExact();
        this.cancelAllReturningIds = dialect.updateReturningIds(CANCEL_ALL);
    }

    /** One result per distinct id, in the order of first appearance. */
    List<CancelResult> cancelAll(List<Long> instanceIds) {
        Set<Long> distinct = new LinkedHashSet<>(instanceIds);
        if (distinct.isEmpty()) {
            return List.of();
        }
        long nowMs = clock.millis();
        Map<Long, CancelResult> results = runner.inTransaction("cancel " + distinct.size() + " instances",
                connection -> cancelAll(connection, distinct, nowMs));
        List<CancelResult> ordered = new ArrayList<>(distinct.size());
        distinct.forEach(id -> ordered.add(results.get(id)));
        return ordered;
    }

    private Map<Long, CancelResult> cancelAll(Connection connection, Set<Long> ids, long nowMs) throws SQLException {
        Map<Long, CancelResult> results = new HashMap<>();
        Set<Long> open = new TreeSet<>(ids);
        for (int attempt = 0; attempt < ATTEMPTS && !open.isEmpty(); attempt++) {
            for (long id : cancelWaiting(connection, open, nowMs)) {
                results.put(id, new CancelResult(id, CancelOutcome.CANCELLED, InstanceStatus.CANCELLED));
                open.remove(id);
            }
            if (open.isEmpty()) {
                break;
            }
            Map<Long, InstanceStatus> seen = readStatuses(connection, open);
            Set<Long> waitingAgain = new TreeSet<>();
            for (long id : open) {
                InstanceStatus status = seen.get(id);
                if (status == null) {
                    results.put(id, CancelResult.unknown(id));
                } else if (status == InstanceStatus.WAITING) {
                    waitingAgain.add(id);
                } else {
                    results.put(id, new CancelResult(id, CancelOutcome.refusedIn(status), status));
                }
            }
            open = waitingAgain;
        }
        // Waiting at every read, yet never at a compare-and-set: retried in a tight loop; each CAS saw it claimed.
        for (long id : open) {
            results.put(id, new CancelResult(id, CancelOutcome.ALREADY_DISPATCHED, InstanceStatus.WAITING));
        }
        return results;
    }

    private Set<Long> cancelWaiting(Connection connection, Set<Long> ids, long nowMs) throws SQLException {
        InstanceTransition t = InstanceTransition.CANCEL;
        if (!batchedCasIsExact) {
            return RowByRowCas.apply(connection, new ArrayList<>(ids), InstanceSql.CANCEL,
                    (ps, id) -> TransitionBinding.move(ps, t, nowMs, TransitionBinding.id(id), Fence.NONE));
        }
        Set<Long> moved = new HashSet<>();
        try (PreparedStatement ps = connection.prepareStatement(cancelAllReturningIds)) {
            TransitionBinding.move(ps, t, nowMs,
                    TransitionBinding.ids(connection.createArrayOf("bigint", ids.toArray(new Long[0]))), Fence.NONE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    moved.add(rs.getLong(1));
                }
            }
        }
        return moved;
    }

    private static Map<Long, InstanceStatus> readStatuses(Connection connection, Set<Long> ids) throws SQLException {
        Map<Long, InstanceStatus> statuses = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(SELECT_STATUSES)) {
            ps.setArray(1, connection.createArrayOf("bigint", ids.toArray(new Long[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(rs.getLong(1), InstanceStatus.valueOf(rs.getString(2)));
                }
            }
        }
        return statuses;
    }

    /**
     * WAITING → WAITING due at {@code dueAt}, with {@code params} if {@code replaceParams}; then the row as it is.
     * A refused row read as WAITING again is tried again, as for a cancel.
     */
    RescheduleOutcome reschedule(long instanceId, Instant dueAt, boolean replaceParams, String params) {
        long dueMs = dueAt.toEpochMilli();
        long nowMs = clock.millis();
        return runner.inTransaction("reschedule instance " + instanceId, connection -> {
            Instance seen = null;
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                try (PreparedStatement ps = connection.prepareStatement(
                        replaceParams ? RESCHEDULE_WITH_PARAMS : RESCHEDULE)) {
                    int i = 1;
                    ps.setLong(i++, dueMs);
                    if (replaceParams) {
                        JdbcValues.setString(ps, i++, params);
                    }
                    ps.setLong(i++, nowMs);
                    ps.setLong(i++, instanceId);
                    ps.setString(i, InstanceStatus.WAITING.name());
                    boolean moved = ps.executeUpdate() == 1;
                    seen = read(connection, instanceId);
                    if (moved) {
                        return new RescheduleOutcome(RescheduleOutcome.Kind.RESCHEDULED, seen);
                    }
                }
                if (seen == null) {
                    return new RescheduleOutcome(RescheduleOutcome.Kind.UNKNOWN, null);
                }
                if (seen.status() != InstanceStatus.WAITING) {
                    return RescheduleOutcome.refused(seen);
                }
            }
            return new RescheduleOutcome(RescheduleOutcome.Kind.ALREADY_DISPATCHED, seen);
        });
    }

    private static Instance read(Connection connection, long instanceId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_BY_ID)) {
            ps.setLong(1, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? InstanceRowMapper.read(rs) : null;
            }
        }
    }
}
