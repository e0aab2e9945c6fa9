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
 * Inserts waiting instances unless an instance with the same unique key exists, and says which it inserted. The key
 * is the schedule slot (job, scheduled trigger time) for the loader's instances, the run key (job, key) for on-demand
 * runs ({@link InstanceSql.UniqueKey}).
 *
 * <ul>
 *   <li>PostgreSQL ({@link SqlDialect#partitionsHistory()}): one statement per {@code rowsPerInsert} rows, which
 *       inserts the keys into their table with {@code ON CONFLICT DO NOTHING}, then the instances whose key was new
 *       (or null), and returns their ids ({@link SqlDialect#insertIfAbsentReturningIds}).</li>
 *   <li>H2: a JDBC batch of single-row inserts-if-absent into {@code tw_instance}, whose unique indexes hold the keys,
 *       and whose per-row update counts say which were inserted ({@code MERGE}).</li>
 * </ul>
 *
 * <p>Immutable; thread-safe. Runs inside a transaction the caller owns.
 */
final class InsertIfAbsent {

    private final SqlDialect dialect;
    private final InstanceSql.UniqueKey key;
    private final boolean scheduled;
    private final int rowsPerInsert;
    private final String singleRow;

    /**
     * @param key           the unique key
     * @param scheduled     true for instances that fill a schedule slot, false for on-demand runs
     * @param rowsPerInsert rows per multi-row statement: 14 parameters a row, under PostgreSQL's 65 535
     */
    InsertIfAbsent(SqlDialect dialect, InstanceSql.UniqueKey key, boolean scheduled, int rowsPerInsert) {
        this.dialect = dialect;
        this.key = key;
        this.scheduled = scheduled;
        this.rowsPerInsert = rowsPerInsert;
        this.singleRow = dialect.insertIfAbsent("tw_instance", InstanceSql.INSERT_COLUMNS, key.columns());
    }

    /** Inserts what is absent, in the order given, each in the shard {@code shards} names; returns the ids inserted. */
    Set<Long> insert(Connection connection, List<NewInstance> instances, long nowMs, ToIntFunction<NewInstance> shards)
            throws SQLException {
        Set<Long> inserted = new HashSet<>();
        for (int from = 0; from < instances.size(); from += rowsPerInsert) {
            List<NewInstance> chunk = instances.subList(from, Math.min(instances.size(), from + rowsPerInsert));
            Optional<String> multiRow = dialect.insertIfAbsentReturningIds("tw_instance", InstanceSql.INSERT_COLUMNS,
                    key.table(), key.columns(), chunk.size());
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
