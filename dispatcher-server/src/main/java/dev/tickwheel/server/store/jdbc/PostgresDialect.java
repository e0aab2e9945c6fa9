package dev.tickwheel.server.store.jdbc;

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

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns) {
        String placeholders = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + placeholders + ")"
                + " ON CONFLICT (" + String.join(", ", keyColumns) + ") DO NOTHING";
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
                                                                 List<String> keyColumns, int rows) {
        String row = columns.stream().map(c -> "?").collect(Collectors.joining(", ", "(", ")"));
        String values = String.join(", ", java.util.Collections.nCopies(rows, row));
        return java.util.Optional.of("INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES " + values
                + " ON CONFLICT (" + String.join(", ", keyColumns) + ") DO NOTHING RETURNING id");
    }
}
