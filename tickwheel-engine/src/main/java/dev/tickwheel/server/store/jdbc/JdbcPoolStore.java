package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * {@link PoolStore} over {@code tw_pool} ({@link NamedRowTable}): no rate is stored as
 * {@code rate_permits = rate_per_ms = 0}. A job names its pool in {@code tw_job.pool_name}, a foreign key, so a pool
 * in use cannot be deleted even by a delete that raced a job's naming it (on PostgreSQL; see {@link NamedRowTable}'s
 * caveat for H2).
 *
 * <p>Thread-safe (stateless apart from the runner).
 */
final class JdbcPoolStore implements PoolStore {

    private final NamedRowTable<InstancePool> table;

    JdbcPoolStore(TransactionRunner runner) {
        this.table = new NamedRowTable<>(runner, "pool", "tw_pool",
                List.of("max_concurrent", "rate_permits", "rate_per_ms"), "pool_name", new Rows());
    }

    @Override
    public boolean insert(InstancePool pool) {
        return table.insert(pool);
    }

    @Override
    public Optional<InstancePool> get(String name) {
        return table.get(name);
    }

    @Override
    public boolean replace(InstancePool pool) {
        return table.replace(pool);
    }

    @Override
    public List<InstancePool> list() {
        return table.list();
    }

    @Override
    public Deletion delete(String name) {
        return switch (table.delete(name)) {
            case DELETED -> Deletion.DELETED;
            case NOT_FOUND -> Deletion.NOT_FOUND;
            case IN_USE -> Deletion.IN_USE;
        };
    }

    /** A pool's columns: its limits, the rate as two numbers (both 0 for none). */
    private static final class Rows implements NamedRowTable.Mapping<InstancePool> {

        @Override
        public String name(InstancePool pool) {
            return pool.name();
        }

        @Override
        public Instant createdAt(InstancePool pool) {
            return pool.createdAt();
        }

        @Override
        public void bindValues(PreparedStatement ps, int first, InstancePool pool) throws SQLException {
            ps.setInt(first, pool.maxConcurrent());
            ps.setInt(first + 1, pool.rate() == null ? 0 : pool.rate().permits());
            ps.setLong(first + 2, pool.rate() == null ? 0 : pool.rate().perMs());
        }

        @Override
        public InstancePool read(ResultSet rs) throws SQLException {
            int permits = rs.getInt("rate_permits");
            InstancePool.Rate rate = permits == 0 ? null : new InstancePool.Rate(permits, rs.getLong("rate_per_ms"));
            return new InstancePool(rs.getString("name"), rs.getInt("max_concurrent"), rate,
                    Instant.ofEpochMilli(rs.getLong("created_at_ms")));
        }
    }
}
