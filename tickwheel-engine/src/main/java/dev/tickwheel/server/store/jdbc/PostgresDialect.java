package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

/**
 * PostgreSQL spellings: {@code INSERT ... ON CONFLICT (key) DO NOTHING} and {@code UPDATE ... RETURNING}, and multi-row
 * inserts of instances that record their unique keys in the key tables of the partitioned history and return the ids
 * they inserted.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: naming the conflict target matters: a bare {@code ON CONFLICT DO NOTHING} would also swallow a
 * primary-key collision, hiding a caller that reused an id.
 */
final class PostgresDialect implements SqlDialect {

    @Override
    public String name() {
        return "postgresql";
    }

    /**
     * {@code clock_timestamp()}, not {@code now()}: {@code now()} is when the transaction began, and a statement that
     * waited for a row lock must judge a lease by the time it actually checks it. Floored, so the database's now is
     * never rounded into the future.
     */
    @Override
    public String currentTimeMillis() {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)";
    }

    /**
     * {@code enable_sort = off} for the transaction. Why: right after a bulk load (100 000 jobs created in one go,
     * before autovacuum analyzed the table) the planner estimated a few dozen rows in the due range and chose a
     * bitmap scan of the whole range plus a top-N sort, on every page: each of the 200 pages read all remaining
     * rows (40 ms a page instead of 1), which made the loader three times slower. The filter on the member's
     * shards ({@code shard = ANY(?)}) shrank the estimate further and tipped the choice. With sorting disabled
     * (PostgreSQL adds a prohibitive cost; it does not forbid), the only cheap plan left is the ordered scan of the
     * index that matches the {@code ORDER BY}, which stops after {@code LIMIT} matching rows whatever the
     * statistics say.
     */
    @Override
    public void preferIndexOrder(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL enable_sort = off");
        }
    }

    /**
     * {@code enable_hashjoin} and {@code enable_mergejoin} off for the transaction: with statistics taken while a key
     * table was nearly empty, the purge's join of 500 deleted rows with {@code tw_run_key} was planned as a hash of a
     * sequential scan of the whole table (caught by {@code PostgresRetentionPlanTest}); the nested loop left probes its
     * primary key per row. (One single-row delete per key, in a JDBC batch, avoided the join but made a purge batch
     * take twice as long.)
     */
    @Override
    public void preferIndexLookups(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL enable_hashjoin = off");
            statement.execute("SET LOCAL enable_mergejoin = off");
        }
    }

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns) {
        String placeholders = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + placeholders + ")"
                + " ON CONFLICT (" + String.join(", ", keyColumns) + ") DO NOTHING";
    }

    /** {@code FOR SHARE}: blocks a delete or an update of the row until the transaction ends, not other readers. */
    @Override
    public String lockAgainstChange() {
        return " FOR SHARE";
    }

    @Override
    public String updateReturningIds(String updateSql) {
        return updateReturning(updateSql, "id");
    }

    @Override
    public String updateReturning(String updateSql, String columns) {
        return updateSql + " RETURNING " + columns;
    }

    @Override
    public boolean partitionsHistory() {
        return true;
    }

    /**
     * One statement: the rows as a {@code VALUES} list, their keys inserted into the key table with {@code ON CONFLICT
     * DO NOTHING RETURNING instance_id} (the key's unique index decides, as it did on {@code tw_instance} before the
     * history was partitioned), then the rows whose key was new, or null, inserted and their ids returned:
     * <pre>
     * WITH v (id, job_id, ...) AS (VALUES (?, ?, ...), (?, ?, ...)),
     *      k AS (INSERT INTO tw_run_key (job_id, run_key, instance_id) SELECT job_id, run_key, id FROM v
     *            WHERE job_id IS NOT NULL AND run_key IS NOT NULL ON CONFLICT (job_id, run_key) DO NOTHING
     *            RETURNING instance_id)
     * INSERT INTO tw_instance (id, job_id, ...) SELECT id, job_id, ... FROM v
     *   WHERE id IN (SELECT instance_id FROM k) OR job_id IS NULL OR run_key IS NULL RETURNING id
     * </pre>
     * Keys are inserted in the order of the rows, so two writers whose keys overlap wait for each other rather than
     * deadlock if both list them in one order. A key that another transaction has inserted but not committed makes
     * this one wait, then skip the row if that one commits (or insert it if it rolls back), as a unique index does.
     */
    @Override
    public java.util.Optional<String> insertIfAbsentReturningIds(String table, List<String> columns,
                                                                 String keyTable, List<String> keyColumns,
                                                                 int rows) {
        String columnList = String.join(", ", columns);
        String keyList = String.join(", ", keyColumns);
        String row = columns.stream().map(c -> "?").collect(Collectors.joining(", ", "(", ")"));
        String values = String.join(", ", java.util.Collections.nCopies(rows, row));
        String keyPresent = keyColumns.stream().map(k -> k + " IS NOT NULL").collect(Collectors.joining(" AND "));
        String keyAbsent = keyColumns.stream().map(k -> k + " IS NULL").collect(Collectors.joining(" OR "));
        return java.util.Optional.of("WITH v (" + columnList + ") AS (VALUES " + values + "),"
                + " k AS (INSERT INTO " + keyTable + " (" + keyList + ", instance_id) SELECT " + keyList + ", id FROM v"
                + " WHERE " + keyPresent + " ON CONFLICT (" + keyList + ") DO NOTHING RETURNING instance_id)"
                + " INSERT INTO " + table + " (" + columnList + ") SELECT " + columnList + " FROM v"
                + " WHERE id IN (SELECT instance_id FROM k) OR " + keyAbsent + " RETURNING id");
    }
}
