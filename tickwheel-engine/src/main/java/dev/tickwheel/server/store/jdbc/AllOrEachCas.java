package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Changes a set of rows with one multi-row compare-and-set ({@code UPDATE ... WHERE id = ANY(?) AND status = ?})
 * where the database cannot say which rows it changed (H2: see {@link SqlDialect#batchedCompareAndSetIsExact()}), by
 * its update count: if the statement changed as many rows as it was given distinct ids, it changed every one of them,
 * since each id names at most one row and a statement changes a row at most once. Then the whole set is the answer
 * (after an optional check of the changed rows, see {@link Check}). Otherwise the statement is undone (rolled back to
 * a savepoint taken just before it) and the rows are changed one compare-and-set each ({@link RowByRowCas}), whose
 * per-row counts say exactly which changed.
 *
 * <p>Why this is exact under races: the plain multi-row {@code UPDATE} re-checks its condition on the newest version
 * of each row once it holds the row's lock (what made H2's {@code FINAL TABLE} unsafe was the set it reported, not
 * the rows it changed), and the update count counts the rows it changed. A row another transaction moved first is not
 * changed, the count comes short, and the row-by-row fallback runs. The rows changed stay locked by this transaction
 * until it ends, so a read of them inside it sees this transaction's change and no other. In the dispatcher's normal
 * flow a batch's rows are all still in the expected status (only a cancel, a reschedule or a lost lease between the
 * fire and the claim makes one fall out), so the fallback is rare, and a batch costs one statement instead of one per
 * row.
 *
 * <p>Must run inside a transaction ({@link TransactionRunner#inTransaction}); a savepoint (not a rollback) undoes the
 * set statement, so a caller's own transaction that the work joined keeps its earlier work. Rows are visited in
 * ascending id order by both statements, so racing calls take row locks in one order and cannot deadlock.
 *
 * <p>Stateless; thread-safe.
 */
final class AllOrEachCas {

    /** Binds the parameters of the multi-row statement for the given ids (ascending, distinct). */
    @FunctionalInterface
    interface SetBinder {
        void bind(PreparedStatement ps, Long[] ids) throws SQLException;
    }

    /**
     * A further condition on the changed rows, read inside the transaction after the set statement changed all of
     * them: false undoes the set statement and the rows go row by row.
     */
    @FunctionalInterface
    interface Check {
        boolean holds(Connection connection) throws SQLException;
    }

    private AllOrEachCas() {
    }

    /**
     * Runs {@code setSql} over {@code ids}; if it changed every row and {@code check} holds, returns all ids;
     * otherwise undoes it and returns the ids {@code singleRowSql} changed, one per row.
     */
    static Set<Long> apply(Connection connection, List<Long> ids, String setSql, SetBinder setBinder, Check check,
                           String singleRowSql, RowByRowCas.RowBinder rowBinder) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("AllOrEachCas must run inside a transaction, not in auto-commit mode");
        }
        TreeSet<Long> distinct = new TreeSet<>(ids);
        if (distinct.isEmpty()) {
            return distinct;
        }
        Savepoint before = connection.setSavepoint();
        int changed;
        try (PreparedStatement ps = connection.prepareStatement(setSql)) {
            setBinder.bind(ps, distinct.toArray(new Long[0]));
            changed = ps.executeUpdate();
        }
        if (changed == distinct.size() && check.holds(connection)) {
            connection.releaseSavepoint(before);
            return distinct;
        }
        connection.rollback(before);
        return RowByRowCas.apply(connection, new ArrayList<>(distinct), singleRowSql, rowBinder);
    }
}
