package dev.tickwheel.bench.webhook;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark fixture: one job (API schedule, no retries) and {@code count} WAITING instances of it, due one per
 * millisecond from {@code now + firstDueMs}. The server's start-up recovery arms them. One job rather than one job per
 * instance keeps the dispatcher's job cache out of a per-call heap figure.
 *
 * <p>Setup, not measured: the instances are written in one transaction with trigger times a day ahead (their
 * schedule slots must differ: hence one per millisecond), then one {@code UPDATE} moves them to be relative to the
 * clock's now. Start the server right after {@link #insert}.
 *
 * <p>Stateless.
 */
final class OneJobInstances {

    private OneJobInstances() {
    }

    /** @return the now (epoch ms) that {@code firstDueMs} counts from */
    static long insert(JdbcStores stores, String name, Target target, DeliveryPolicy delivery, int count,
                       long firstDueMs, Clock clock) {
        if (count < 1 || firstDueMs < 0) {
            throw new IllegalArgumentException("count must be positive and firstDueMs not negative: " + count + ", "
                    + firstDueMs);
        }
        long farAheadMs = clock.millis() + TimeUnit.DAYS.toMillis(1);
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(1, clock);
        Job job = stores.jobs().insert(new NewJob(ids.nextId(), name, ScheduleSpec.api(), target, null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, delivery, null));
        List<NewInstance> instances = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            instances.add(new NewInstance(ids.nextId(), job.id(), Instant.ofEpochMilli(farAheadMs + firstDueMs + i),
                    null));
        }
        AdvanceResult result = stores.instances().createInstancesAndAdvanceJob(
                new JobAdvance(job.id(), job.version(), null, null, instances));
        if (result.created().size() != count) {
            throw new IllegalStateException("fixture created " + result.created().size() + " of " + count
                    + " instances (advanced " + result.advanced() + ")");
        }
        long nowMs = clock.millis();
        long shiftMs = farAheadMs - nowMs;
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement("UPDATE tw_instance SET"
                        + " expected_trigger_time_ms = expected_trigger_time_ms - ?,"
                        + " scheduled_trigger_time_ms = scheduled_trigger_time_ms - ? WHERE job_id = ?")) {
            ps.setLong(1, shiftMs);
            ps.setLong(2, shiftMs);
            ps.setLong(3, job.id());
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("moving the instances' trigger times failed: " + e.getMessage(), e);
        }
        return nowMs;
    }
}
