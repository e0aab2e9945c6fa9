package dev.tickwheel.server.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.store.CalendarStore;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The seeds' STPE trap: a loader run whose store call throws must not cancel the later runs. */
class InstanceLoaderFailureTest {

    @Test
    void loadDue_storeThrows_keepsItsScheduleAndRecoversWhenTheStoreDoes() throws Exception {
        JobStore jobs = mock(JobStore.class);
        CountDownLatch recovered = new CountDownLatch(1);
        when(jobs.findDue(any(), any(), anyInt(), any()))
                .thenThrow(new StoreException("database unreachable", null))
                .thenThrow(new StoreException("database unreachable", null))
                .thenThrow(new StoreException("database unreachable", null))
                .thenAnswer(invocation -> {
                    recovered.countDown();
                    return List.of();
                });
        Clock clock = Clock.systemUTC();
        InstanceLoader loader = new InstanceLoader(jobs, mock(InstanceStore.class), mock(OwnerArming.class),
                holdingShardZero(), new InstancePlanner(Duration.ofSeconds(5), new MisfireResolver(10)), new TimeExpressionParser(clock),
                new SnowflakeIdGenerator(1, clock), clock, Duration.ofSeconds(30), 100, DispatchListener.NONE,
                new CalendarCatalog(mock(CalendarStore.class)), new JobCatalog(jobs, Duration.ofSeconds(10)));
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        try (PeriodicTaskScheduler scheduler = new PeriodicTaskScheduler("loader-test", 1,
                (name, failure) -> reported.add(failure), Duration.ofSeconds(5))) {
            scheduler.scheduleAtFixedRate("loader", loader::loadDue, Duration.ZERO, Duration.ofMillis(1));
            assertTrue(recovered.await(10, TimeUnit.SECONDS), "the loader ran again after its failures");
            assertEquals(3, scheduler.stats("loader").orElseThrow().failures());
        }
        assertEquals(3, reported.size());
        assertTrue(reported.get(0).getMessage().contains("database unreachable"));
        verify(jobs, atLeast(4)).findDue(any(), any(), anyInt(), any());
    }

    private static ShardOwnership holdingShardZero() {
        ShardOwnership ownership = mock(ShardOwnership.class);
        when(ownership.heldShards()).thenReturn(java.util.Set.of(0));
        return ownership;
    }
}
