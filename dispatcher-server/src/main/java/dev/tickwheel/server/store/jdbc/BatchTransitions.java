package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceTransition;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.TreeSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Status changes of many instances in one statement each: the batched claim that returns the claimed rows, the
 * batched call-started mark, and the batched success. Each is the single-row compare-and-set ({@link InstanceSql#CLAIM}, {@link InstanceSql#FINISH})
 * applied to a set of ids ({@code WHERE id = ANY(?) AND status = <from>}): the database moves a row only if it is still in the expected
 * status, under the row's lock, so of any number of racing statements (batched or not, on any node) exactly one
 * moves it, and the statement reports which rows it moved ({@code RETURNING} on PostgreSQL). H2's {@code FINAL TABLE}
 * is not exact under races (see {@link SqlDialect#batchedCompareAndSetIsExact()}), so on H2 each id gets its own
 * single-row compare-and-set, sent as one JDBC batch. A cancelled instance is CANCELLED, not WAITING, so no claim can
 * take it.
 *
 * <p>Thread-safe: every call runs on its own pooled connection, in auto-commit mode (on H2, each chunk's row-by-row
 * batch in one transaction).
 *
 * <p>Caveats: ids are split into statements of at most {@link InstanceTransitions#CLAIM_CHUNK}; a failure part-way
 * leaves earlier chunks applied (claims so left are settled by start-up recovery like any interrupted dispatch).
 */
final class BatchTransitions {

    private final TransactionRunner runner;
    private final InstanceSql sql;
    private final Clock clock;
    private final boolean batchedCasIsExact;

    BatchTransitions(TransactionRunner runner, InstanceSql sql, SqlDialect dialect, Clock clock) {
        this.runner = runner;
        this.sql = sql;
        this.clock = clock;
        this.batchedCasIsExact = dialect.batchedCompareAndSetIsExact();
    }

    List<Instance> claimBatch(Collection<Long> instanceIds, Instant now) {
        Objects.requireNonNull(now, "now");
        // Ascending ids: racing batches lock rows in one order, so they cannot deadlock (H2 runs a batch as one unit).
        List<Long> ids = new ArrayList<>(new TreeSet<>(instanceIds));
        List<Instance> claimed = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += InstanceTransitions.CLAIM_CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + InstanceTransitions.CLAIM_CHUNK));
            claimed.addAll(claimChunk(chunk, now.toEpochMilli()));
        }
        return claimed;
    }

    private List<Instance> claimChunk(List<Long> ids, long nowMs) {
        if (!batchedCasIsExact) {
            return claimRowByRow(ids, nowMs);
        }
        return runner.autoCommit("claim " + ids.size() + " instances", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.claimAllReturningRows)) {
                TransitionBinding.claim(ps, nowMs,
                        TransitionBinding.ids(connection.createArrayOf("bigint", ids.toArray(new Long[0]))));
                List<Instance> claimed = new ArrayList<>(ids.size());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claimed.add(InstanceRowMapper.read(rs));
                    }
                }
                return claimed;
            }
        });
    }

    /**
     * The fallback for databases whose multi-row compare-and-set is not exact under races (H2): one single-row
     * {@link InstanceSql#CLAIM} per id in one transaction ({@link RowByRowCas}), whose per-statement counts say which
     * ids this call won; then one read of the won rows. Only their claimant moves DISPATCHING rows on, so the read
     * sees the claim.
     */
    private List<Instance> claimRowByRow(List<Long> ids, long nowMs) {
        return runner.inTransaction("claim " + ids.size() + " instances one by one", connection -> {
            Set<Long> won = RowByRowCas.apply(connection, ids, InstanceSql.CLAIM,
                    (ps, id) -> TransitionBinding.claim(ps, nowMs, TransitionBinding.id(id)));
            List<Instance> claimed = new ArrayList<>(won.size());
            if (won.isEmpty()) {
                return claimed;
            }
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_BY_IDS)) {
                ps.setArray(1, connection.createArrayOf("bigint", won.toArray(new Long[0])));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claimed.add(InstanceRowMapper.read(rs));
                    }
                }
            }
            return claimed;
        });
    }

    /**
     * Sets the call-started mark of the given rows that are still DISPATCHING. A plain multi-row update: no row is
     * reported back, so H2's inexact FINAL TABLE is not involved.
     */
    void markCallStarted(Collection<Long> instanceIds, Instant now) {
        List<Long> ids = new ArrayList<>(new TreeSet<>(instanceIds));
        for (int from = 0; from < ids.size(); from += InstanceTransitions.CLAIM_CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + InstanceTransitions.CLAIM_CHUNK));
            runner.autoCommit("mark the calls of " + chunk.size() + " instances started", connection -> {
                try (PreparedStatement ps = connection.prepareStatement(InstanceSql.MARK_CALL_STARTED)) {
                    ps.setLong(1, now.toEpochMilli());
                    ps.setArray(2, connection.createArrayOf("bigint", chunk.toArray(new Long[0])));
                    ps.setString(3, InstanceTransition.CLAIM.to().name());
                    return ps.executeUpdate();
                }
            });
        }
    }

    Set<Long> markAllSucceeded(Collection<Long> instanceIds) {
        List<Long> ids = new ArrayList<>(new TreeSet<>(instanceIds));
        Set<Long> moved = new HashSet<>();
        for (int from = 0; from < ids.size(); from += InstanceTransitions.CLAIM_CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + InstanceTransitions.CLAIM_CHUNK));
            moved.addAll(succeedChunk(chunk));
        }
        return moved;
    }

    private Set<Long> succeedChunk(List<Long> ids) {
        InstanceTransition t = InstanceTransition.SUCCEED;
        long nowMs = clock.millis();
        if (!batchedCasIsExact) {
            return succeedRowByRow(ids, nowMs);
        }
        return runner.autoCommit("succeed " + ids.size() + " instances", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.finishAllReturningIds)) {
                TransitionBinding.finish(ps, t, null, nowMs,
                        TransitionBinding.ids(connection.createArrayOf("bigint", ids.toArray(new Long[0]))));
                Set<Long> moved = new HashSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        moved.add(rs.getLong(1));
                    }
                }
                return moved;
            }
        });
    }

    /** The fallback of {@link #claimRowByRow} for successes: one single-row {@link InstanceSql#FINISH} per id. */
    private Set<Long> succeedRowByRow(List<Long> ids, long nowMs) {
        InstanceTransition t = InstanceTransition.SUCCEED;
        return runner.inTransaction("succeed " + ids.size() + " instances one by one", connection ->
                RowByRowCas.apply(connection, ids, InstanceSql.FINISH,
                        (ps, id) -> TransitionBinding.finish(ps, t, null, nowMs, TransitionBinding.id(id))));
    }
}
