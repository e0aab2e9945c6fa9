package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.NewInstance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Inserts waiting instances unless a row with the same unique key exists, and says which it inserted: one multi-row
 * {@code INSERT ... ON CONFLICT DO NOTHING RETURNING id} per {@code rowsPerInsert} rows where the dialect has it
 * (PostgreSQL), else a JDBC batch of single-row inserts-if-absent whose per-row update counts say the same (H2's
 * {@code MERGE}). The key is the schedule slot (job, scheduled trigger time) for the loader's instances, the run key
 * (job, key) for on-demand runs.
 *
 * <p>Immutable; thread-safe. Runs inside a transaction the caller owns.
 */
final class InsertIfAbsent {

    private final SqlDialect dialect;
    private final List<String> keyColumns;
    private final String keyPredicate;
    private final boolean scheduled;
    private final int rowsPerInsert;
    private final String singleRow;

    /**
     * @param keyColumns    the unique key's columns
     * @param keyPredicate  the predicate of a partial unique index, or null
     * @param scheduled     true for instances that fill a schedule slot, false for on-demand runs
     * @param rowsPerInsert rows per multi-row statement: 14 parameters a row, under PostgreSQL's 65 535
     */
    InsertIfAbsent(SqlDialect dialect, List<String> keyColumns, String keyPredicate, boolean scheduled,
                   int rowsPerInsert) {
        this.dialect = dialect;
        this.keyColumns = List.copyOf(keyColumns);
        this.keyPredicate = keyPredicate;
        this.scheduled = scheduled;
        this.rowsPerInsert = rowsPerInsert;
        this.singleRow = dialect.insertIfAbsent("tw_instance", InstanceSql.INSERT_COLUMNS, keyColumns, keyPredicate);
    }

    /** Inserts what is absent, in the order given, each in the shard {@code shards} names; returns the ids inserted. */
    Set<Long> insert(Connection connection, List<NewInstance> instances, long nowMs, ToIntFunction<NewInstance> shards)
            throws SQLException {
        Set<Long> inserted = new HashSet<>();
        for (int from = 0; from < instances.size(); from += rowsPerInsert) {
            List<NewInstance> chunk = instances.subList(from, Math.min(instances.size(), from + rowsPerInsert));
            Optional<String> multiRow = dialect.insertIfAbsentReturningIds("tw_instance", InstanceSql.INSERT_COLUMNS,
                    keyColumns, keyPredicate, chunk.size());
            if (multiRow.isPresent()) {
                insertMultiRow(connection, multiRow.get(), chunk, nowMs, shards, inserted);
            } else {
                insertBatched(connection, chunk, nowMs, shards, inserted);
            }
        }
        return inserted;
    }

    private void insertMultiRow(Connection connection, String statement, List<NewInstance> chunk, long nowMs,
                                ToIntFunction<NewInstance> shards, Set<Long> inserted) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(statement)) {
            int columns = InstanceSql.INSERT_COLUMNS.size();
            for (int row = 0; row < chunk.size(); row++) {
                NewInstance instance = chunk.get(row);
                InstanceRowMapper.bindInsert(ps, row * columns, instance, scheduled, nowMs,
                        shards.applyAsInt(instance));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    inserted.add(rs.getLong(1));
                }
            }
        }
    }

    private void insertBatched(Connection connection, List<NewInstance> chunk, long nowMs,
                               ToIntFunction<NewInstance> shards, Set<Long> inserted) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(singleRow)) {
            for (NewInstance instance : chunk) {
                InstanceRowMapper.bindInsert(ps, instance, scheduled, nowMs, shards.applyAsInt(instance));
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < chunk.size(); i++) {
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    // pgjdbc's reWriteBatchedInserts=true reports this; without per-row counts we cannot say which
                    // rows were skipped, and guessing would break the no-duplicates promise.
                    throw new IllegalStateException("the JDBC driver reported no per-row update counts for a"
                            + " batched insert; remove reWriteBatchedInserts=true from the JDBC URL");
                }
                if (counts[i] == 1) {
                    inserted.add(chunk.get(i).id());
                }
            }
        }
    }
}
