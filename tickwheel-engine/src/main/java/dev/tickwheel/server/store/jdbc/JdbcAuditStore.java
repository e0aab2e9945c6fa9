package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.access.AuditEntry;
import dev.tickwheel.server.access.AuditFilter;
import dev.tickwheel.server.store.AuditStore;
import dev.tickwheel.server.store.Page;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link AuditStore} over {@code tw_audit} (schema 18). Pages are newest first by id; a time range is an id range
 * ({@link dev.tickwheel.id.SnowflakeIdGenerator#lowestIdAt}), which the primary key serves.
 *
 * <p>Thread-safe (stateless apart from the runner).
 */
final class JdbcAuditStore implements AuditStore {

    private static final String COLUMNS = "id, at_ms, actor, namespace, action, target, status, changes";

    private final TransactionRunner runner;

    JdbcAuditStore(TransactionRunner runner) {
        this.runner = runner;
    }

    @Override
    public void append(List<AuditEntry> entries) {
        runner.inTransaction("append " + entries.size() + " audit entries", connection -> {
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO tw_audit (" + COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (AuditEntry entry : entries) {
                ps.setLong(1, entry.id());
                ps.setLong(2, entry.at().toEpochMilli());
                ps.setString(3, entry.actor());
                JdbcValues.setString(ps, 4, entry.namespace());
                ps.setString(5, entry.action());
                JdbcValues.setString(ps, 6, entry.target());
                ps.setInt(7, entry.status());
                JdbcValues.setString(ps, 8, entry.changes());
                ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    @Override
    public Page<AuditEntry, Long> list(AuditFilter filter, long beforeId, int limit) {
        Objects.requireNonNull(filter, "filter");
        QueryLimits.checkPageSize(limit);
        List<String> conditions = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        conditions.add("id < ?");
        values.add(beforeId);
        if (filter.actor() != null) {
            conditions.add("actor = ?");
            values.add(filter.actor());
        }
        if (filter.namespace() != null) {
            conditions.add("namespace = ?");
            values.add(filter.namespace());
        }
        if (filter.action() != null) {
            conditions.add("LOWER(action) LIKE ? ESCAPE '" + JobSql.LIKE_ESCAPE + "'");
            values.add("%" + JdbcJobStore.likeEscaped(filter.action().toLowerCase(java.util.Locale.ROOT)) + "%");
        }
        if (filter.target() != null) {
            conditions.add("target = ?");
            values.add(filter.target());
        }
        if (filter.from() != null) {
            conditions.add("id >= ?");
            values.add(SnowflakeIdGenerator.lowestIdAt(filter.from()));
        }
        if (filter.to() != null) {
            conditions.add("id < ?");
            values.add(SnowflakeIdGenerator.lowestIdAt(filter.to()));
        }
        String sql = "SELECT " + COLUMNS + " FROM tw_audit WHERE " + String.join(" AND ", conditions)
                + " ORDER BY id DESC LIMIT ?";
        List<AuditEntry> rows = runner.autoCommit("list audit entries", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                int i = 1;
                for (Object value : values) {
                    ps.setObject(i++, value);
                }
                ps.setInt(i, limit + 1);
                List<AuditEntry> found = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(new AuditEntry(rs.getLong("id"), Instant.ofEpochMilli(rs.getLong("at_ms")),
                                rs.getString("actor"), rs.getString("namespace"), rs.getString("action"),
                                rs.getString("target"), rs.getInt("status"), rs.getString("changes")));
                    }
                }
                return found;
            }
        });
        if (rows.size() <= limit) {
            return new Page<>(rows, Optional.empty());
        }
        List<AuditEntry> page = rows.subList(0, limit);
        return new Page<>(page, Optional.of(page.get(limit - 1).id()));
    }

    @Override
    public int purgeBefore(Instant before, int limit) {
        return runner.inTransaction("purge audit entries", connection -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT id FROM tw_audit WHERE id < ? ORDER BY id LIMIT ?")) {
                ps.setLong(1, SnowflakeIdGenerator.lowestIdAt(before));
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            if (ids.isEmpty()) {
                return 0;
            }
            try (PreparedStatement ps = connection.prepareStatement("DELETE FROM tw_audit WHERE id = ANY(?)")) {
                ps.setArray(1, connection.createArrayOf("BIGINT", ids.toArray(new Long[0])));
                return ps.executeUpdate();
            }
        });
    }
}
