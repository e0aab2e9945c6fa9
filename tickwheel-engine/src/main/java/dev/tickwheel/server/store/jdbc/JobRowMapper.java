package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.store.SecretBox;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.job.TargetType;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Maps a job to the parameters of {@link JobSql} statements and a row of {@link JobSql#COLUMNS} back to a job. The
 * signing secret is sealed on the way in and opened on the way out ({@link SecretColumns}), so everything above the
 * store sees it plain and the column never holds it plain once a key is given.
 *
 * <p>Stateless; thread-safe.
 */
final class JobRowMapper {

    private JobRowMapper() {
    }

    /**
     * Binds the 43 parameters of {@link JobSql#INSERT} for {@code job} inserted at {@code nowMs}, version 0, in its
     * shard ({@link Shards#of}).
     */
    static void bindInsert(PreparedStatement ps, NewJob job, long nowMs, int shardCount, SecretBox secrets)
            throws SQLException {
        ps.setLong(1, job.id());
        int next = bindDefinition(ps, 2, secrets, job.id(), job.name(), job.schedule(), job.target(), job.params(),
                job.enabled(), job.misfirePolicy(), job.retryPolicy(), job.delivery(), job.operations(),
                job.nextTriggerTime());
        ps.setLong(next++, 0L); // scheduled runs
        ps.setLong(next++, nowMs);
        ps.setLong(next++, nowMs);
        ps.setLong(next++, 0L);
        ps.setInt(next, Shards.of(job.id(), shardCount));
    }

    /** Binds the parameters of {@link JobSql#UPDATE_IF_VERSION}. */
    static void bindUpdate(PreparedStatement ps, Job job, long nowMs, SecretBox secrets) throws SQLException {
        int next = bindDefinition(ps, 1, secrets, job.id(), job.name(), job.schedule(), job.target(), job.params(),
                job.enabled(), job.misfirePolicy(), job.retryPolicy(), job.delivery(), job.operations(),
                job.nextTriggerTime());
        ps.setLong(next++, nowMs);
        ps.setLong(next++, job.id());
        ps.setLong(next, job.version());
    }

    private static int bindDefinition(PreparedStatement ps, int first, SecretBox secrets, long jobId, String name,
            ScheduleSpec schedule, Target target, String params, boolean enabled, MisfirePolicy misfirePolicy,
            RetryPolicy retryPolicy, DeliveryPolicy delivery, JobOperations operations, Instant nextTriggerTime)
            throws SQLException {
        int i = first;
        ps.setString(i++, name);
        ps.setString(i++, schedule.type().name());
        JdbcValues.setString(ps, i++, schedule.expression());
        JdbcValues.setString(ps, i++, schedule.zoneId());
        JdbcValues.setLong(ps, i++, schedule.periodMs());
        JdbcValues.setLong(ps, i++, schedule.delayMs());
        JdbcValues.setInstant(ps, i++, schedule.at());
        JdbcValues.setLong(ps, i++, schedule.jitterMs());
        ps.setBoolean(i++, Boolean.TRUE.equals(schedule.spread()));
        JdbcValues.setInstant(ps, i++, schedule.startAt());
        JdbcValues.setInstant(ps, i++, schedule.endAt());
        JdbcValues.setInt(ps, i++, schedule.maxRuns());
        JdbcValues.setString(ps, i++, schedule.calendar());
        ps.setString(i++, target.type().name());
        ps.setString(i++, target.value());
        JdbcValues.setString(ps, i++, params);
        ps.setBoolean(i++, enabled);
        ps.setString(i++, misfirePolicy.name());
        ps.setInt(i++, retryPolicy.maxAttempts());
        ps.setLong(i++, retryPolicy.backoffMs());
        ps.setDouble(i++, retryPolicy.multiplier());
        ps.setLong(i++, retryPolicy.maxBackoffMs());
        ps.setString(i++, retryPolicy.jitter().name());
        JdbcValues.setString(ps, i++, retryPolicy.hasDelayList() ? joinDelays(retryPolicy.delaysMs()) : null);
        ps.setString(i++, delivery.guarantee().name());
        ps.setLong(i++, delivery.timeoutMs());
        ps.setInt(i++, delivery.maxConcurrent());
        ps.setString(i++, delivery.overLimit().name());
        ps.setInt(i++, delivery.priority());
        JdbcValues.setString(ps, i++, delivery.pool());
        ps.setString(i++, delivery.completion().mode().name());
        ps.setLong(i++, delivery.completion().callbackTimeoutMs());
        JdbcValues.setInt(ps, i++, operations.retentionDays());
        JdbcValues.setString(ps, i++, operations.alertUrl());
        SecretBox.Sealed secret = SecretColumns.sealSigningSecret(secrets, jobId, operations.signingSecret());
        JdbcValues.setString(ps, i++, secret == null ? null : secret.stored());
        JdbcValues.setString(ps, i++, secret == null ? null : secret.keyId());
        JdbcValues.setInstant(ps, i++, nextTriggerTime);
        return i;
    }

    /** The stored form of a list of delays: comma-separated milliseconds. */
    static String joinDelays(List<Long> delaysMs) {
        return delaysMs.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    static List<Long> splitDelays(String stored) {
        if (stored == null || stored.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(stored.split(",")).map(Long::valueOf).toList();
    }

    /**
     * Reads the job in the current row of a result set over {@link JobSql#COLUMNS}.
     *
     * @throws dev.tickwheel.server.store.UnreadableSecretException naming the job, if its secret does not decrypt
     */
    static Job read(ResultSet rs, SecretBox secrets) throws SQLException {
        long id = rs.getLong("id");
        ScheduleSpec schedule = new ScheduleSpec(
                ScheduleType.valueOf(rs.getString("schedule_type")),
                rs.getString("schedule_expression"),
                rs.getString("schedule_zone"),
                JdbcValues.getLong(rs, "schedule_period_ms"),
                JdbcValues.getLong(rs, "schedule_delay_ms"),
                JdbcValues.getInstant(rs, "schedule_at_ms"),
                JdbcValues.getLong(rs, "schedule_jitter_ms"),
                rs.getBoolean("schedule_spread") ? Boolean.TRUE : null,
                JdbcValues.getInstant(rs, "schedule_start_at_ms"),
                JdbcValues.getInstant(rs, "schedule_end_at_ms"),
                JdbcValues.getInt(rs, "schedule_max_runs"),
                rs.getString("calendar_name"));
        return new Job(
                id,
                rs.getString("name"),
                schedule,
                new Target(TargetType.valueOf(rs.getString("target_type")), rs.getString("target_value")),
                rs.getString("params"),
                rs.getBoolean("enabled"),
                MisfirePolicy.valueOf(rs.getString("misfire_policy")),
                new RetryPolicy(rs.getInt("retry_max_attempts"), rs.getLong("retry_backoff_ms"),
                        rs.getDouble("retry_multiplier"), rs.getLong("retry_max_backoff_ms"),
                        RetryPolicy.Jitter.valueOf(rs.getString("retry_jitter")),
                        splitDelays(rs.getString("retry_delays_ms"))),
                new DeliveryPolicy(DeliveryPolicy.Guarantee.valueOf(rs.getString("delivery_guarantee")),
                        rs.getLong("timeout_ms"), rs.getInt("max_concurrent"),
                        DeliveryPolicy.OverLimit.valueOf(rs.getString("over_limit")), rs.getInt("priority"),
                        rs.getString("pool_name"), new Completion(Completion.Mode.valueOf(rs.getString("completion")),
                                rs.getLong("callback_timeout_ms"))),
                new JobOperations(JdbcValues.getInt(rs, "retention_days"), rs.getString("alert_url"),
                        SecretColumns.openSigningSecret(secrets, id, rs.getString("signing_secret"),
                                rs.getString("signing_secret_key_id"))),
                JdbcValues.getInstant(rs, "next_trigger_time_ms"),
                rs.getLong("scheduled_runs"),
                JdbcValues.getInstant(rs, "created_at_ms"),
                JdbcValues.getInstant(rs, "updated_at_ms"),
                rs.getLong("version"));
    }
}
