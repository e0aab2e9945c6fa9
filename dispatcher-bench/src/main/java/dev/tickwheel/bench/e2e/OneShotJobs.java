package dev.tickwheel.bench.e2e;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
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
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark fixture: ONE_SHOT jobs (one instance each, created later by the server's own loader) due at times
 * relative to "now", the moment just before the server starts.
 *
 * <p>Setup, not measured: the jobs are inserted in batches through {@code JobStore.insertAll} with trigger times a
 * day ahead (so that nothing loads them while the insert runs), then one {@code UPDATE} moves every job's trigger
 * time (definition and next trigger) so that group {@code g}'s job {@code i} is due at
 * {@code now + g.firstDueMs + g.spreadMs * i / g.count}. Start the server right after {@link #insert}.
 *
 * <p>Not thread-safe: confined to the run's main thread.
 */
public final class OneShotJobs {

    private static final int INSERT_BATCH = 2_000;

    /**
     * Jobs due evenly over {@code [now + firstDueMs, now + firstDueMs + spreadMs)}; all at once if {@code spreadMs}
     * is 0. No retries: one attempt each.
     *
     * @param namePrefix job names are {@code namePrefix + i}
     */
    public record Group(String namePrefix, int count, Target target, DeliveryPolicy delivery, long firstDueMs,
                        long spreadMs) {
        public Group {
            Objects.requireNonNull(namePrefix, "namePrefix");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(delivery, "delivery");
            if (count < 1) {
                throw new IllegalArgumentException("count must be positive: " + count);
            }
            if (firstDueMs < 0 || spreadMs < 0) {
                throw new IllegalArgumentException("firstDueMs and spreadMs must not be negative: " + firstDueMs
                        + ", " + spreadMs);
            }
        }
    }

    private OneShotJobs() {
    }

    /**
     * Inserts every group's jobs and moves their trigger times to be relative to the clock's now.
     *
     * @return that now (epoch ms): the time every group's {@code firstDueMs} counts from
     */
    public static long insert(JdbcStores stores, List<Group> groups, Clock clock) {
        long farAheadMs = clock.millis() + TimeUnit.DAYS.toMillis(1);
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(1, clock);
        List<NewJob> batch = new ArrayList<>(INSERT_BATCH);
        for (Group group : groups) {
            for (int i = 0; i < group.count(); i++) {
                Instant at = Instant.ofEpochMilli(farAheadMs + group.firstDueMs()
                        + group.spreadMs() * i / group.count());
                batch.add(new NewJob(ids.nextId(), group.namePrefix() + i, ScheduleSpec.oneShot(at), group.target(),
                        null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, group.delivery(),
                        JobOperations.DEFAULT, at));
                if (batch.size() == INSERT_BATCH) {
                    stores.jobs().insertAll(batch);
                    batch.clear();
                }
            }
        }
        if (!batch.isEmpty()) {
            stores.jobs().insertAll(batch);
        }
        long nowMs = clock.millis();
        shiftTriggers(stores, farAheadMs - nowMs);
        return nowMs;
    }

    /** Moves every job's one-shot time (definition and next trigger) {@code shiftMs} earlier. */
    private static void shiftTriggers(JdbcStores stores, long shiftMs) {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement("UPDATE tw_job SET"
                        + " next_trigger_time_ms = next_trigger_time_ms - ?, schedule_at_ms = schedule_at_ms - ?")) {
            ps.setLong(1, shiftMs);
            ps.setLong(2, shiftMs);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("moving the jobs' trigger times failed: " + e.getMessage(), e);
        }
    }
}
