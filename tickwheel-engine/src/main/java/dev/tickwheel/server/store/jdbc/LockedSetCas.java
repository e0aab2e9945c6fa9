package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.InstanceStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Moves a set of instances from one status to another with one multi-row statement, on a database whose multi-row
 * compare-and-set cannot report the rows it changed (H2: see {@link SqlDialect#batchedCompareAndSetIsExact()}), and
 * says exactly which rows it moved. In one transaction:
 *
 * <ol>
 *   <li>lock the rows ({@link #LOCK}: {@code SELECT ... WHERE id = ANY(?) FOR UPDATE}, by primary key, ascending);</li>
 *   <li>keep those the caller's predicate accepts (in the expected status, and for a claim due by the time its timer
 *       was armed for): the <em>eligible</em> rows;</li>
 *   <li>run the multi-row compare-and-set over the eligible ids (the status condition and the fence stay in it);</li>
 *   <li>if its update count is the number of eligible rows, it moved every one; otherwise (a fence refused some) read
 *       the eligible rows again and keep those now in the target status.</li>
 * </ol>
 *
 * <p>Why this is exact under races: H2's {@code FOR UPDATE} waits for the lock of each row and returns the row's
 * newest committed version (it re-reads a row that changed while it waited), and from then until this transaction
 * ends no other transaction can change the row. So an eligible row was in the expected status when this transaction
 * locked it, and if it is in the target status afterwards, this transaction moved it; a row another transaction
 * moved first is not eligible. No step needs undoing, so none of H2's savepoint rollbacks are involved (under
 * concurrent lock waits H2 2.3 left a transaction rolled back to a savepoint in status ROLLING_BACK).
 *
 * <p>Rows are locked in ascending id order, by this and by the row-by-row fallbacks ({@link RowByRowCas}), so racing
 * calls cannot deadlock. Costs four statements at most, whatever the number of rows, where one compare-and-set per
 * row cost one statement execution per row.
 *
 * <p>Must run inside a transaction ({@link TransactionRunner#inTransaction}). Stateless; thread-safe.
 */
final class LockedSetCas {

    /**
     * Parameters: ids (BIGINT array). Served by the primary key: no status condition here, which would make H2 2.3
     * walk the status index instead (see {@link InstanceSql#FINISH_ALL_BY_PRIMARY_KEY}).
     */
    static final String LOCK = "SELECT id, status, expected_trigger_time_ms FROM tw_instance WHERE id = ANY(?)"
            + " FOR UPDATE";

    /** A locked row: what the eligibility predicate may look at. */
    record LockedRow(long id, InstanceStatus status, long expectedTriggerTimeMs) {
    }

    /** Binds the parameters of the multi-row statement for the given ids (ascending, distinct). */
    @FunctionalInterface
    interface SetBinder {
        void bind(PreparedStatement ps, Long[] ids) throws SQLException;
    }

    private LockedSetCas() {
    }

    /**
     * Locks the rows of {@code ids}, runs {@code setSql} over the eligible ones, and returns the ids it moved to
     * {@code to}.
     */
    static Set<Long> apply(Connection connection, List<Long> ids, Predicate<LockedRow> eligible, String setSql,
                           SetBinder binder, InstanceStatus to) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("LockedSetCas must run inside a transaction, not in auto-commit mode");
        }
        TreeSet<Long> candidates = new TreeSet<>();
        for (LockedRow row : lock(connection, new TreeSet<>(ids))) {
            if (eligible.test(row)) {
                candidates.add(row.id());
            }
        }
        if (candidates.isEmpty()) {
            return candidates;
        }
        int moved;
        try (PreparedStatement ps = connection.prepareStatement(setSql)) {
            binder.bind(ps, candidates.toArray(new Long[0]));
            moved = ps.executeUpdate();
        }
        if (moved == candidates.size()) {
            return candidates;
        }
        Set<Long> movedIds = new HashSet<>();
        for (LockedRow row : lock(connection, candidates)) {
            if (row.status() == to) {
                movedIds.add(row.id());
            }
        }
        return movedIds;
    }

    private static List<LockedRow> lock(Connection connection, TreeSet<Long> ids) throws SQLException {
        List<LockedRow> rows = new ArrayList<>(ids.size());
        try (PreparedStatement ps = connection.prepareStatement(LOCK)) {
            ps.setArray(1, connection.createArrayOf("bigint", ids.toArray(new Long[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new LockedRow(rs.getLong(1), InstanceStatus.valueOf(rs.getString(2)), rs.getLong(3)));
                }
            }
        }
        return rows;
    }
}
