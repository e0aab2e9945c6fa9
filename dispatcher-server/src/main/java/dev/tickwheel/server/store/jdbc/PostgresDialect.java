package dev.tickwheel.server.store.jdbc;

import java.util.List;
import java.util.stream.Collectors;

/**
 * PostgreSQL spellings: {@code INSERT ... ON CONFLICT (key) DO NOTHING} and {@code UPDATE ... RETURNING id}.
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

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns) {
        String placeholders = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + placeholders + ")"
                + " ON CONFLICT (" + String.join(", ", keyColumns) + ") DO NOTHING";
    }

    @Override
    public String updateReturningIds(String updateSql) {
        return updateSql + " RETURNING id";
    }
}
