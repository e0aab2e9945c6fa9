package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
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
 * {@link PoolStore} over {@code tw_pool}: no rate is stored as {@code rate_permits = rate_per_ms = 0}. A job names its
 * pool in {@code tw_job.pool_name}, a foreign key, so a pool in use cannot be deleted even by a delete that raced a
 * job's naming it.
 *
 * <p>Thread-safe (stateless apart from the runner).
 *
 * <p>Caveats: {@link #delete} checks for naming jobs in its own statement; a job that names the pool in a transaction
 * that commits while the delete waits for its lock (PostgreSQL) fails the delete on the key, answered as
 * {@link Deletion#IN_USE} like the check's own refusal.
 */
final class JdbcPoolStore implements PoolStore {

    private static final String COLUMNS = "name, max_concurrent, rate_permits, rate_per_ms, created_at_ms";
    private static final String INSERT = "INSERT INTO tw_pool (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?)";
    private static final String SELECT_BY_NAME = "SELECT " + COLUMNS + " FROM tw_pool WHERE name = ?";
    private static final String REPLACE = "UPDATE tw_pool SET max_concurrent = ?, rate_permits = ?, rate_per_ms = ?"
            + " WHERE name = ?";
    private static final String SELECT_ALL = "SELECT " + COLUMNS + " FROM tw_pool ORDER BY name";
    private static final String DELETE_UNUSED = "DELETE FROM tw_pool WHERE name = ?"
            + " AND NOT EXISTS (SELECT 1 FROM tw_job WHERE pool_name = ?)";

    private final TransactionRunner runner;

    JdbcPoolStore(TransactionRunner runner) {
        this.runner = runner;
    }

    @Override
    public boolean insert(InstancePool pool) {
        try {
            return insertIfAbsent(pool);
        } catch (StoreException e) {
            if (DuplicateIds.isUniqueViolation(e.getCause())) {
                return false; // another caller created it between our read and our insert
            }
            throw e;
        }
    }

    private boolean insertIfAbsent(InstancePool pool) {
        return runner.inTransaction("insert pool '" + pool.name() + "'", connection -> {
            if (select(connection, pool.name()).isPresent()) {
                return false;
            }
            try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
                ps.setString(1, pool.name());
                bindLimits(ps, 2, pool);
                ps.setLong(5, pool.createdAt().toEpochMilli());
                ps.executeUpdate();
            }
            return true;
        });
    }

    @Override
    public boolean replace(InstancePool pool) {
        return runner.inTransaction("replace pool '" + pool.name() + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(REPLACE)) {
                bindLimits(ps, 1, pool);
                ps.setString(4, pool.name());
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Binds max concurrent, permits and period into parameters {@code first} to {@code first + 2}. */
    private static void bindLimits(PreparedStatement ps, int first, InstancePool pool) throws SQLException {
        ps.setInt(first, pool.maxConcurrent());
        ps.setInt(first + 1, pool.rate() == null ? 0 : pool.rate().permits());
        ps.setLong(first + 2, pool.rate() == null ? 0 : pool.rate().perMs());
    }

    @Override
    public Optional<InstancePool> get(String name) {
        return runner.autoCommit("read pool '" + name + "'", connection -> select(connection, name));
    }

    @Override
    public List<InstancePool> list() {
        return runner.autoCommit("list pools", connection -> {
            List<InstancePool> all = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(SELECT_ALL); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(read(rs));
                }
            }
            return all;
        });
    }

    @Override
    public Deletion delete(String name) {
        try {
            return deleteUnused(name);
        } catch (StoreException e) {
            if (SqlStates.carries(e.getCause(), SqlStates.FOREIGN_KEY_VIOLATION)) {
                return Deletion.IN_USE; // a job named it after our check saw none; the key refused the delete
            }
            throw e;
        }
    }

    private Deletion deleteUnused(String name) {
        return runner.inTransaction("delete pool '" + name + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(DELETE_UNUSED)) {
                ps.setString(1, name);
                ps.setString(2, name);
                if (ps.executeUpdate() == 1) {
                    return Deletion.DELETED;
                }
            }
            return select(connection, name).isPresent() ? Deletion.IN_USE : Deletion.NOT_FOUND;
        });
    }

    private static Optional<InstancePool> select(Connection connection, String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SELECT_BY_NAME)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    private static InstancePool read(ResultSet rs) throws SQLException {
        int permits = rs.getInt("rate_permits");
        InstancePool.Rate rate = permits == 0 ? null : new InstancePool.Rate(permits, rs.getLong("rate_per_ms"));
        return new InstancePool(rs.getString("name"), rs.getInt("max_concurrent"), rate,
                Instant.ofEpochMilli(rs.getLong("created_at_ms")));
    }
}
