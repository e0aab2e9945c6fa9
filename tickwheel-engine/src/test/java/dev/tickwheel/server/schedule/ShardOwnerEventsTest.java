package dev.tickwheel.server.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mockito.Mockito.mock;

import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.server.cluster.ClusterBus;
import dev.tickwheel.server.cluster.ClusterEvent;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Prompts from other members reach the job catalog: a stamped copy of a job is refused once they may be stale. */
class ShardOwnerEventsTest {

    private static final Instant T0 = Instant.parse("2031-01-02T03:04:05Z");

    private final JobCatalog catalog = new JobCatalog(mock(JobStore.class), Duration.ofSeconds(10));
    private final ShardOwner owner = new ShardOwner(mock(ShardOwnership.class), mock(JobStore.class),
            mock(InstanceStore.class), catalog, mock(InstanceDispatcher.class), mock(InstanceLoader.class),
            mock(ShardRecovery.class), mock(ForeignClaimSettler.class), mock(ClusterBus.class),
            mock(OwnerArming.class), mock(PeriodicTaskScheduler.class), Clock.systemUTC(), Duration.ofMinutes(2),
            () -> { });

    private static Job job(long id) {
        return new Job(id, "job " + id, ScheduleSpec.api(), Target.handler("h"), null, true, MisfirePolicy.SKIP,
                RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null, T0, T0, 0);
    }

    @Test
    void resync_refusesTheCopiesStampedBefore_sinceJobChangesMayHaveBeenMissed() {
        JobCatalog.Stamped stamped = catalog.stamp(job(11));
        assertEquals(Optional.of(stamped.job()), catalog.ifCurrent(stamped));

        owner.onEvent(new ClusterEvent.Resync());

        assertNull(catalog.ifCurrent(stamped));
    }

    @Test
    void jobChangedElsewhere_refusesTheCopyOfThatJob() {
        JobCatalog.Stamped stamped = catalog.stamp(job(11));

        owner.onEvent(new ClusterEvent.JobChanged(11));

        assertNull(catalog.ifCurrent(stamped));
    }
}
