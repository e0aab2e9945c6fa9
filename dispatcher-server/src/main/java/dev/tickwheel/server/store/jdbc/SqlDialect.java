package dev.tickwheel.server.store.jdbc;

import java.util.List;
import java.util.Locale;

/**
 * The few statements that H2 and PostgreSQL spell differently. Everything else in the store is plain SQL both
 * databases run unchanged (epoch-millisecond BIGINT times, {@code LIMIT}, {@code = ANY(?)} over an array,
 * {@code IS NOT DISTINCT FROM}).
 *
 * <p>Immutable; thread-safe.
 */
public interface SqlDialect {

    /** A short name for logs: {@code h2} or {@code postgresql}. */
    String name();

    /**
     * An insert of one row that does nothing (update count 0) if a row with the same {@code keyColumns} exists,
     * and inserts it (update count 1) otherwise. The statement has one {@code ?} per column, in the order of
     * {@code columns}. A conflict on any other unique key (the primary key) still fails with SQLState 23505.
     */
    String insertIfAbsent(String table, List<String> columns, List<String> keyColumns);

    /**
     * Wraps a single {@code UPDATE} so that executing it as a query returns the {@code id} of every row it
     * changed. Parameters stay in the order of {@code updateSql}.
     */
    String updateReturningIds(String updateSql);

    /**
     * The dialect for a JDBC URL.
     *
     * @throws IllegalArgumentException if the URL is neither H2 nor PostgreSQL
     */
    static SqlDialect forJdbcUrl(String jdbcUrl) {
        String lower = jdbcUrl == null ? "" : jdbcUrl.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:h2:")) {
            return new H2Dialect();
        }
        if (lower.startsWith("jdbc:postgresql:")) {
            return new PostgresDialect();
        }
        throw new IllegalArgumentException(
                "jdbcUrl must start with jdbc:h2: or jdbc:postgresql: (the supported stores): " + jdbcUrl);
    }
}
