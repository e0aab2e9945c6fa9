package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies one single-row compare-and-set statement to many rows in one batch, and reports which rows it changed
 * (update count 1). The fallback for databases without a safe update-returning statement (see {@link H2Dialect}).
 *
 * <p>Must run inside a transaction ({@link TransactionRunner#inTransaction}): then a failure part-way rolls the
 * whole set back and a retry cannot lose track of rows an earlier attempt changed. Rows are visited in ascending id
 * order, so two such calls over overlapping sets take their row locks in the same order and cannot deadlock.
 *
 * <p>Stateless; thread-safe.
 */
final class RowByRowCas {

    /** Binds the parameters of the single-row statement for one id. */
    @FunctionalInterface
    interface RowBinder {
        void bind(PreparedStatement ps, long id) throws SQLException;
    }

    private RowByRowCas() {
    }

    /** Runs {@code singleRowSql} once per id (ascending) in one batch; returns the ids it changed. */
    static Set<Long> apply(Connection connection, List<Long> ids, String singleRowSql, RowBinder binder)
            throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("RowByRowCas must run inside a transaction, not in auto-commit mode");
        }
        List<Long> ordered = new ArrayList<>(ids);
        ordered.sort(null);
        Set<Long> changed = new HashSet<>();
        if (ordered.isEmpty()) {
            return changed;
        }
        try (PreparedStatement ps = connection.prepareStatement(singleRowSql)) {
            for (long id : ordered) {
                binder.bind(ps, id);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] < 0) {
                    throw new IllegalStateException("the JDBC driver reported no update count for row "
                            + ordered.get(i) + ": " + counts[i]);
                }
                if (counts[i] == 1) {
                    changed.add(ordered.get(i));
                }
            }
        }
        return changed;
    }
}
