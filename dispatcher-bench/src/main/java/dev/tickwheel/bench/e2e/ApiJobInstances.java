package dev.tickwheel.bench.e2e;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
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
 * Benchmark fixture: {@code jobs} on-demand (API-scheduled) jobs, no retries, each with {@code perJob} WAITING runs,
 * all due within {@code [now + firstDueMs, now + firstDueMs + spreadMs)}, evenly and interleaved: job {@code j}'s run
 * {@code i} at {@code now + firstDueMs + (i * jobs + j) * spreadMs / (jobs * perJob)}. The runs are written as the
 * API writes them ({@link dev.tickwheel.server.store.InstanceStore#insertRuns}), so the store places them as it
 * places runs: each on its own shard unless the job keeps one owner (a {@code maxConcurrent}). The servers' recovery
 * arms them when they start (or take the shards over).
 *
 * <p>Worked example: 1 000 jobs × 100 runs over 2 000 ms: 50 runs are due every millisecond, job 0's every 20 ms.
 * One job × 100 000 over 2 000 ms: 50 runs of the one job every millisecond.
 *
 * <p>Setup, not measured: jobs and runs are written with trigger times a day ahead (in transactions of
 * {@value #RUNS_PER_TRANSACTION} runs), then one {@code UPDATE} moves them to be relative to the clock's now. Start the servers right after {@link #insert}.
 *
 * <p>Stateless.
 */
public final class ApiJobInstances {

    private static final int RUNS_PER_TRANSACTION = 5_000;
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
        if (jobs < 1 || perJob < 1 || firstDueMs < 0 || spreadMs < 1) {
            throw new IllegalArgumentException("jobs, perJob and spreadMs must be positive and firstDueMs not"
                    + " negative: " + jobs + ", " + perJob + ", " + spreadMs + ", " + firstDueMs);
        }
        long farAheadMs = clock.millis() + TimeUnit.DAYS.toMillis(1);
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(FIXTURE_NODE_ID, clock);
        List<NewJob> newJobs = new ArrayList<>(jobs);
        for (int j = 0; j < jobs; j++) {
            newJobs.add(new NewJob(ids.nextId(), jobs == 1 ? namePrefix : namePrefix + j, ScheduleSpec.api(), target,
                    null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, delivery, JobOperations.DEFAULT, null));
        }
        List<Job> inserted = stores.jobs().insertAll(newJobs);
        long total = (long) jobs * perJob;
        List<NewInstance> batch = new ArrayList<>(RUNS_PER_TRANSACTION);
        int created = 0;
        for (int i = 0; i < perJob; i++) {
            for (int j = 0; j < inserted.size(); j++) {
                long dueMs = farAheadMs + firstDueMs + ((long) i * jobs + j) * spreadMs / total;
                batch.add(new NewInstance(ids.nextId(), inserted.get(j).id(), Instant.ofEpochMilli(dueMs), null));
                if (batch.size() == RUNS_PER_TRANSACTION) {
                    created += written(stores, batch);
                }
            }
        }
        created += written(stores, batch);
        if (created != jobs * perJob) {
            throw new IllegalStateException("fixture created " + created + " of " + jobs * perJob + " instances");
        }
        long nowMs = clock.millis();
        shiftTriggers(stores, farAheadMs, farAheadMs - nowMs);
        return nowMs;
    }

    /** Writes the batch's runs, empties it; how many the store created. */
    private static int written(JdbcStores stores, List<NewInstance> batch) {
        int created = 0;
        if (!batch.isEmpty()) {
            for (RunWrite write : stores.instances().insertRuns(batch)) {
                created += write.outcome() == RunWrite.Outcome.CREATED ? 1 : 0;
            }
            batch.clear();
        }
        return created;
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
