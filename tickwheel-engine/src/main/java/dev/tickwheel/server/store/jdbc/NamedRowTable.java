package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A table of rows known by their name that jobs name through a foreign key from {@code tw_job} ({@code tw_calendar},
 * {@code tw_pool}): its columns are {@code name}, the row's own values, then {@code created_at_ms}. Inserts a row
 * unless its name exists, reads one or all (by name), replaces a row's values, deletes a row that no job names.
 *
 * <p>Two races end in an answer, not a store failure: two inserts of one name (the loser's insert returns false, from
 * the primary key), and a delete that waits for the lock of a job's transaction naming the row, which then commits
 * (PostgreSQL: the foreign key refuses the delete, answered {@link Removal#IN_USE}).
 *
 * <p>Thread-safe (stateless apart from the runner).
 *
 * <p>Caveats: on H2 the key does not hold under that race. H2 takes no lock on the named row for a job's foreign key,
 * so a delete while a job names the row in a transaction not yet committed goes through, and the job then commits
 * naming a row that is gone. The writers of {@code tw_job}'s naming column are where to close it (lock the named row in
 * the job's transaction).
 *
 * @param <T> the row's record
 */
final class NamedRowTable<T> {

    /** What {@link #delete} did. */
    enum Removal {
        DELETED,
        NOT_FOUND,
        /** Jobs still name it: nothing was deleted. */
        IN_USE
    }

    /** How a row's record maps to the table's columns. */
    interface Mapping<T> {

        String name(T row);

        Instant createdAt(T row);

        /** Binds the row's own values, in the order of the table's value columns, from parameter {@code first} on. */
        void bindValues(PreparedStatement ps, int first, T row) throws SQLException;

        /** The record of the result set's current row, which holds every column. */
        T read(ResultSet rs) throws SQLException;
    }

    private final TransactionRunner runner;
    private final String kind;
    private final Mapping<T> mapping;
    private final int valueCount;
    private final String insert;
    private final String selectByName;
    private final String replace;
    private final String selectAll;
    private final String deleteUnused;

    /**
     * @param kind         what a row is, for the operations' names in failures ("calendar")
     * @param table        the table
     * @param valueColumns the row's own columns, between {@code name} and {@code created_at_ms}
     * @param jobColumn    the column of {@code tw_job} that names a row
     */
    NamedRowTable(TransactionRunner runner, String kind, String table, List<String> valueColumns, String jobColumn,
            Mapping<T> mapping) {
        this.runner = runner;
        this.kind = kind;
        this.mapping = mapping;
        this.valueCount = valueColumns.size();
        String columns = "name, " + String.join(", ", valueColumns) + ", created_at_ms";
        this.insert = "INSERT INTO " + table + " (" + columns + ") VALUES (?" + ", ?".repeat(valueCount + 1) + ")";
        this.selectByName = "SELECT " + columns + " FROM " + table + " WHERE name = ?";
        this.replace = "UPDATE " + table + " SET " + String.join(" = ?, ", valueColumns) + " = ? WHERE name = ?";
        this.selectAll = "SELECT " + columns + " FROM " + table + " ORDER BY name";
        this.deleteUnused = "DELETE FROM " + table + " WHERE name = ? AND NOT EXISTS (SELECT 1 FROM tw_job WHERE "
                + jobColumn + " = ?)";
    }

    /** Stores the row unless one of its name exists; returns whether it was stored. */
    boolean insert(T row) {
        try {
            return insertIfAbsent(row);
        } catch (StoreException e) {
            if (DuplicateIds.isUniqueViolation(e.getCause())) {
                return false; // another caller created it between our read and our insert
            }
            throw e;
        }
    }

    private boolean insertIfAbsent(T row) {
        String name = mapping.name(row);
        return runner.inTransaction("insert " + kind + " '" + name + "'", connection -> {
            if (select(connection, name).isPresent()) {
                return false;
            }
            try (PreparedStatement ps = connection.prepareStatement(insert)) {
                ps.setString(1, name);
                mapping.bindValues(ps, 2, row);
                ps.setLong(valueCount + 2, mapping.createdAt(row).toEpochMilli());
                ps.executeUpdate();
            }
            return true;
        });
    }

    /** Replaces the values of the row of {@code row}'s name (not its creation time); false if there is none. */
    boolean replace(T row) {
        String name = mapping.name(row);
        return runner.inTransaction("replace " + kind + " '" + name + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(replace)) {
                mapping.bindValues(ps, 1, row);
                ps.setString(valueCount + 1, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    Optional<T> get(String name) {
        return runner.autoCommit("read " + kind + " '" + name + "'", connection -> select(connection, name));
    }

    /** Every row, by name. */
    List<T> list() {
        return runner.autoCommit("list " + kind + "s", connection -> {
            List<T> all = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(selectAll); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(mapping.read(rs));
                }
            }
            return all;
        });
    }

    /** Deletes the row unless a job names it. */
    Removal delete(String name) {
        try {
            return deleteUnused(name);
        } catch (StoreException e) {
            if (SqlStates.carries(e.getCause(), SqlStates.FOREIGN_KEY_VIOLATION)) {
                return Removal.IN_USE; // a job named it after our check saw none; the key refused the delete
            }
            throw e;
        }
    }

    private Removal deleteUnused(String name) {
        return runner.inTransaction("delete " + kind + " '" + name + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(deleteUnused)) {
                ps.setString(1, name);
                ps.setString(2, name);
                if (ps.executeUpdate() == 1) {
                    return Removal.DELETED;
                }
            }
            return select(connection, name).isPresent() ? Removal.IN_USE : Removal.NOT_FOUND;
        });
    }

    private Optional<T> select(Connection connection, String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(selectByName)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(mapping.read(rs)) : Optional.empty();
            }
        }
    }
}
