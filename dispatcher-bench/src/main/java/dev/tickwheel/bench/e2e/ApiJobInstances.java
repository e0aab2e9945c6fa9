package dev.tickwheel.bench.e2e;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
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
 * Benchmark fixture: {@code jobs} on-demand (API-scheduled) jobs, no retries, each with {@code perJob} WAITING
 * instances, all due within {@code [now + firstDueMs, now + firstDueMs + spreadMs)}: job {@code j}'s instance
 * {@code i} at {@code now + firstDueMs + i * s + j * s / jobs}, where {@code s = spreadMs / perJob} (at least 1 ms:
 * a job's instances need distinct schedule slots). The servers' recovery arms them when they start (or take the
 * shards over).
 *
 * <p>Worked example: 1 000 jobs × 100 instances over 2 000 ms gives {@code s = 20}: job 0 fires at +0, +20, +40 ...
 * ms, job 500 at +10, +30, ... ms; 50 instances are due every millisecond. One job × 10 000 over 10 000 ms is one
 * instance per millisecond.
 *
 * <p>Setup, not measured: jobs and instances are written with trigger times a day ahead (in transactions of
 * {@value #JOBS_PER_TRANSACTION} jobs' instances), then one {@code UPDATE} moves the instances to be relative to the
 * clock's now. Start the servers right after {@link #insert}.
 *
 * <p>Stateless.
 */
public final class ApiJobInstances {

    private static final int JOBS_PER_TRANSACTION = 50;
    /** Node id of the fixture's Snowflake IDs: the highest, which no server leases before the 1 023 below it. */
    private static final int FIXTURE_NODE_ID = SnowflakeIdGenerator.MAX_NODE_ID;

    private ApiJobInstances() {
    }

    /**
     * @param namePrefix the job's name if {@code jobs} is 1, else the prefix of {@code namePrefix + j}
     * @return the now (epoch ms) that {@code firstDueMs} counts from
     */
    public static long insert(JdbcStores stores, String namePrefix, int jobs, int perJob, Target target,
                              DeliveryPolicy delivery, long firstDueMs, long spreadMs, Clock clock) {
        if (jobs < 1 || perJob < 1 || firstDueMs < 0 || spreadMs < perJob) {
            throw new IllegalArgumentException("jobs and perJob must be positive, firstDueMs not negative and spreadMs"
                    + " at least perJob: " + jobs + ", " + perJob + ", " + firstDueMs + ", " + spreadMs);
        }
        long spacingMs = spreadMs / perJob;
        long farAheadMs = clock.millis() + TimeUnit.DAYS.toMillis(1);
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(FIXTURE_NODE_ID, clock);
        List<NewJob> newJobs = new ArrayList<>(jobs);
        for (int j = 0; j < jobs; j++) {
            newJobs.add(new NewJob(ids.nextId(), jobs == 1 ? namePrefix : namePrefix + j, ScheduleSpec.api(), target,
                    null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, delivery, JobOperations.DEFAULT, null));
        }
        List<Job> inserted = stores.jobs().insertAll(newJobs);
        List<JobAdvance> batch = new ArrayList<>(JOBS_PER_TRANSACTION);
        int created = 0;
        for (int j = 0; j < inserted.size(); j++) {
            Job job = inserted.get(j);
            long offsetMs = j * spacingMs / jobs;
            List<NewInstance> instances = new ArrayList<>(perJob);
            for (int i = 0; i < perJob; i++) {
                instances.add(new NewInstance(ids.nextId(), job.id(),
                        Instant.ofEpochMilli(farAheadMs + firstDueMs + i * spacingMs + offsetMs), null));
            }
            batch.add(new JobAdvance(job.id(), job.version(), null, null, instances, false));
            if (batch.size() == JOBS_PER_TRANSACTION || j == inserted.size() - 1) {
                for (AdvanceResult result : stores.instances().createInstancesAndAdvanceJobs(batch)) {
                    created += result.created().size();
                }
                batch.clear();
            }
        }
        if (created != jobs * perJob) {
            throw new IllegalStateException("fixture created " + created + " of " + jobs * perJob + " instances");
        }
        long nowMs = clock.millis();
        shiftTriggers(stores, farAheadMs, farAheadMs - nowMs);
        return nowMs;
    }

    /** Moves the instances written a day ahead (and only those) {@code shiftMs} earlier. */
    private static void shiftTriggers(JdbcStores stores, long farAheadMs, long shiftMs) {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement("UPDATE tw_instance SET"
                        + " expected_trigger_time_ms = expected_trigger_time_ms - ?,"
                        + " scheduled_trigger_time_ms = scheduled_trigger_time_ms - ?"
                        + " WHERE expected_trigger_time_ms >= ?")) {
            ps.setLong(1, shiftMs);
            ps.setLong(2, shiftMs);
            ps.setLong(3, farAheadMs);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("moving the instances' trigger times failed: " + e.getMessage(), e);
        }
    }
}
