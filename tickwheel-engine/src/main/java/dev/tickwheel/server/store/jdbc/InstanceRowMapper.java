package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.WorkflowStep;
import dev.tickwheel.server.store.Shards;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Maps a new instance to the parameters of an insert over {@link InstanceSql#INSERT_COLUMNS} (with the shard its
 * writer placed it in, {@link Shards#ofInstance}) and a row of {@link InstanceSql#COLUMNS} back to an instance.
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
    static void bindInsert(PreparedStatement ps, NewInstance instance, boolean scheduled, long nowMs, int shard)
            throws SQLException {
        bindInsert(ps, 0, instance, scheduled, nowMs, shard);
    }

    /**
     * As {@link #bindInsert(PreparedStatement, NewInstance, boolean, long, int)}, into parameters {@code offset + 1}
     * to {@code offset + 19}: one row of a multi-row insert.
     */
    static void bindInsert(PreparedStatement ps, int offset, NewInstance instance, boolean scheduled, long nowMs,
                           int shard) throws SQLException {
        long triggerMs = instance.expectedTriggerTime().toEpochMilli();
        ps.setLong(offset + 1, instance.id());
        ps.setLong(offset + 2, instance.jobId());
        ps.setString(offset + 3, InstanceStatus.WAITING.name());
        JdbcValues.setLong(ps, offset + 4, scheduled ? instance.slot().toEpochMilli() : null);
        ps.setLong(offset + 5, triggerMs);
        JdbcValues.setLong(ps, offset + 6, null);
        ps.setInt(offset + 7, 0);
        JdbcValues.setString(ps, offset + 8, null);
        JdbcValues.setString(ps, offset + 9, instance.params());
        JdbcValues.setLong(ps, offset + 10, null);
        ps.setLong(offset + 11, nowMs);
        ps.setLong(offset + 12, nowMs);
        ps.setInt(offset + 13, shard);
        JdbcValues.setString(ps, offset + 14, instance.key());
        JdbcValues.setInt(ps, offset + 15, instance.priority());
        JdbcValues.setLong(ps, offset + 16, instance.rerunOf());
        WorkflowStep step = instance.workflow();
        JdbcValues.setLong(ps, offset + 17, step == null ? null : step.runId());
        JdbcValues.setString(ps, offset + 18, step == null ? null : step.node());
        JdbcValues.setString(ps, offset + 19, step == null ? null : step.upstream());
    }

    /** The workflow step of the current row, or null for an instance that is none. */
    private static WorkflowStep workflowStep(ResultSet rs) throws SQLException {
        Long runId = JdbcValues.getLong(rs, "workflow_run_id");
        return runId == null ? null : new WorkflowStep(runId, rs.getString("workflow_node"), rs.getString("upstream"));
    }

    /** The instance {@link #bindInsert} writes, as it reads back. */
    static Instance inserted(NewInstance instance, boolean scheduled, long nowMs, int shard) {
        Instant trigger = Instant.ofEpochMilli(instance.expectedTriggerTime().toEpochMilli());
        Instant slot = Instant.ofEpochMilli(instance.slot().toEpochMilli());
        Instant now = Instant.ofEpochMilli(nowMs);
        return new Instance(instance.id(), instance.jobId(), InstanceStatus.WAITING, scheduled ? slot : null,
                trigger, null, 0, null, instance.params(), null, now, now, shard,
                -1, 0, instance.key(), instance.priority(), instance.rerunOf(), null, null,
                instance.workflow());
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
                JdbcValues.getInstant(rs, "call_started_at_ms"),
                JdbcValues.getInstant(rs, "created_at_ms"),
                JdbcValues.getInstant(rs, "updated_at_ms"),
                rs.getInt("shard"),
                rs.getInt("claim_node"),
                rs.getLong("claim_epoch"),
                rs.getString("run_key"),
                JdbcValues.getInt(rs, "priority"),
                JdbcValues.getLong(rs, "rerun_of"),
                rs.getString("output"),
                JdbcValues.getInstant(rs, "callback_deadline_ms"),
                workflowStep(rs));
    }
}
