package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Maps a new instance to the parameters of an insert over {@link InstanceSql#INSERT_COLUMNS} and a row of
 * {@link InstanceSql#COLUMNS} back to an instance.
 *
 * <p>Stateless; thread-safe.
 */
final class InstanceRowMapper {

    private InstanceRowMapper() {
    }

    /**
     * Binds a waiting instance created at {@code nowMs}.
     *
     * @param scheduled true for an instance that fills a schedule slot (its expected trigger time), false for an
     *                  on-demand run, which fills none
     */
    static void bindInsert(PreparedStatement ps, NewInstance instance, boolean scheduled, long nowMs)
            throws SQLException {
        long triggerMs = instance.expectedTriggerTime().toEpochMilli();
        ps.setLong(1, instance.id());
        ps.setLong(2, instance.jobId());
        ps.setString(3, InstanceStatus.WAITING.name());
        JdbcValues.setLong(ps, 4, scheduled ? triggerMs : null);
        ps.setLong(5, triggerMs);
        JdbcValues.setLong(ps, 6, null);
        ps.setInt(7, 0);
        JdbcValues.setString(ps, 8, null);
        JdbcValues.setString(ps, 9, instance.params());
        ps.setLong(10, nowMs);
        ps.setLong(11, nowMs);
    }

    /** The instance {@link #bindInsert} writes, as it reads back. */
    static Instance inserted(NewInstance instance, boolean scheduled, long nowMs) {
        Instant trigger = Instant.ofEpochMilli(instance.expectedTriggerTime().toEpochMilli());
        Instant now = Instant.ofEpochMilli(nowMs);
        return new Instance(instance.id(), instance.jobId(), InstanceStatus.WAITING, scheduled ? trigger : null,
                trigger, null, 0, null, instance.params(), now, now);
    }

    /** Reads the instance in the current row of a result set over {@link InstanceSql#COLUMNS}. */
    static Instance read(ResultSet rs) throws SQLException {
        return new Instance(
                rs.getLong("id"),
                rs.getLong("job_id"),
                InstanceStatus.valueOf(rs.getString("status")),
                JdbcValues.getInstant(rs, "scheduled_trigger_time_ms"),
                JdbcValues.getInstant(rs, "expected_trigger_time_ms"),
                JdbcValues.getInstant(rs, "actual_trigger_time_ms"),
                rs.getInt("attempt"),
                rs.getString("error"),
                rs.getString("params"),
                JdbcValues.getInstant(rs, "created_at_ms"),
                JdbcValues.getInstant(rs, "updated_at_ms"));
    }
}
