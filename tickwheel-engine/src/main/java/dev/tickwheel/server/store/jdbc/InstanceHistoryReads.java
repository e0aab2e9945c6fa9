package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Attempt;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.Page;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The history reads of the instance store: pages of instances newest first ({@link InstanceSql#selectLatest}) and
 * one instance with its attempts ({@link InstanceSql#SELECT_WITH_ATTEMPTS}).
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class InstanceHistoryReads {

    private final TransactionRunner runner;
    private final SqlDialect dialect;

    InstanceHistoryReads(TransactionRunner runner, SqlDialect dialect) {
        this.runner = runner;
        this.dialect = dialect;
    }

    Page<Instance, Long> listLatest(InstanceFilter filter, long beforeId, int limit) {
        Objects.requireNonNull(filter, "filter");
        QueryLimits.checkPageSize(limit);
        long maxId = Math.min(filter.maxId(), beforeId);
        if (filter.minId() >= maxId) {
            return new Page<>(List.of(), Optional.empty());
        }
        // In a transaction for preferIndexOrder: a job with few rows (by the statistics) would otherwise get a bitmap
        // scan and a sort, whose cost grows with the job's history instead of the page size.
        List<Instance> rows = runner.inTransaction("list instances newest first", connection -> {
            dialect.preferIndexOrder(connection);
            try (PreparedStatement ps = connection.prepareStatement(
                    InstanceSql.selectLatest(filter.jobId() != null, filter.status() != null,
                    filter.namespace() != null))) {
                int i = 1;
                if (filter.namespace() != null) {
                    ps.setString(i++, filter.namespace());
                    ps.setString(i++, filter.namespace());
                }
                if (filter.jobId() != null) {
                    ps.setLong(i++, filter.jobId());
                }
                if (filter.status() != null) {
                    ps.setString(i++, filter.status().name());
                }
                ps.setLong(i++, filter.minId());
                ps.setLong(i++, maxId);
                ps.setInt(i, limit + 1);
                List<Instance> found = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(InstanceRowMapper.read(rs));
                    }
                }
                return found;
            }
        });
        if (rows.size() <= limit) {
            return new Page<>(rows, Optional.empty());
        }
        List<Instance> page = rows.subList(0, limit);
        return new Page<>(page, Optional.of(page.get(limit - 1).id()));
    }

    Optional<InstanceHistory> history(long instanceId) {
        return runner.autoCommit("get instance " + instanceId + " with its attempts", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_WITH_ATTEMPTS)) {
                ps.setLong(1, instanceId);
                Instance instance = null;
                List<Attempt> recorded = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (instance == null) {
                            instance = InstanceRowMapper.read(rs);
                        }
                        rs.getInt("a_attempt");
                        if (!rs.wasNull()) {
                            recorded.add(readRetriedAttempt(rs));
                        }
                    }
                }
                return instance == null ? Optional.empty()
                        : Optional.of(InstanceHistory.of(instance, recorded));
            }
        });
    }

    /** A recorded attempt from the {@code a_} columns of {@link InstanceSql#SELECT_WITH_ATTEMPTS}. */
    private static Attempt readRetriedAttempt(ResultSet rs) throws SQLException {
        return new Attempt(rs.getInt("a_attempt"), Attempt.Outcome.RETRIED,
                JdbcValues.getInstant(rs, "a_started_at_ms"),
                JdbcValues.getInstant(rs, "a_ended_at_ms"),
                JdbcValues.getInstant(rs, "a_expected_trigger_time_ms"),
                rs.getString("a_error"),
                rs.getInt("a_claim_node"),
                rs.getLong("a_claim_epoch"));
    }
}
