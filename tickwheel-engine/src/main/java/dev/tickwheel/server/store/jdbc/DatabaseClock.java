package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;

/**
 * The now of every lease and fence statement: the database's clock ({@link SqlDialect#currentTimeMillis()}), or, in
 * tests, a clock of their own ({@link JdbcStoreConfig#leaseClock()}). Statements contain {@link #sql()},
 * {@code COALESCE(CAST(? AS BIGINT), <database clock>)}, and {@link #bind} sets its parameter to the test clock's
 * millis or to NULL; so production and tests run the same SQL text, and production binds NULL.
 *
 * <p>Immutable; thread-safe if the test clock is.
 */
final class DatabaseClock {

    private final String sql;
    private final Clock override;

    /**
     * @param override the clock tests judge leases by, or null for the database's
     */
    DatabaseClock(SqlDialect dialect, Clock override) {
        this.sql = "COALESCE(CAST(? AS BIGINT), " + dialect.currentTimeMillis() + ")";
        this.override = override;
    }

    /** The expression, with one parameter for {@link #bind}. */
    String sql() {
        return sql;
    }

    /** Binds the parameter of one occurrence of {@link #sql()}. */
    void bind(PreparedStatement ps, int index) throws SQLException {
        if (override == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, override.millis());
        }
    }

    /** Reads the now once, for a transaction that judges several statements by the same instant. */
    long read(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + sql)) {
            bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("the database returned no row for its clock: SELECT " + sql);
                }
                return rs.getLong(1);
            }
        }
    }
}
