package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceTransition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Status changes of many instances in one statement each: the batched claim that returns the claimed rows, the
 * batched call-started mark, and the batched success. Each is the single-row compare-and-set ({@link InstanceSql#claim},
 * {@link InstanceSql#FINISH}, {@link InstanceSql#MARK_CALL_STARTED}) applied to a set of ids
 * ({@code WHERE id = ANY(?) AND status = <from>}), fenced in the same statement like the single-row form (the claim by
 * an unexpired lease of this member, the others by the claim's epoch; see {@link InstanceSql}): the database moves a
 * row only if it is still in the expected status, under the row's lock, so of any number of racing statements
 * (batched or not, on any node) exactly one moves it, and the statement reports which rows it moved
 * ({@code RETURNING} on PostgreSQL). H2's {@code FINAL TABLE} is not exact under races (see
 * {@link SqlDialect#batchedCompareAndSetIsExact()}), so on H2 each id gets its own single-row compare-and-set, sent
 * as one JDBC batch. A cancelled instance is CANCELLED, not WAITING, so no claim can take it.
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
    private final Fence fence;
    private final Fence.Binder claimEpochHeld;

    BatchTransitions(TransactionRunner runner, InstanceSql sql, SqlDialect dialect, Clock clock, Fence fence) {
        this.runner = runner;
        this.sql = sql;
        this.clock = clock;
        this.batchedCasIsExact = dialect.batchedCompareAndSetIsExact();
        this.fence = fence;
        this.claimEpochHeld = fence.claimEpochHeld();
    }

    /**
     * Claims the instances of {@code armedForMs} (id → the time its timer was armed for, epoch ms) whose due time is
     * not after that time (see {@link InstanceSql}).
     */
    List<Instance> claimBatch(Map<Long, Long> armedForMs, Instant now) {
        Objects.requireNonNull(now, "now");
        // Ascending ids: racing batches lock rows in one order, so they cannot deadlock (H2 runs a batch as one unit).
        List<Map.Entry<Long, Long>> ids = new ArrayList<>(new TreeMap<>(armedForMs).entrySet());
        List<Instance> claimed = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += InstanceTransitions.CLAIM_CHUNK) {
            List<Map.Entry<Long, Long>> chunk = ids.subList(from,
                    Math.min(ids.size(), from + InstanceTransitions.CLAIM_CHUNK));
            claimed.addAll(claimChunk(chunk, now.toEpochMilli()));
        }
        return claimed;
    }

    private List<Instance> claimChunk(List<Map.Entry<Long, Long>> chunk, long nowMs) {
        Long[] ids = new Long[chunk.size()];
        Long[] armedFor = new Long[chunk.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = chunk.get(i).getKey();
            armedFor[i] = chunk.get(i).getValue();
        }
        if (!batchedCasIsExact) {
            return runner.inTransaction("claim " + ids.length + " instances one by one",
                    connection -> claimOn(connection, ids, armedFor, nowMs));
        }
        return runner.autoCommit("claim " + ids.length + " instances",
                connection -> claimOn(connection, ids, armedFor, nowMs));
    }

    /**
     * Claims one chunk on {@code connection} (ids ascending, each with the time its timer was armed for): on
     * PostgreSQL one {@link InstanceSql#claimAllReturningRows} in the connection's auto-commit mode; on H2 (see
     * {@link #setsNeedTransaction}) one single-row {@link InstanceSql#claim} per id in one JDBC batch
     * ({@link RowByRowCas}), whose per-statement counts say which ids this call won, then one read of the won rows
     * (only their claimant moves DISPATCHING rows on, so the read sees the claim), inside the caller's transaction.
     */
    List<Instance> claimOn(Connection connection, Long[] ids, Long[] armedFor, long nowMs) throws SQLException {
        if (!batchedCasIsExact) {
            return claimRowByRow(connection, ids, armedFor, nowMs);
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.claimAllReturningRows)) {
            TransitionBinding.claim(ps, nowMs,
                    TransitionBinding.ids(connection.createArrayOf("bigint", ids)),
                    TransitionBinding.ids(connection.createArrayOf("bigint", armedFor)), fence);
            List<Instance> claimed = new ArrayList<>(ids.length);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(InstanceRowMapper.read(rs));
                }
            }
            return claimed;
        }
    }

    /** The fallback where a multi-row compare-and-set is not exact under races (H2); see {@link #claimOn}. */
    private List<Instance> claimRowByRow(Connection connection, Long[] ids, Long[] armedForMs, long nowMs)
            throws SQLException {
        Map<Long, Long> armedFor = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            armedFor.put(ids[i], armedForMs[i]);
        }
        Set<Long> won = RowByRowCas.apply(connection, List.of(ids), sql.claim,
                (ps, id) -> TransitionBinding.claim(ps, nowMs, TransitionBinding.id(id),
                        TransitionBinding.id(armedFor.get(id)), fence));
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
    }

    /**
     * Whether {@link #claimOn} and {@link #succeedOn} must run inside a transaction (H2's row-by-row batches, which
     * {@link RowByRowCas} requires) rather than in auto-commit mode (PostgreSQL's single statements).
     */
    boolean setsNeedTransaction() {
        return !batchedCasIsExact;
    }

    /**
     * Sets the call-started mark of the given rows that are still DISPATCHING under an epoch this member holds, and
     * returns their ids: a call whose mark was refused must not start.
     */
    Set<Long> markCallStarted(Collection<Long> instanceIds, Instant now) {
        long startedMs = now.toEpochMilli();
        List<Long> ids = new ArrayList<>(new TreeSet<>(instanceIds));
        Set<Long> marked = new HashSet<>();
        for (int from = 0; from < ids.size(); from += InstanceTransitions.CLAIM_CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + InstanceTransitions.CLAIM_CHUNK));
            marked.addAll(markCallStartedChunk(chunk, startedMs));
        }
        return marked;
    }

    private Set<Long> markCallStartedChunk(List<Long> ids, long startedMs) {
        if (!batchedCasIsExact) {
            return runner.inTransaction("mark the calls of " + ids.size() + " instances started one by one",
                    connection -> RowByRowCas.apply(connection, ids, InstanceSql.MARK_CALL_STARTED,
                            (ps, id) -> TransitionBinding.markCallStarted(ps, startedMs, TransitionBinding.id(id),
                                    claimEpochHeld)));
        }
        return runner.autoCommit("mark the calls of " + ids.size() + " instances started", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.markCallStartedAllReturningIds)) {
                TransitionBinding.markCallStarted(ps, startedMs,
                        TransitionBinding.ids(connection.createArrayOf("bigint", ids.toArray(new Long[0]))),
                        claimEpochHeld);
                return readIds(ps);
            }
        });
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

    /**
     * DISPATCHING → SUCCEEDED with each instance's output: one {@link InstanceSql#SUCCEED_WITH_OUTPUT} per row in one
     * JDBC batch and one transaction (rows with outputs are the few that answered with one, so no array form).
     */
    Set<Long> markAllSucceeded(Map<Long, String> outputs) {
        long nowMs = clock.millis();
        return runner.inTransaction("succeed " + outputs.size() + " instances with outputs",
                connection -> RowByRowCas.apply(connection, List.copyOf(outputs.keySet()),
                        InstanceSql.SUCCEED_WITH_OUTPUT, (ps, id) -> TransitionBinding.succeedWithOutput(ps,
                                outputs.get(id), nowMs, id, claimEpochHeld)));
    }

    private Set<Long> succeedChunk(List<Long> ids) {
        long nowMs = clock.millis();
        Long[] chunk = ids.toArray(new Long[0]);
        if (!batchedCasIsExact) {
            return runner.inTransaction("succeed " + ids.size() + " instances one by one",
                    connection -> succeedOn(connection, chunk, nowMs));
        }
        return runner.autoCommit("succeed " + ids.size() + " instances",
                connection -> succeedOn(connection, chunk, nowMs));
    }

    /**
     * Moves one chunk of ids (ascending) DISPATCHING → SUCCEEDED on {@code connection} and returns the ids it moved:
     * on PostgreSQL one {@link InstanceSql#FINISH_ALL} returning the ids, in auto-commit mode; on H2 one single-row
     * {@link InstanceSql#FINISH} per id in one JDBC batch, inside the caller's transaction (see {@link #claimOn}).
     */
    Set<Long> succeedOn(Connection connection, Long[] ids, long nowMs) throws SQLException {
        InstanceTransition t = InstanceTransition.SUCCEED;
        if (!batchedCasIsExact) {
            return RowByRowCas.apply(connection, List.of(ids), InstanceSql.FINISH,
                    (ps, id) -> TransitionBinding.finish(ps, t, null, nowMs, TransitionBinding.id(id),
                            claimEpochHeld));
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.finishAllReturningIds)) {
            TransitionBinding.finish(ps, t, null, nowMs,
                    TransitionBinding.ids(connection.createArrayOf("bigint", ids)), claimEpochHeld);
            return readIds(ps);
        }
    }

    private static Set<Long> readIds(PreparedStatement ps) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
