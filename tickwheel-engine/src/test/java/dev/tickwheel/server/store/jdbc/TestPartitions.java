package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fixtures for tests that write history rows with SQL into a PostgreSQL store whose history is partitioned
 * ({@link PartitionedHistory}): the day partitions those rows need, made by the store's own code
 * ({@link HistoryPartitions#createDay}), and a look at which partitions exist.
 *
 * <p>Stateless; each call works on the connection it is given, in its transaction if it has one.
 */
public final class TestPartitions {

    private TestPartitions() {
    }

    /** True if {@code tw_instance} is a partitioned table (PostgreSQL at schema version 9 or later). */
    public static boolean partitioned(Connection connection) throws SQLException {
        String database = connection.getMetaData().getDatabaseProductName();
        if (!database.toLowerCase(java.util.Locale.ROOT).contains("postgres")) {
            return false;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT relkind FROM pg_class WHERE oid = to_regclass('tw_instance')")) {
            return rs.next() && "p".equals(rs.getString(1));
        }
    }

    /**
     * The instance, attempt and slot partitions of every day from the day of {@code from} to the day of
     * {@code toInclusive}, where missing.
     */
    public static void createDays(Connection connection, Instant from, Instant toInclusive) throws SQLException {
        for (PartitionDay day = PartitionDay.of(from); day.compareTo(PartitionDay.of(toInclusive)) <= 0;
                day = day.plusDays(1)) {
            HistoryPartitions.createDay(connection, day, true);
            HistoryPartitions.createDay(connection, day, false);
        }
    }

    /** The partitions of {@code table} (e.g. {@code tw_instance}), by lower bound. */
    public static List<String> partitionsOf(Connection connection, String table) throws SQLException {
        List<String> names = new ArrayList<>();
        for (HistoryPartitions.Partition p : HistoryPartitions.read(connection, table)) {
            names.add(p.name());
        }
        return names;
    }

    /** {@code ALTER TABLE ... SET (autovacuum_enabled = ...)} on every partition of {@code table}. */
    public static void setAutovacuum(Connection connection, String table, boolean enabled) throws SQLException {
        for (String partition : partitionsOf(connection, table)) {
            try (Statement s = connection.createStatement()) {
                s.execute("ALTER TABLE " + partition + " SET (autovacuum_enabled = " + enabled + ")");
            }
        }
    }

    /** {@code relation} (a table or an index) and its partitions, if it is partitioned. */
    public static Set<String> indexAndPartitions(Connection connection, String relation) throws SQLException {
        Set<String> names = new TreeSet<>(Set.of(relation));
        try (PreparedStatement ps = connection.prepareStatement("SELECT c.relname FROM pg_inherits i"
                + " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass(?)")) {
            ps.setString(1, relation);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** How many rows {@code query} counts. */
    static long count(Connection connection, String query) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(query); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
