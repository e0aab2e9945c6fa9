package dev.tickwheel.server.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

/**
 * Converts nullable values and instants between Java and JDBC. Every time is stored as epoch milliseconds.
 *
 * <p>Stateless; thread-safe.
 */
final class JdbcValues {

    private JdbcValues() {
    }

    static void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        setLong(ps, index, value == null ? null : value.toEpochMilli());
    }

    static void setLong(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, value);
        }
    }

    static void setInt(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    static void setString(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    static Instant getInstant(ResultSet rs, String column) throws SQLException {
        Long millis = getLong(rs, column);
        return millis == null ? null : Instant.ofEpochMilli(millis);
    }

    static Long getLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    static Integer getInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }
}
