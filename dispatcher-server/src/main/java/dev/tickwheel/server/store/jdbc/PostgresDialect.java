package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

/**
 * PostgreSQL spellings: {@code INSERT ... ON CONFLICT (key) DO NOTHING} and {@code UPDATE ... RETURNING}, and multi-row inserts that
 * return the ids they inserted.
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

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns) {
        return insertIfAbsent(table, columns, keyColumns, null);
    }

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns, String keyPredicate) {
        String placeholders = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + placeholders + ")"
                + conflictTarget(keyColumns, keyPredicate) + " DO NOTHING";
    }

    /** {@code FOR KEY SHARE}: blocks only a delete of the row (or a change of its key), not other readers. */
    @Override
    public String lockAgainstChange() {
        return " FOR SHARE";
    }

    private static String conflictTarget(List<String> keyColumns, String keyPredicate) {
        return " ON CONFLICT (" + String.join(", ", keyColumns) + ")"
                + (keyPredicate == null ? "" : " WHERE " + keyPredicate);
    }

    @Override
    public String updateReturningIds(String updateSql) {
        return updateReturning(updateSql, "id");
    }

    @Override
    public String updateReturning(String updateSql, String columns) {
        return updateSql + " RETURNING " + columns;
    }

    /** {@code INSERT ... VALUES (...), (...) ON CONFLICT (key) DO NOTHING RETURNING id}: one round trip per page. */
    @Override
    public java.util.Optional<String> insertIfAbsentReturningIds(String table, List<String> columns,
                                                                 List<String> keyColumns, String keyPredicate,
                                                                 int rows) {
        String row = columns.stream().map(c -> "?").collect(Collectors.joining(", ", "(", ")"));
        String values = String.join(", ", java.util.Collections.nCopies(rows, row));
        return java.util.Optional.of("INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES " + values
                + conflictTarget(keyColumns, keyPredicate) + " DO NOTHING RETURNING id");
    }
}
