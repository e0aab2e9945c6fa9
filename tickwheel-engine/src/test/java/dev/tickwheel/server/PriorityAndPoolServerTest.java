package dev.tickwheel.server;

import static dev.tickwheel.server.access.Namespaces.DEFAULT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Priorities and pools through the whole engine on its embedded H2 store: the order in which a full server admits
 * waiting instances (the job's priority, a run's own), a pool's limit across its jobs, and a job moved into a pool.
 */
class PriorityAndPoolServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    /** Instance ids in the order their handler ran. */
    private final List<Long> order = new CopyOnWriteArrayList<>();
    private final CountDownLatch openGate = new CountDownLatch(1);
    private final Set<Long> inHandler = ConcurrentHashMap.newKeySet();
    private final AtomicInteger mostInHandler = new AtomicInteger();
    private TickwheelServer server;

    @AfterEach
    void stop() {
        openGate.countDown();
        if (server != null) {
            server.close();
        }
    }

    private TickwheelServer start(int maxCallsInFlight) {
        server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .maxCallsInFlight(maxCallsInFlight)
                .handlerThreads(8)
                .handler("record", ctx -> order.add(ctx.instanceId()))
                .handler("gate", ctx -> {
                    inHandler.add(ctx.instanceId());
                    mostInHandler.accumulateAndGet(inHandler.size(), Math::max);
                    try {
                        if (!openGate.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the test never opened the gate");
                        }
                    } finally {
                        inHandler.remove(ctx.instanceId());
                    }
                })
                .build()
                .start();
        return server;
    }

    /**
     * One call slot, held by a run that waits at a gate; then runs of a priority-1 job, a priority-9 job and a job of
     * the default priority (two of whose runs ask for 9) fire and wait. Once the gate opens they run highest first:
     * the priority-9 ones (job or run), then the default ones, then the priority-1 ones; and a run's own priority is
     * stored on its instance. (Within one priority they go oldest first, by when they fired; runs due at the same
     * instant fire in no set order, so that order is CallSlots' unit tests' business.)
     */
    @Test
    void oneCallSlot_waitingRunsOfThreePriorities_runHighestFirst_aRunsOwnPriorityCounts() {
        start(1);
        Job blocker = server.jobs().create(JobSpec.of("blocker", ScheduleSpec.api(), Target.handler("gate")));
        Job low = server.jobs().create(JobSpec.of("low", ScheduleSpec.api(), Target.handler("record"))
                .withDelivery(priority(1)));
        Job high = server.jobs().create(JobSpec.of("high", ScheduleSpec.api(), Target.handler("record"))
                .withDelivery(priority(9)));
        Job normal = server.jobs().create(JobSpec.of("normal", ScheduleSpec.api(), Target.handler("record")));
        assertEquals(DeliveryPolicy.DEFAULT_PRIORITY, normal.delivery().priority());
        long held = server.jobs().run(blocker.id(), 0, null).id();
        Await.until(() -> "the blocker in its handler", WAIT, () -> inHandler.contains(held));

        List<Long> lows = runs(low, 4, null);
        List<Long> normals = runs(normal, 4, null);
        List<Long> urgentNormals = runs(normal, 2, 9);
        List<Long> highs = runs(high, 4, null);
        Await.until(() -> "14 runs waiting for the slot, " + server.waitingForCallSlot() + " are", WAIT,
                () -> server.waitingForCallSlot() == 14);
        openGate.countDown();
        Await.until(() -> "14 runs made, " + order.size() + " are", WAIT, () -> order.size() == 14);

        Set<Long> nines = new HashSet<>(highs);
        nines.addAll(urgentNormals);
        assertEquals(nines, new HashSet<>(order.subList(0, 6)), "priority 9 first, job's or run's: " + order);
        assertEquals(new HashSet<>(normals), new HashSet<>(order.subList(6, 10)), "then the default: " + order);
        assertEquals(new HashSet<>(lows), new HashSet<>(order.subList(10, 14)), "then priority 1: " + order);
        assertEquals(9, instance(urgentNormals.get(0)).priority(), "a run's own priority is kept on its instance");
        assertEquals(null, instance(normals.get(0)).priority(), "a run without one has its job's");
    }

    /**
     * A pool of 2 shared by three jobs whose calls wait at a gate: only two calls are in flight, whichever jobs they
     * belong to; the others wait for the pool (still WAITING) and all run once the gate opens.
     */
    @Test
    void poolOfTwo_sharedByThreeJobs_neverMoreThanTwoCallsAtOnce_theRestWaitAndRun() {
        start(100);
        server.pools().create(DEFAULT, "pair", 2, null);
        List<Long> runs = new ArrayList<>();
        for (int j = 0; j < 3; j++) {
            Job job = server.jobs().create(JobSpec.of("pooled-" + j, ScheduleSpec.api(), Target.handler("gate"))
                    .withDelivery(pool("pair")));
            assertEquals("pair", job.delivery().pool());
            runs.addAll(runs(job, 3, null));
        }
        Await.until(() -> "2 in their handler and 7 waiting, " + inHandler.size() + " and "
                + server.waitingForCallSlot() + " are", WAIT,
                () -> inHandler.size() == 2 && server.waitingForCallSlot() == 7);
        assertEquals(new dev.tickwheel.server.dispatch.CallSlots.PoolUsage(2, 7), server.poolUsage("pair"));
        long waiting = runs.stream().filter(id -> instance(id).status() == InstanceStatus.WAITING).count();
        assertEquals(7, waiting, "instances held back by the pool are WAITING in the store");
        openGate.countDown();
        for (long id : runs) {
            Await.until(() -> "run " + id + " succeeded", WAIT,
                    () -> instance(id).status() == InstanceStatus.SUCCEEDED);
        }
        assertEquals(2, mostInHandler.get(), "calls in flight at once");
        int shard = Shards.ofPool("pair", Shards.DEFAULT_COUNT);
        runs.forEach(id -> assertEquals(shard, instance(id).shard(), "every instance of the pool on its shard"));
    }

    @Test
    void jobMovedIntoAPool_itsWaitingInstancesMoveToThePoolsShard_andAnUnknownPoolIsRefused() {
        start(100);
        Job job = server.jobs().create(JobSpec.of("later", ScheduleSpec.api(), Target.handler("record")));
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            runs.add(server.jobs().run(job.id(), 3_600_000, null).id());
        }
        Set<Integer> before = new HashSet<>();
        runs.forEach(id -> before.add(instance(id).shard()));
        assertTrue(before.size() > 1, "a job without a pool spreads its instances: " + before);

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> server.jobs()
                .update(job.id(), JobSpec.of("later", ScheduleSpec.api(), Target.handler("record"))
                        .withDelivery(pool("nope"))));
        assertTrue(unknown.getMessage().startsWith("pool 'nope' does not exist"), unknown.getMessage());

        server.pools().create(DEFAULT, "slow-lane", 0, new dev.tickwheel.server.pool.InstancePool.Rate(1, 1_000));
        server.jobs().update(job.id(), JobSpec.of("later", ScheduleSpec.api(), Target.handler("record"))
                .withDelivery(pool("slow-lane")));
        int shard = Shards.ofPool("slow-lane", Shards.DEFAULT_COUNT);
        runs.forEach(id -> assertEquals(shard, instance(id).shard(), "moved to the pool's shard"));
        assertEquals(dev.tickwheel.server.store.PoolStore.Deletion.IN_USE, server.pools().delete(DEFAULT, "slow-lane"));
    }

    private List<Long> runs(Job job, int count, Integer priority) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(server.jobs().run(job.id(), new RunSpec(null, 0L, null, null, priority)).instance().id());
        }
        return ids;
    }

    private Instance instance(long id) {
        return server.instances().history(id).map(InstanceHistory::instance).orElseThrow();
    }

    private static DeliveryPolicy priority(int priority) {
        return new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0, DeliveryPolicy.OverLimit.WAIT,
                priority, null, Completion.IMMEDIATE);
    }

    private static DeliveryPolicy pool(String pool) {
        return new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0, DeliveryPolicy.OverLimit.WAIT,
                DeliveryPolicy.DEFAULT_PRIORITY, pool, Completion.IMMEDIATE);
    }
}
