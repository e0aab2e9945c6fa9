package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The batched store operations the dispatcher's hot path uses ({@link InstanceStore#claimBatch},
 * {@link InstanceStore#markAllSucceeded}, {@link InstanceStore#createInstancesAndAdvanceJobs}) keep the per-row
 * compare-and-set guarantees: run once per database by a subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractBatchStoreContractTest {

    static final Instant START = Instant.parse("2030-01-01T00:00:00.123Z");

    private final AtomicLong ids = new AtomicLong(1_000_000);
    private JdbcStores stores;
    private JobStore jobs;
    private InstanceStore instances;

    protected abstract String createDatabase() throws Exception;

    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(createDatabase()).poolName("tickwheel-batch-test")
                .maxPoolSize(10).build());
        jobs = stores.jobs();
        instances = stores.instances();
        ShardHolder.joinAndHoldAll(stores);
    }

    @AfterAll
    void closeStores() throws Exception {
        stores.close();
        dropDatabase();
    }

    @Test
    void claimBatch_mixedStatuses_returnsExactlyTheWaitingRowsAsClaimed() {
        Job job = insertJob(START);
        List<NewInstance> created = createWaiting(job, 4);
        long cancelled = created.get(1).id();
        long dispatching = created.get(2).id();
        assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(cancelled)).get(0).outcome());
        assertTrue(!instances.claimBatch(List.of(dispatching), START).isEmpty());

        List<Instance> claimed = instances.claimBatch(List.of(created.get(0).id(), cancelled, dispatching,
                ids.incrementAndGet(), created.get(3).id(), created.get(0).id()), START.plusMillis(7));

        assertEquals(Set.of(created.get(0).id(), created.get(3).id()),
                claimed.stream().map(Instance::id).collect(java.util.stream.Collectors.toSet()));
        for (Instance row : claimed) {
            assertEquals(InstanceStatus.DISPATCHING, row.status());
            assertEquals(1, row.attempt());
            assertEquals(START.plusMillis(7), row.actualTriggerTime());
            assertEquals(job.id(), row.jobId());
        }
        assertEquals(InstanceStatus.CANCELLED, instances.get(cancelled).orElseThrow().status());
        assertEquals(1, instances.get(dispatching).orElseThrow().attempt());
    }

    @Test
    void claimBatch_eightThreadsRaceOnTheSameIds_eachInstanceClaimedOnce() throws Exception {
        raceEightThreads((store, ids) -> store.claimBatch(ids, START).stream().map(Instance::id).toList());
    }

    private void raceEightThreads(java.util.function.BiFunction<InstanceStore, List<Long>, List<Long>> claim)
            throws Exception {
        Job job = insertJob(START);
        List<Long> all = createWaiting(job, 2_000).stream().map(NewInstance::id).toList();
        Map<Long, Integer> claims = new ConcurrentHashMap<>();
        CyclicBarrier start = new CyclicBarrier(8);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long seed = 42L + t;
                done.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>(all);
                    Collections.shuffle(mine, new Random(seed));
                    start.await();
                    for (int from = 0; from < mine.size(); from += 100) {
                        for (long id : claim.apply(instances, mine.subList(from, from + 100))) {
                            claims.merge(id, 1, Integer::sum);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(all.size(), claims.size(), "every instance claimed");
        claims.forEach((id, n) -> assertEquals(1, n, "claims of " + id));
        for (long id : all.subList(0, 50)) {
            assertEquals(1, instances.get(id).orElseThrow().attempt());
        }
    }

    /**
     * Eight threads, 12 rounds each over a fresh set of instances, claiming random small batches (1 to 6 ids, drawn
     * from the same 300 ids, so that some batches find every id still waiting and others lose some to a racing
     * thread): batches wait for each other's row locks and find rows moved while they waited, many times (on H2, one
     * compare-and-set per row, {@link RowByRowCas}). Each instance must be claimed exactly once, as attempt 1.
     */
    @Test
    void claimBatch_eightThreadsRaceWithSmallOverlappingBatches_eachInstanceClaimedOnce() throws Exception {
        for (int round = 0; round < 12; round++) {
            List<Long> all = createWaiting(insertJob(START), 300).stream().map(NewInstance::id).toList();
            Map<Long, Integer> claims = raceSmallBatches(all, 7_000L + round,
                    ids -> instances.claimBatch(ids, START).stream().map(Instance::id).toList());
            assertEquals(all.size(), claims.size(), "every instance claimed, round " + round);
            int finalRound = round;
            claims.forEach((id, n) -> assertEquals(1, n, "claims of " + id + " in round " + finalRound));
            for (long id : all) {
                Instance row = instances.get(id).orElseThrow();
                assertEquals(InstanceStatus.DISPATCHING, row.status());
                assertEquals(1, row.attempt(), "attempt of " + row.id());
            }
        }
    }

    /** As the claim race above, for the batched success: each DISPATCHING instance is reported moved exactly once. */
    @Test
    void markAllSucceeded_eightThreadsRaceWithSmallOverlappingBatches_eachInstanceMovedOnce() throws Exception {
        for (int round = 0; round < 8; round++) {
            List<Long> all = createWaiting(insertJob(START), 300).stream().map(NewInstance::id).toList();
            assertEquals(all.size(), instances.claimBatch(all, START).size());
            Map<Long, Integer> moves = raceSmallBatches(all, 9_000L + round, instances::markAllSucceeded);
            assertEquals(all.size(), moves.size(), "every instance moved, round " + round);
            int finalRound = round;
            moves.forEach((id, n) -> assertEquals(1, n, "moves of " + id + " in round " + finalRound));
            all.forEach(id -> assertEquals(InstanceStatus.SUCCEEDED, instances.get(id).orElseThrow().status()));
        }
    }

    /**
     * A batch in which one instance was moved to a later time than its timer was armed for: the others are claimed,
     * that one is not: each row's own armed-for time bounds its claim, not the batch's latest.
     */
    @Test
    void claimArmed_oneRowDueAfterItsArmedForTime_claimsTheOthersOnly() {
        List<NewInstance> created = createWaiting(insertJob(START), 3);
        long armedEarly = created.get(2).id(); // due START + 2 ms, armed for START: a timer from before a reschedule
        Map<Long, Long> armedFor = Map.of(
                created.get(0).id(), START.plusMillis(10).toEpochMilli(),
                created.get(1).id(), START.plusMillis(10).toEpochMilli(),
                armedEarly, START.toEpochMilli());

        Set<Long> claimed = instances.claimArmed(armedFor, START.plusMillis(10)).stream().map(Instance::id)
                .collect(java.util.stream.Collectors.toSet());

        assertEquals(Set.of(created.get(0).id(), created.get(1).id()), claimed);
        assertEquals(InstanceStatus.WAITING, instances.get(armedEarly).orElseThrow().status());
        assertEquals(0, instances.get(armedEarly).orElseThrow().attempt());
        assertEquals(Set.of(armedEarly), instances.claimArmed(Map.of(armedEarly, START.plusMillis(2).toEpochMilli()),
                START.plusMillis(10)).stream().map(Instance::id).collect(java.util.stream.Collectors.toSet()));
    }

    /**
     * Eight threads started together each move 150 random batches of 1 to 6 ids drawn from {@code all} (seeded by
     * {@code seed} and the thread), then all of {@code all}; returns how many times each id was reported moved.
     */
    private static Map<Long, Integer> raceSmallBatches(List<Long> all, long seed,
            java.util.function.Function<List<Long>, java.util.Collection<Long>> move) throws Exception {
        Map<Long, Integer> moves = new ConcurrentHashMap<>();
        raceThreads(8, t -> {
            Random random = new Random(seed * 31 + t);
            for (int batch = 0; batch < 150; batch++) {
                List<Long> ids = new ArrayList<>();
                int size = 1 + random.nextInt(6);
                for (int i = 0; i < size; i++) {
                    ids.add(all.get(random.nextInt(all.size())));
                }
                move.apply(ids).forEach(id -> moves.merge(id, 1, Integer::sum));
            }
            move.apply(all).forEach(id -> moves.merge(id, 1, Integer::sum));
        });
        return moves;
    }

    /** Runs {@code work} on {@code threads} threads started together; rethrows the first failure. */
    private static void raceThreads(int threads, ThreadWork work) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    work.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface ThreadWork {
        void run(int thread) throws Exception;
    }

    @Test
    void claimBatch_racingCancels_neverBothCancelledAndClaimed() throws Exception {
        Job job = insertJob(START);
        List<Long> all = createWaiting(job, 1_000).stream().map(NewInstance::id).toList();
        Set<Long> claimed = ConcurrentHashMap.newKeySet();
        Set<Long> cancelled = ConcurrentHashMap.newKeySet();
        CyclicBarrier start = new CyclicBarrier(4);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int from = 0; from < all.size(); from += 50) {
                        instances.claimBatch(all.subList(from, from + 50), START)
                                .forEach(row -> assertTrue(claimed.add(row.id()), "claimed twice: " + row.id()));
                    }
                    return null;
                }));
                done.add(pool.submit(() -> {
                    start.await();
                    for (long id : all) {
                        if (instances.cancelAll(List.of(id)).get(0).outcome() == CancelOutcome.CANCELLED) {
                            assertTrue(cancelled.add(id), "cancelled twice: " + id);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (long id : all) {
            assertTrue(claimed.contains(id) ^ cancelled.contains(id), "claimed xor cancelled: " + id);
        }
    }

    @Test
    void markAllSucceeded_movesOnlyDispatchingInstances() {
        Job job = insertJob(START);
        List<NewInstance> created = createWaiting(job, 3);
        instances.claimBatch(List.of(created.get(0).id(), created.get(1).id()), START);
        assertTrue(instances.markAllSucceeded(List.of(created.get(1).id())).contains(created.get(1).id()));

        Set<Long> moved = instances.markAllSucceeded(
                List.of(created.get(0).id(), created.get(1).id(), created.get(2).id()));

        assertEquals(Set.of(created.get(0).id()), moved);
        assertEquals(InstanceStatus.SUCCEEDED, instances.get(created.get(0).id()).orElseThrow().status());
        assertEquals(InstanceStatus.WAITING, instances.get(created.get(2).id()).orElseThrow().status());
    }

    @Test
    void createInstancesAndAdvanceJobs_pageOfJobs_eachAsTheSingleCallWould() {
        Job fresh = insertJob(START);
        Job stale = insertJob(START);
        Job withSlotTaken = insertJob(START);
        NewInstance taken = new NewInstance(ids.incrementAndGet(), withSlotTaken.id(), START, null);
        instances.createInstancesAndAdvanceJob(new JobAdvance(withSlotTaken.id(), versionOf(withSlotTaken.id()), START, START, List.of(taken), false, null));

        NewInstance a = new NewInstance(ids.incrementAndGet(), fresh.id(), START, null);
        NewInstance b = new NewInstance(ids.incrementAndGet(), fresh.id(), START.plusSeconds(1), null);
        NewInstance c = new NewInstance(ids.incrementAndGet(), stale.id(), START, null);
        NewInstance again = new NewInstance(ids.incrementAndGet(), withSlotTaken.id(), START, null);
        NewInstance d = new NewInstance(ids.incrementAndGet(), withSlotTaken.id(), START.plusSeconds(1), null);
        List<AdvanceResult> results = instances.createInstancesAndAdvanceJobs(List.of(
                new JobAdvance(fresh.id(), versionOf(fresh.id()), START, START.plusSeconds(2), List.of(a, b), false, null),
                new JobAdvance(stale.id(), versionOf(stale.id()), START.minusSeconds(1), START.plusSeconds(2), List.of(c), false, null),
                new JobAdvance(withSlotTaken.id(), versionOf(withSlotTaken.id()), START, null, List.of(again, d), false, null)));

        assertEquals(new AdvanceResult(true, List.of(a, b), List.of()), results.get(0));
        assertEquals(AdvanceResult.LOST, results.get(1));
        assertEquals(new AdvanceResult(true, List.of(d), List.of(again)), results.get(2));
        assertEquals(START.plusSeconds(2), jobs.get(fresh.id()).orElseThrow().nextTriggerTime());
        assertEquals(START, jobs.get(stale.id()).orElseThrow().nextTriggerTime());
        assertFalse(instances.get(c.id()).isPresent());
        assertFalse(instances.get(again.id()).isPresent());
        assertEquals(InstanceStatus.WAITING, instances.get(d.id()).orElseThrow().status());
    }

    @Test
    void createInstancesAndAdvanceJobs_moreRowsThanOneInsert_createsEveryOne() {
        List<JobAdvance> advances = new ArrayList<>();
        Set<Long> expected = new HashSet<>();
        for (int j = 0; j < 600; j++) {
            Job job = insertJob(START);
            NewInstance first = new NewInstance(ids.incrementAndGet(), job.id(), START, null);
            NewInstance second = new NewInstance(ids.incrementAndGet(), job.id(), START.plusMillis(1), null);
            expected.add(first.id());
            expected.add(second.id());
            advances.add(new JobAdvance(job.id(), versionOf(job.id()), START, null, List.of(first, second), false, null));
        }
        AtomicInteger created = new AtomicInteger();
        instances.createInstancesAndAdvanceJobs(advances).forEach(r -> created.addAndGet(r.created().size()));

        assertEquals(expected.size(), created.get());
        for (long id : expected) {
            assertTrue(instances.get(id).isPresent(), "instance " + id);
        }
    }

    private Job insertJob(Instant nextTrigger) {
        return jobs.insert(new NewJob(ids.incrementAndGet(), "batch", ScheduleSpec.cron("0/1 * * * * ?", "UTC"),
                Target.handler("h"), null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, nextTrigger));
    }

    private List<NewInstance> createWaiting(Job job, int count) {
        List<NewInstance> batch = IntStream.range(0, count)
                .mapToObj(i -> new NewInstance(ids.incrementAndGet(), job.id(), START.plusMillis(i), null)).toList();
        assertTrue(instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), job.nextTriggerTime(), null, batch, false, null)).advanced());
        return batch;
    }

    /** The job's stored version (0 for an unknown job): what a loader that just read it would expect. */
    private long versionOf(long jobId) {
        return jobs.get(jobId).map(dev.tickwheel.server.job.Job::version).orElse(0L);
    }
}
