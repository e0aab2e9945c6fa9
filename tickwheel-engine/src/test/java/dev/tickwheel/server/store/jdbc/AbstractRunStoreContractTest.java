package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.DuplicateIdException;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The caller's side of the instance store, run once per database by a subclass: on-demand runs with caller's keys
 * ({@link InstanceStore#insertRuns}, {@link InstanceStore#findByKey}), cancels of
 * sets ({@link InstanceStore#cancelAll}), and reschedules ({@link InstanceStore#reschedule}) with the claim fence that
 * makes them race-free ({@link InstanceStore#claimArmed}).
 *
 * <p>Each test starts from empty tables and a clock at {@link #START}. The store is a cluster member that holds every
 * shard ({@link ShardHolder}), so claims pass their fences. The database must outlive a close of the store (an H2
 * file, a PostgreSQL schema): {@link #insertRuns_storeReopened_keyStillNamesItsInstance} reopens it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRunStoreContractTest {

    static final Instant START = Instant.parse("2030-01-01T00:00:00.123Z");
    /** Threads calling {@link InstanceStore#insertRuns} with the same key at once. */
    static final int KEY_RACERS = 50;

    protected final MutableClock clock = new MutableClock(START);
    private final AtomicLong ids = new AtomicLong(1_000);
    private String jdbcUrl;
    protected JdbcStores stores;
    protected JobStore jobs;
    protected InstanceStore instances;

    /** Creates an empty database for this test class, which survives a close of its store, and returns its URL. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        jdbcUrl = createDatabase();
        open();
    }

    private void open() {
        stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl(jdbcUrl)
                .poolName("tickwheel-run-test")
                .maxPoolSize(10)
                .clock(clock)
                .build());
        jobs = stores.jobs();
        instances = stores.instances();
        ShardHolder.joinAndHoldAll(stores);
    }

    /** Closes the store as a stopping server does (it leaves the cluster first) and opens it again. */
    private void reopen() {
        stores.cluster().leave();
        stores.close();
        open();
    }

    @AfterAll
    void closeStores() throws Exception {
        if (stores != null) {
            stores.close();
        }
        dropDatabase();
    }

    @BeforeEach
    void emptyTables() throws Exception {
        clock.set(START);
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM tw_instance");
            if (TestPartitions.partitioned(connection)) { // the keys live in tables of their own there
                statement.executeUpdate("DELETE FROM tw_run_key");
                statement.executeUpdate("DELETE FROM tw_instance_slot");
            }
            statement.executeUpdate("DELETE FROM tw_job");
        }
    }

    // ---------------------------------------------------------------- fixtures

    long nextId() {
        return ids.incrementAndGet();
    }

    Job insertJob() {
        return jobs.insert(new NewJob(nextId(), "runs", ScheduleSpec.api(), Target.handler("noop"), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null));
    }

    NewInstance run(long jobId, String key, Instant due, String params) {
        return new NewInstance(nextId(), jobId, due, params, key, null, null, null);
    }

    /** Writes one run alone and returns what the store did. */
    RunWrite write(NewInstance run) {
        List<RunWrite> results = instances.insertRuns(List.of(run));
        assertEquals(1, results.size());
        return results.get(0);
    }

    /** A run of {@code job} with this key, due at {@link #START}, written and CREATED. */
    Instance created(Job job, String key) {
        RunWrite write = write(run(job.id(), key, START, null));
        assertEquals(RunWrite.Outcome.CREATED, write.outcome());
        return write.instance();
    }

    /** A keyed run driven into {@code status} through the store's legal transitions only. */
    Instance instanceIn(Job job, InstanceStatus status) {
        long id = created(job, "in-" + status + "-" + nextId()).id();
        switch (status) {
            case WAITING -> { }
            case DISPATCHING -> assertTrue(claim(id));
            case SUCCEEDED -> assertTrue(claim(id) && instances.markAllSucceeded(List.of(id)).contains(id));
            case FAILED -> assertTrue(claim(id) && instances.markFailed(id, "boom"));
            case CANCELLED -> assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(id)).get(0).outcome());
            case INTERRUPTED -> assertTrue(claim(id) && instances.markInterrupted(id, "cut"));
        }
        Instance stored = stored(id);
        assertEquals(status, stored.status());
        return stored;
    }

    boolean claim(long id) {
        return !instances.claimBatch(List.of(id), START).isEmpty();
    }

    /** The claim of a timer armed for {@code armedFor}; the ids it claimed. */
    Set<Long> claimArmed(long id, Instant armedFor) {
        return instances.claimArmed(Map.of(id, armedFor.toEpochMilli()), START).stream().map(Instance::id)
                .collect(Collectors.toSet());
    }

    Instance stored(long id) {
        return instances.get(id).orElseThrow(() -> new AssertionError("instance " + id + " is not stored"));
    }

    /** Rows of {@code jobId} with this key, counted by the database itself. */
    long rowsWithKey(long jobId, String key) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT COUNT(*) FROM tw_instance WHERE job_id = ? AND run_key = ?")) {
            ps.setLong(1, jobId);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    long rowsOfJob(long jobId) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT COUNT(*) FROM tw_instance WHERE job_id = ?")) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    static List<RunWrite.Outcome> outcomes(List<RunWrite> writes) {
        return writes.stream().map(RunWrite::outcome).toList();
    }

    /** Runs {@code task(thread)} on {@code threads} threads released together; rethrows the first failure. */
    static void race(int threads, IntTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.run(thread);
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            stop(pool);
        }
    }

    /**
     * Lets the pool's tasks finish before giving up on them: interrupting a thread in the middle of H2 file I/O
     * closes the database's file channel, and every later test of the class would fail on a closed store.
     */
    static void stop(ExecutorService pool) throws InterruptedException {
        pool.shutdown();
        if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    interface IntTask {
        void run(int thread) throws Exception;
    }

    // ---------------------------------------------------------------- insertRuns: keys

    @Test
    void insertRuns_newKeyedRun_createdAsStoredWithItsKey() {
        Job job = insertJob();
        NewInstance run = run(job.id(), "order-1", START.plusSeconds(30), "{\"a\":1}");

        RunWrite write = write(run);

        assertEquals(RunWrite.Outcome.CREATED, write.outcome());
        assertTrue(write.created());
        Instance stored = stored(run.id());
        assertEquals(stored, write.instance(), "as returned, so stored");
        assertEquals(InstanceStatus.WAITING, stored.status());
        assertEquals("order-1", stored.key());
        assertEquals("{\"a\":1}", stored.params());
        assertEquals(START.plusSeconds(30), stored.expectedTriggerTime());
        assertNull(stored.scheduledTriggerTime(), "an on-demand run fills no schedule slot");
        assertTrue(stored.isOnDemand());
        assertEquals(0, stored.attempt());
        assertEquals(START, stored.createdAt());
        assertEquals(Optional.of(stored), instances.findByKey(job.id(), "order-1"));
    }

    @Test
    void insertRuns_sameKeyTwice_returnsTheFirstInstance() throws SQLException {
        Job job = insertJob();
        NewInstance first = run(job.id(), "order-1", START, "{\"a\":1}");
        NewInstance second = run(job.id(), "order-1", START.plusSeconds(60), "{\"a\":2}");

        RunWrite firstWrite = write(first);
        clock.advance(Duration.ofSeconds(5));
        RunWrite secondWrite = write(second);

        assertEquals(RunWrite.Outcome.CREATED, firstWrite.outcome());
        assertEquals(RunWrite.Outcome.EXISTING, secondWrite.outcome());
        assertFalse(secondWrite.created());
        assertEquals(first.id(), secondWrite.instance().id());
        assertEquals(firstWrite.instance(), secondWrite.instance(), "the first's row, not the second's values");
        Instance stored = stored(first.id());
        assertEquals("{\"a\":1}", stored.params(), "the first's params stay");
        assertEquals(START, stored.expectedTriggerTime(), "the first's due time stays");
        assertEquals(START, stored.updatedAt(), "an EXISTING answer writes nothing");
        assertEquals("order-1", stored.key());
        assertEquals(Optional.of(stored), instances.findByKey(job.id(), "order-1"));
        assertTrue(instances.get(second.id()).isEmpty(), "the second run's id was never written");
        assertEquals(1, rowsWithKey(job.id(), "order-1"));
    }

    @Test
    void insertRuns_keyOfAnInstanceThatMovedOn_returnsItAsItIsNow() {
        Job job = insertJob();
        Instance claimed = instanceIn(job, InstanceStatus.DISPATCHING);
        Instance cancelled = instanceIn(job, InstanceStatus.CANCELLED);
        Instance succeeded = instanceIn(job, InstanceStatus.SUCCEEDED);
        Instance rescheduled = instanceIn(job, InstanceStatus.WAITING);
        assertEquals(RescheduleOutcome.Kind.RESCHEDULED,
                instances.reschedule(rescheduled.id(), START.plusSeconds(600), false, null).outcome());

        List<RunWrite> writes = instances.insertRuns(List.of(
                run(job.id(), claimed.key(), START, null),
                run(job.id(), cancelled.key(), START, null),
                run(job.id(), succeeded.key(), START, null),
                run(job.id(), rescheduled.key(), START, null)));

        assertEquals(List.of(RunWrite.Outcome.EXISTING, RunWrite.Outcome.EXISTING, RunWrite.Outcome.EXISTING,
                RunWrite.Outcome.EXISTING), outcomes(writes));
        assertEquals(stored(claimed.id()), writes.get(0).instance());
        assertEquals(InstanceStatus.DISPATCHING, writes.get(0).instance().status());
        assertEquals(InstanceStatus.CANCELLED, writes.get(1).instance().status());
        assertEquals(InstanceStatus.SUCCEEDED, writes.get(2).instance().status());
        assertEquals(START.plusSeconds(600), writes.get(3).instance().expectedTriggerTime());
    }

    @Test
    void insertRuns_keylessRuns_alwaysCreatedEvenAtTheSameDueTime() throws SQLException {
        Job job = insertJob();

        List<RunWrite> together = instances.insertRuns(List.of(run(job.id(), null, START, null),
                run(job.id(), null, START, null)));
        RunWrite alone = write(run(job.id(), null, START, null));

        assertEquals(List.of(RunWrite.Outcome.CREATED, RunWrite.Outcome.CREATED), outcomes(together));
        assertEquals(RunWrite.Outcome.CREATED, alone.outcome());
        Set<Long> created = Set.of(together.get(0).instance().id(), together.get(1).instance().id(),
                alone.instance().id());
        assertEquals(3, created.size(), "three instances");
        for (long id : created) {
            assertNull(stored(id).key());
            assertEquals(START, stored(id).expectedTriggerTime());
        }
        assertEquals(3, rowsOfJob(job.id()));
    }

    @Test
    void insertRuns_sameKeyUnderTwoJobs_twoInstances() {
        Job one = insertJob();
        Job other = insertJob();

        List<RunWrite> writes = instances.insertRuns(List.of(run(one.id(), "nightly", START, null),
                run(other.id(), "nightly", START, null)));

        assertEquals(List.of(RunWrite.Outcome.CREATED, RunWrite.Outcome.CREATED), outcomes(writes));
        assertNotEquals(writes.get(0).instance().id(), writes.get(1).instance().id());
        assertEquals(writes.get(0).instance(), instances.findByKey(one.id(), "nightly").orElseThrow());
        assertEquals(writes.get(1).instance(), instances.findByKey(other.id(), "nightly").orElseThrow());
    }

    @Test
    void insertRuns_keysDifferingInCaseOrSpaces_areDifferentKeys() {
        Job job = insertJob();
        List<String> keys = List.of("order-1", "Order-1", "ORDER-1", "order-1 ", " order-1");

        List<RunWrite> writes = instances.insertRuns(keys.stream().map(k -> run(job.id(), k, START, null)).toList());

        assertTrue(writes.stream().allMatch(RunWrite::created), "outcomes " + outcomes(writes));
        assertEquals(keys.size(), writes.stream().map(w -> w.instance().id()).distinct().count());
        for (RunWrite write : writes) {
            assertEquals(write.instance(), instances.findByKey(job.id(), write.instance().key()).orElseThrow(),
                    "key '" + write.instance().key() + "' is stored exactly");
        }
    }

    @Test
    void insertRuns_longestAndNonAsciiKeys_storedAndFoundExactly() {
        Job job = insertJob();
        String longest = "k".repeat(200);
        String emoji = "\uD83D\uDE80".repeat(100); // 100 rockets: 200 UTF-16 characters, the longest key too
        String accents = "Größe/ß/é/日本語";

        List<RunWrite> first = instances.insertRuns(List.of(run(job.id(), longest, START, null),
                run(job.id(), emoji, START, null), run(job.id(), accents, START, null)));
        List<RunWrite> again = instances.insertRuns(List.of(run(job.id(), longest, START, null),
                run(job.id(), emoji, START, null), run(job.id(), accents, START, null)));

        assertTrue(first.stream().allMatch(RunWrite::created), "outcomes " + outcomes(first));
        assertEquals(List.of(RunWrite.Outcome.EXISTING, RunWrite.Outcome.EXISTING, RunWrite.Outcome.EXISTING),
                outcomes(again));
        for (int i = 0; i < 3; i++) {
            assertEquals(first.get(i).instance(), again.get(i).instance());
        }
        assertEquals(longest, instances.findByKey(job.id(), longest).orElseThrow().key());
        assertEquals(emoji, instances.findByKey(job.id(), emoji).orElseThrow().key());
        assertEquals(accents, instances.findByKey(job.id(), accents).orElseThrow().key());
    }

    @Test
    void insertRuns_keyRepeatedInOneCall_firstCreatedLaterOnesExistingWithTheSameInstance() throws SQLException {
        Job job = insertJob();
        NewInstance a = run(job.id(), "dup", START, "{\"n\":1}");
        NewInstance b = run(job.id(), "dup", START.plusSeconds(9), "{\"n\":2}");
        NewInstance keyless = run(job.id(), null, START, null);
        NewInstance c = run(job.id(), "dup", START.plusSeconds(99), null);

        List<RunWrite> writes = instances.insertRuns(List.of(a, b, keyless, c));

        assertEquals(List.of(RunWrite.Outcome.CREATED, RunWrite.Outcome.EXISTING, RunWrite.Outcome.CREATED,
                RunWrite.Outcome.EXISTING), outcomes(writes));
        assertEquals(a.id(), writes.get(0).instance().id());
        assertEquals(writes.get(0).instance(), writes.get(1).instance());
        assertEquals(writes.get(0).instance(), writes.get(3).instance());
        assertEquals(keyless.id(), writes.get(2).instance().id());
        assertEquals(stored(a.id()), writes.get(0).instance());
        assertEquals("{\"n\":1}", stored(a.id()).params());
        assertTrue(instances.get(b.id()).isEmpty());
        assertTrue(instances.get(c.id()).isEmpty());
        assertEquals(1, rowsWithKey(job.id(), "dup"));
        assertEquals(2, rowsOfJob(job.id()));
    }

    @Test
    void insertRuns_runOfAMissingJob_noJobWhileTheOthersAreWritten() {
        Job job = insertJob();
        long missingJob = nextId();
        NewInstance before = run(job.id(), "before", START, null);
        NewInstance orphan = run(missingJob, "orphan", START, null);
        NewInstance orphanKeyless = run(missingJob, null, START, null);
        NewInstance after = run(job.id(), null, START, null);

        List<RunWrite> writes = instances.insertRuns(List.of(before, orphan, orphanKeyless, after));

        assertEquals(List.of(RunWrite.Outcome.CREATED, RunWrite.Outcome.NO_JOB, RunWrite.Outcome.NO_JOB,
                RunWrite.Outcome.CREATED), outcomes(writes));
        assertNull(writes.get(1).instance());
        assertNull(writes.get(2).instance());
        assertEquals(stored(before.id()), writes.get(0).instance());
        assertEquals(stored(after.id()), writes.get(3).instance());
        assertTrue(instances.get(orphan.id()).isEmpty());
        assertTrue(instances.get(orphanKeyless.id()).isEmpty());
        assertTrue(instances.findByKey(missingJob, "orphan").isEmpty());
    }

    @Test
    void insertRuns_onlyRunsOfMissingJobs_allNoJob() {
        List<RunWrite> writes = instances.insertRuns(List.of(run(nextId(), "x", START, null),
                run(nextId(), null, START, null)));

        assertEquals(List.of(RunWrite.Outcome.NO_JOB, RunWrite.Outcome.NO_JOB), outcomes(writes));
        assertEquals(0, instances.countByStatus().values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void insertRuns_emptyList_writesNothing() {
        assertEquals(List.of(), instances.insertRuns(List.of()));
    }

    @Test
    void insertRuns_1000RunsInOneCall_writes1000Rows() throws SQLException {
        Job job = insertJob();
        List<NewInstance> runs = IntStream.range(0, 1_000)
                .mapToObj(i -> run(job.id(), i % 2 == 0 ? "bulk-" + i : null, START.plusMillis(i), "{\"i\":" + i + "}"))
                .toList();
        List<String> keys = runs.stream().map(NewInstance::key).filter(k -> k != null).toList();

        List<RunWrite> writes = instances.insertRuns(runs);

        assertEquals(1_000, writes.size());
        for (int i = 0; i < runs.size(); i++) {
            assertEquals(RunWrite.Outcome.CREATED, writes.get(i).outcome(), "run " + i);
            assertEquals(runs.get(i).id(), writes.get(i).instance().id(), "run " + i + " answered in order");
            assertEquals(runs.get(i).key(), writes.get(i).instance().key(), "run " + i);
        }
        assertEquals(1_000, rowsOfJob(job.id()));
        List<Instance> found = findByKeys(job.id(), keys);
        assertEquals(500, found.size());
        assertEquals(Set.copyOf(keys), found.stream().map(Instance::key).collect(Collectors.toSet()));

        // The same call again: every keyed run is found, every keyless one is a new instance.
        List<NewInstance> again = runs.stream().map(r -> run(job.id(), r.key(), r.expectedTriggerTime(), null))
                .toList();
        List<RunWrite> second = instances.insertRuns(again);
        for (int i = 0; i < again.size(); i++) {
            if (runs.get(i).key() == null) {
                assertEquals(RunWrite.Outcome.CREATED, second.get(i).outcome(), "keyless run " + i);
            } else {
                assertEquals(RunWrite.Outcome.EXISTING, second.get(i).outcome(), "keyed run " + i);
                assertEquals(runs.get(i).id(), second.get(i).instance().id(), "keyed run " + i);
            }
        }
        assertEquals(1_500, rowsOfJob(job.id()));
    }

    @Test
    void insertRuns_idTaken_throwsDuplicateIdAndWritesNothing() {
        Job job = insertJob();
        Instance taken = created(job, "taken");
        NewInstance fresh = run(job.id(), "fresh", START, null);
        NewInstance clash = new NewInstance(taken.id(), job.id(), START, null, "clash", null, null, null);

        DuplicateIdException e = assertThrows(DuplicateIdException.class,
                () -> instances.insertRuns(List.of(fresh, clash)));

        assertTrue(e.getMessage().endsWith(" id already exists: " + taken.id()), e.getMessage());
        assertTrue(instances.get(fresh.id()).isEmpty(), "nothing of the call is written");
        assertTrue(instances.findByKey(job.id(), "fresh").isEmpty());
        assertTrue(instances.findByKey(job.id(), "clash").isEmpty());
        assertEquals("taken", stored(taken.id()).key());
    }

    @Test
    void findByKey_someUnknownKeysAndOtherJobs_findsOnlyThisJobsStoredOnes() {
        Job job = insertJob();
        Job other = insertJob();
        Instance a = created(job, "a");
        Instance b = created(job, "b");
        created(other, "c");

        List<Instance> found = findByKeys(job.id(), List.of("b", "a", "c", "nope"));

        assertEquals(Set.of(a, b), Set.copyOf(found));
        assertEquals(List.of(), findByKeys(job.id(), List.of()));
        assertTrue(instances.findByKey(job.id(), "c").isEmpty());
        assertTrue(instances.findByKey(nextId(), "a").isEmpty());
    }

    // ---------------------------------------------------------------- insertRuns: races

    @Test
    void insertRuns_50ThreadsSameKeyAtOnce_oneCreatedAllAnswerTheSameInstance() throws Exception {
        Job job = insertJob();
        ExecutorService pool = Executors.newFixedThreadPool(KEY_RACERS);
        long startNanos = System.nanoTime();
        try {
            for (int round = 0; round < 20; round++) {
                String key = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(KEY_RACERS);
                List<Future<RunWrite>> futures = new ArrayList<>();
                Set<Long> submitted = ConcurrentHashMap.newKeySet();
                for (int t = 0; t < KEY_RACERS; t++) {
                    NewInstance run = run(job.id(), key, START.plusMillis(t), "{\"thread\":" + t + "}");
                    submitted.add(run.id());
                    futures.add(pool.submit(() -> {
                        start.await();
                        return write(run);
                    }));
                }
                List<RunWrite> writes = new ArrayList<>();
                for (Future<RunWrite> future : futures) {
                    writes.add(future.get(2, TimeUnit.MINUTES));
                }

                long createdCount = writes.stream().filter(RunWrite::created).count();
                assertEquals(1, createdCount, "round " + round + ": CREATED answers " + outcomes(writes));
                Set<Long> answered = writes.stream().map(w -> w.instance().id()).collect(Collectors.toSet());
                assertEquals(1, answered.size(), "round " + round + ": every caller gets the one instance");
                long id = answered.iterator().next();
                assertTrue(submitted.contains(id), "round " + round + ": the instance is one caller's run");
                assertEquals(1, rowsWithKey(job.id(), key), "round " + round + ": rows with the key");
                assertEquals(List.of(stored(id)), findByKeys(job.id(), List.of(key)));
            }
        } finally {
            stop(pool);
        }
        System.out.printf("%s: 20 rounds of %d threads writing one key in %d ms%n", getClass().getSimpleName(),
                KEY_RACERS, (System.nanoTime() - startNanos) / 1_000_000);
        assertEquals(20, rowsOfJob(job.id()));
    }

    /**
     * Batches of runs whose keys overlap, in different orders (two API clients retrying the same batch, one of them
     * reversed or reshuffled): still one instance per key, every caller answered, none failing. The store's
     * insert-if-absent waits on a key another transaction is inserting; the order the keys are written in decides
     * whether two such batches can wait on each other.
     */
    @Test
    void insertRuns_concurrentBatchesWithTheSameKeysInOtherOrders_oneInstancePerKeyAndNoCallFails() throws Exception {
        int threads = 10; // as many as the pool has connections: every batch in flight at once
        int keysPerBatch = 500;
        int rounds = 6;
        Job job = insertJob();
        long startNanos = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < keysPerBatch; k++) {
                keys.add("batch-" + round + "-" + k);
            }
            Map<Integer, List<RunWrite>> answers = new ConcurrentHashMap<>();
            int r = round;
            race(threads, thread -> {
                List<String> order = new ArrayList<>(keys);
                if (thread % 2 == 1) {
                    Collections.reverse(order);
                }
                if (thread >= 2) {
                    Collections.shuffle(order, new Random(31L * r + thread));
                }
                answers.put(thread, instances.insertRuns(order.stream()
                        .map(k -> run(job.id(), k, START, null)).toList()));
            });

            Map<String, Set<Long>> idsByKey = new HashMap<>();
            Map<String, Integer> createdByKey = new HashMap<>();
            for (List<RunWrite> writes : answers.values()) {
                for (RunWrite write : writes) {
                    idsByKey.computeIfAbsent(write.instance().key(), k -> new HashSet<>())
                            .add(write.instance().id());
                    if (write.created()) {
                        createdByKey.merge(write.instance().key(), 1, Integer::sum);
                    }
                }
            }
            for (String key : keys) {
                assertEquals(1, idsByKey.get(key).size(), "round " + round + ", key " + key + ": one instance");
                assertEquals(1, createdByKey.getOrDefault(key, 0), "round " + round + ", key " + key + ": one CREATED");
            }
            assertEquals(keysPerBatch, findByKeys(job.id(), keys).size());
        }
        System.out.printf("%s: %d rounds of %d batches of %d overlapping keys in %d ms%n",
                getClass().getSimpleName(), rounds, threads, keysPerBatch, (System.nanoTime() - startNanos) / 1_000_000);
        assertEquals((long) rounds * keysPerBatch, rowsOfJob(job.id()));
    }

    @Test
    void insertRuns_racesJobDeletes_noRunOutlivesItsJobWaiting() throws Exception {
        List<Job> doomed = IntStream.range(0, 50).mapToObj(i -> insertJob()).toList();
        List<RunWrite> writes = new CopyOnWriteArrayList<>();

        race(2, thread -> {
            for (Job job : doomed) {
                if (thread == 0) {
                    assertTrue(jobs.delete(job.id()).deleted());
                } else {
                    writes.addAll(instances.insertRuns(List.of(run(job.id(), "doomed", START, null),
                            run(job.id(), null, START, null))));
                }
            }
        });

        assertEquals(2 * doomed.size(), writes.size());
        for (RunWrite write : writes) {
            assertTrue(write.outcome() != RunWrite.Outcome.EXISTING, "nothing else wrote these keys: " + write);
            if (write.created()) {
                assertEquals(InstanceStatus.CANCELLED, stored(write.instance().id()).status(),
                        "a run created before its job's delete is cancelled by it: " + write.instance().id());
            }
        }
        assertEquals(0L, instances.countByStatus().get(InstanceStatus.WAITING));
    }

    // ---------------------------------------------------------------- insertRuns: purge and reopen

    @Test
    void insertRuns_keyOfAPurgedInstance_createsANewInstance() {
        Job job = insertJob();
        // Ids minted at their creation time, as the server mints them: the purge bounds its range by the id.
        long firstId = SnowflakeIdGenerator.lowestIdAt(clock.instant()) + 1;
        RunWrite first = write(new NewInstance(firstId, job.id(), START, null, "once-a-day", null, null, null));
        assertEquals(RunWrite.Outcome.CREATED, first.outcome());
        clock.advance(Duration.ofMinutes(10));
        assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(firstId)).get(0).outcome());
        clock.advance(Duration.ofDays(2));

        PurgeBatch purged = instances.purgeFinished(PurgeScope.ofJob(job.id()), START.plus(Duration.ofDays(1)), -1,
                500);

        assertEquals(1, purged.deleted());
        assertTrue(instances.get(firstId).isEmpty());
        assertTrue(instances.findByKey(job.id(), "once-a-day").isEmpty(), "the key went with its instance");
        long secondId = SnowflakeIdGenerator.lowestIdAt(clock.instant()) + 1;
        RunWrite second = write(new NewInstance(secondId, job.id(), clock.instant(), null, "once-a-day", null, null, null));
        assertEquals(RunWrite.Outcome.CREATED, second.outcome());
        assertEquals(secondId, second.instance().id());
        assertNotEquals(firstId, secondId);
        assertEquals(second.instance(), instances.findByKey(job.id(), "once-a-day").orElseThrow());
        assertEquals(InstanceStatus.WAITING, second.instance().status());
    }

    @Test
    void insertRuns_storeReopened_keyStillNamesItsInstance() {
        Job job = insertJob();
        Instance before = write(run(job.id(), "survives", START.plusSeconds(5), "{\"p\":1}")).instance();

        reopen();

        assertEquals(Optional.of(before), instances.findByKey(job.id(), "survives"));
        RunWrite again = write(run(job.id(), "survives", START.plusSeconds(50), "{\"p\":2}"));
        assertEquals(RunWrite.Outcome.EXISTING, again.outcome());
        assertEquals(before, again.instance());
        assertEquals(RunWrite.Outcome.CREATED, write(run(job.id(), "new after reopen", START, null)).outcome());
        assertTrue(claim(before.id()), "the reopened store holds its shards again");
    }

    // ---------------------------------------------------------------- cancelAll

    @Test
    void cancelAll_mixOfStatuses_answersEachOnceInRequestOrder() {
        Job job = insertJob();
        Instance waiting = instanceIn(job, InstanceStatus.WAITING);
        Instance claimed = instanceIn(job, InstanceStatus.DISPATCHING);
        Instance cancelled = instanceIn(job, InstanceStatus.CANCELLED);
        Instance succeeded = instanceIn(job, InstanceStatus.SUCCEEDED);
        Instance failed = instanceIn(job, InstanceStatus.FAILED);
        Instance interrupted = instanceIn(job, InstanceStatus.INTERRUPTED);
        Instance alsoWaiting = instanceIn(job, InstanceStatus.WAITING);
        long unknown = nextId();
        clock.advance(Duration.ofSeconds(7));

        List<CancelResult> results = instances.cancelAll(List.of(unknown, claimed.id(), waiting.id(),
                cancelled.id(), succeeded.id(), waiting.id(), failed.id(), interrupted.id(), alsoWaiting.id(),
                unknown, claimed.id()));

        assertEquals(List.of(
                new CancelResult(unknown, CancelOutcome.UNKNOWN, null),
                new CancelResult(claimed.id(), CancelOutcome.ALREADY_DISPATCHED, InstanceStatus.DISPATCHING),
                new CancelResult(waiting.id(), CancelOutcome.CANCELLED, InstanceStatus.CANCELLED),
                new CancelResult(cancelled.id(), CancelOutcome.ALREADY_FINISHED, InstanceStatus.CANCELLED),
                new CancelResult(succeeded.id(), CancelOutcome.ALREADY_FINISHED, InstanceStatus.SUCCEEDED),
                new CancelResult(failed.id(), CancelOutcome.ALREADY_FINISHED, InstanceStatus.FAILED),
                new CancelResult(interrupted.id(), CancelOutcome.ALREADY_FINISHED, InstanceStatus.INTERRUPTED),
                new CancelResult(alsoWaiting.id(), CancelOutcome.CANCELLED, InstanceStatus.CANCELLED)), results);
        assertEquals(InstanceStatus.CANCELLED, stored(waiting.id()).status());
        assertEquals(START.plusSeconds(7), stored(waiting.id()).updatedAt());
        assertEquals(InstanceStatus.CANCELLED, stored(alsoWaiting.id()).status());
        assertEquals(claimed, stored(claimed.id()), "a refused cancel changes nothing");
        assertEquals(cancelled, stored(cancelled.id()));
        assertEquals(succeeded, stored(succeeded.id()));
    }

    @Test
    void cancelAll_cancelledInstances_cannotThenBeClaimed() {
        Job job = insertJob();
        Instance one = instanceIn(job, InstanceStatus.WAITING);
        Instance two = instanceIn(job, InstanceStatus.WAITING);

        List<CancelResult> results = instances.cancelAll(List.of(one.id(), two.id()));

        assertTrue(results.stream().allMatch(r -> r.outcome() == CancelOutcome.CANCELLED), results.toString());
        assertEquals(List.of(), instances.claimBatch(List.of(one.id(), two.id()), START));
        assertEquals(List.of(), instances.claimArmed(Map.of(one.id(), Long.MAX_VALUE, two.id(),
                START.toEpochMilli()), START));
        assertEquals(InstanceStatus.CANCELLED, stored(one.id()).status());
        assertEquals(0, stored(one.id()).attempt());
    }

    @Test
    void cancelAll_emptyList_answersNothing() {
        assertEquals(List.of(), instances.cancelAll(List.of()));
    }

    @Test
    void cancelAll_onlyUnknownIds_unknownWithNoStatus() {
        long a = nextId();
        long b = nextId();

        assertEquals(List.of(CancelResult.unknown(b), CancelResult.unknown(a)),
                instances.cancelAll(List.of(b, a, b)));
    }

    @Test
    void cancelAll_racesClaimBatch_eachInstanceCancelledXorClaimedAndTheAnswersAgree() throws Exception {
        Job job = insertJob();
        List<Long> ids = instances.insertRuns(IntStream.range(0, 1_000)
                        .mapToObj(i -> run(job.id(), "c-" + i, START, null)).toList())
                .stream().map(w -> w.instance().id()).toList();
        Map<Long, List<CancelResult>> cancels = new ConcurrentHashMap<>();
        Set<Long> claimed = ConcurrentHashMap.newKeySet();

        race(4, thread -> {
            List<Long> order = new ArrayList<>(ids);
            Collections.shuffle(order, new Random(7L + thread));
            for (int from = 0; from < order.size(); from += 50) {
                List<Long> chunk = order.subList(from, from + 50);
                if (thread % 2 == 0) {
                    for (CancelResult result : instances.cancelAll(chunk)) {
                        cancels.computeIfAbsent(result.instanceId(), id -> new CopyOnWriteArrayList<>()).add(result);
                    }
                } else {
                    instances.claimBatch(chunk, START)
                            .forEach(row -> assertTrue(claimed.add(row.id()), "claimed twice: " + row.id()));
                }
            }
        });

        for (long id : ids) {
            InstanceStatus status = stored(id).status();
            List<CancelResult> answers = cancels.get(id);
            assertEquals(2, answers.size(), "instance " + id + ": one answer per cancelling thread");
            if (claimed.contains(id)) {
                assertEquals(InstanceStatus.DISPATCHING, status, "instance " + id);
                assertEquals(Set.of(new CancelResult(id, CancelOutcome.ALREADY_DISPATCHED, InstanceStatus.DISPATCHING)),
                        Set.copyOf(answers), "instance " + id + ": too late for both cancels");
            } else {
                assertEquals(InstanceStatus.CANCELLED, status, "instance " + id);
                assertEquals(Set.of(new CancelResult(id, CancelOutcome.CANCELLED, InstanceStatus.CANCELLED),
                        new CancelResult(id, CancelOutcome.ALREADY_FINISHED, InstanceStatus.CANCELLED)),
                        Set.copyOf(answers), "instance " + id + ": cancelled by exactly one call");
            }
        }
    }

    // ---------------------------------------------------------------- reschedule

    @Test
    void reschedule_waitingInstance_movesTheDueTimeAndKeepsEverythingElse() {
        Job job = insertJob();
        Instance waiting = write(run(job.id(), "move-me", START, "{\"keep\":true}")).instance();
        clock.advance(Duration.ofSeconds(5));

        RescheduleOutcome outcome = instances.reschedule(waiting.id(), START.plusSeconds(300), false, "{\"x\":1}");

        assertEquals(RescheduleOutcome.Kind.RESCHEDULED, outcome.outcome());
        Instance moved = stored(waiting.id());
        assertEquals(moved, outcome.instance(), "the row after the move");
        assertEquals(InstanceStatus.WAITING, moved.status());
        assertEquals(START.plusSeconds(300), moved.expectedTriggerTime());
        assertEquals("{\"keep\":true}", moved.params(), "params kept unless replaced");
        assertEquals("move-me", moved.key());
        assertEquals(0, moved.attempt());
        assertEquals(START, moved.createdAt());
        assertEquals(START.plusSeconds(5), moved.updatedAt());
        assertEquals(Optional.of(moved), instances.findByKey(job.id(), "move-me"));
    }

    @Test
    void reschedule_replaceParams_storesTheNewParamsOrNull() {
        Job job = insertJob();
        Instance one = write(run(job.id(), null, START, "{\"old\":1}")).instance();
        Instance two = write(run(job.id(), null, START, "{\"old\":2}")).instance();

        RescheduleOutcome replaced = instances.reschedule(one.id(), START.plusSeconds(1), true, "{\"new\":1}");
        RescheduleOutcome cleared = instances.reschedule(two.id(), START.plusSeconds(2), true, null);

        assertEquals(RescheduleOutcome.Kind.RESCHEDULED, replaced.outcome());
        assertEquals("{\"new\":1}", stored(one.id()).params());
        assertEquals("{\"new\":1}", replaced.instance().params());
        assertEquals(START.plusSeconds(1), stored(one.id()).expectedTriggerTime());
        assertEquals(RescheduleOutcome.Kind.RESCHEDULED, cleared.outcome());
        assertNull(stored(two.id()).params());
        assertEquals(START.plusSeconds(2), stored(two.id()).expectedTriggerTime());
    }

    @Test
    void reschedule_toALaterTime_claimArmedForTheOldTimeClaimsNothingForTheNewTimeClaims() {
        Job job = insertJob();
        Instant old = START;
        Instant later = START.plusSeconds(60);
        Instance waiting = write(run(job.id(), "later", old, null)).instance();

        assertEquals(RescheduleOutcome.Kind.RESCHEDULED,
                instances.reschedule(waiting.id(), later, false, null).outcome());

        assertEquals(Set.of(), claimArmed(waiting.id(), old), "the old timer's claim is refused");
        assertEquals(Set.of(), claimArmed(waiting.id(), later.minusMillis(1)));
        Instance untouched = stored(waiting.id());
        assertEquals(InstanceStatus.WAITING, untouched.status());
        assertEquals(0, untouched.attempt());
        List<Instance> claimed = instances.claimArmed(Map.of(waiting.id(), later.toEpochMilli()), later);
        assertEquals(1, claimed.size(), "the new timer's claim wins");
        assertEquals(InstanceStatus.DISPATCHING, claimed.get(0).status());
        assertEquals(later, claimed.get(0).expectedTriggerTime());
        assertEquals(later, claimed.get(0).actualTriggerTime());
        assertEquals(1, claimed.get(0).attempt());
        assertEquals(claimed.get(0), stored(waiting.id()));
        assertEquals(Set.of(), claimArmed(waiting.id(), later), "claimed once");
    }

    @Test
    void reschedule_toALaterTime_claimArmedForALaterTimeStillClaims() {
        Job job = insertJob();
        Instance waiting = write(run(job.id(), null, START, null)).instance();
        instances.reschedule(waiting.id(), START.plusSeconds(60), false, null);

        // A timer re-armed later than the due time (a retried claim, a missed instance fired now) qualifies.
        assertEquals(Set.of(waiting.id()), claimArmed(waiting.id(), START.plusSeconds(61)));
    }

    @Test
    void reschedule_toAnEarlierTime_claimArmedForTheOldOrTheNewTimeClaims() {
        Job job = insertJob();
        Instant old = START.plusSeconds(60);
        Instant earlier = START.plusSeconds(10);
        Instance armedOld = write(run(job.id(), null, old, null)).instance();
        Instance armedNew = write(run(job.id(), null, old, null)).instance();
        Instance armedBefore = write(run(job.id(), null, old, null)).instance();
        for (Instance instance : List.of(armedOld, armedNew, armedBefore)) {
            RescheduleOutcome outcome = instances.reschedule(instance.id(), earlier, false, null);
            assertEquals(RescheduleOutcome.Kind.RESCHEDULED, outcome.outcome());
            assertEquals(earlier, outcome.instance().expectedTriggerTime());
        }

        assertEquals(Set.of(armedOld.id()), claimArmed(armedOld.id(), old), "armed for the old, later time");
        assertEquals(Set.of(armedNew.id()), claimArmed(armedNew.id(), earlier), "armed for the new time");
        assertEquals(Set.of(), claimArmed(armedBefore.id(), earlier.minusMillis(1)),
                "armed before the new due time");
    }

    @Test
    void reschedule_claimedInstance_alreadyDispatchedAndItsTimeUnchanged() {
        Job job = insertJob();
        Instance claimed = instanceIn(job, InstanceStatus.DISPATCHING);

        RescheduleOutcome outcome = instances.reschedule(claimed.id(), START.plusSeconds(60), true, "{\"new\":1}");

        assertEquals(RescheduleOutcome.Kind.ALREADY_DISPATCHED, outcome.outcome());
        assertEquals(claimed, outcome.instance(), "the row as seen");
        assertEquals(claimed, stored(claimed.id()), "nothing changed");
        assertEquals(START, stored(claimed.id()).expectedTriggerTime());
    }

    @Test
    void reschedule_finishedInstance_alreadyFinishedAndUnchanged() {
        Job job = insertJob();
        for (InstanceStatus status : List.of(InstanceStatus.SUCCEEDED, InstanceStatus.FAILED,
                InstanceStatus.CANCELLED, InstanceStatus.INTERRUPTED)) {
            Instance finished = instanceIn(job, status);

            RescheduleOutcome outcome = instances.reschedule(finished.id(), START.plusSeconds(60), false, null);

            assertEquals(RescheduleOutcome.Kind.ALREADY_FINISHED, outcome.outcome(), status.name());
            assertEquals(finished, outcome.instance(), status.name());
            assertEquals(finished, stored(finished.id()), status.name());
        }
    }

    @Test
    void reschedule_unknownId_unknownWithNoInstance() {
        RescheduleOutcome outcome = instances.reschedule(nextId(), START.plusSeconds(60), false, null);

        assertEquals(RescheduleOutcome.Kind.UNKNOWN, outcome.outcome());
        assertNull(outcome.instance());
    }

    // ---------------------------------------------------------------- claimArmed

    @Test
    void claimArmed_armedAtExactlyTheDueTime_claimsAndAMillisecondBefore_doesNot() {
        Job job = insertJob();
        Instance due = write(run(job.id(), null, START, null)).instance();

        assertEquals(Set.of(), claimArmed(due.id(), START.minusMillis(1)));
        assertEquals(Set.of(due.id()), claimArmed(due.id(), START));
    }

    @Test
    void claimArmed_manyIdsEachArmedForItsOwnTime_claimsExactlyThoseArmedForTheirDueTimeOrLater() {
        Job job = insertJob();
        // More ids than one claim chunk, in no order: each id must be judged by its own armed-for time.
        List<Instance> waiting = instances.insertRuns(IntStream.range(0, 700)
                        .mapToObj(i -> run(job.id(), null, START.plusMillis(i * 7L % 1_000), null)).toList())
                .stream().map(RunWrite::instance).toList();
        Map<Long, Long> armedFor = new HashMap<>();
        Set<Long> expected = new HashSet<>();
        for (int i = 0; i < waiting.size(); i++) {
            Instance instance = waiting.get(i);
            long due = instance.expectedTriggerTime().toEpochMilli();
            switch (i % 3) {
                case 0 -> armedFor.put(instance.id(), due - 1);
                case 1 -> {
                    armedFor.put(instance.id(), due);
                    expected.add(instance.id());
                }
                default -> {
                    armedFor.put(instance.id(), due + 1_000);
                    expected.add(instance.id());
                }
            }
        }

        Set<Long> claimed = instances.claimArmed(armedFor, START.plusSeconds(2)).stream().map(Instance::id)
                .collect(Collectors.toSet());

        assertEquals(expected, claimed);
        assertEquals(expected.size(), instances.countByStatus().get(InstanceStatus.DISPATCHING));
    }

    @Test
    void claimBatch_afterARescheduleToALaterTime_stillClaimsAsAnyDueTime() {
        Job job = insertJob();
        Instance waiting = write(run(job.id(), null, START, null)).instance();
        instances.reschedule(waiting.id(), START.plusSeconds(3_600), false, null);

        assertTrue(claim(waiting.id()), "claimBatch is claimArmed with Long.MAX_VALUE");
    }

    // ---------------------------------------------------------------- reschedule vs claim

    /**
     * The property that makes reschedule safe: for each instance, the reschedule to a later time and the claim of the
     * timer armed for its old time are ordered by the database on the row, and whichever comes first decides.
     * <ul>
     *   <li>Reschedule first: the row is due later, so the old timer's claim ({@code expected <= armedFor}) is
     *       refused, and the timer armed for the new time claims it, once: it runs once, at the new time, and the
     *       caller was told RESCHEDULED.</li>
     *   <li>Claim first: the row is DISPATCHING, so the reschedule's compare-and-set on WAITING is refused and says
     *       ALREADY_DISPATCHED: it runs once, at the old time, and the caller knows the new time did not apply.</li>
     * </ul>
     * Both (the old claim got it <em>and</em> the reschedule says RESCHEDULED) would mean a run at the old time the
     * caller believes moved, and a second run at the new time: a double fire. Neither (the old claim refused
     * <em>and</em> the reschedule refused) would mean a run nobody fires: a lost run. So every instance must land in
     * exactly one of the two cases.
     */
    @Test
    void reschedule_racesClaimArmedForTheOldTime_eachInstanceRunsExactlyOnceAtOneOfTheTimes() throws Exception {
        int perRound = 200;
        int rounds = 5;
        int pairs = 4; // a rescheduler and a claimer per slice of the round's instances
        Job job = insertJob();
        int rescheduledTotal = 0;
        for (int round = 0; round < rounds; round++) {
            Instant old = START.plusSeconds(round);
            Instant later = old.plusSeconds(60);
            List<Long> ids = instances.insertRuns(IntStream.range(0, perRound)
                            .mapToObj(i -> run(job.id(), "stress-" + nextId(), old, null)).toList())
                    .stream().map(w -> w.instance().id()).toList();
            Map<Long, RescheduleOutcome> rescheduled = new ConcurrentHashMap<>();
            Map<Long, List<Instance>> oldClaims = new ConcurrentHashMap<>();

            race(pairs * 2, thread -> {
                int slice = thread / 2;
                List<Long> mine = ids.subList(slice * perRound / pairs, (slice + 1) * perRound / pairs);
                for (long id : mine) {
                    if (thread % 2 == 0) {
                        rescheduled.put(id, instances.reschedule(id, later, false, null));
                    } else {
                        oldClaims.put(id, instances.claimArmed(Map.of(id, old.toEpochMilli()), old));
                    }
                }
            });

            Set<Long> movedIds = new HashSet<>();
            for (long id : ids) {
                RescheduleOutcome outcome = rescheduled.get(id);
                List<Instance> oldClaim = oldClaims.get(id);
                String what = "round " + round + ", instance " + id + ": " + outcome.outcome() + ", old claim "
                        + oldClaim;
                if (outcome.outcome() == RescheduleOutcome.Kind.RESCHEDULED) {
                    assertEquals(List.of(), oldClaim, "moved, so the old timer must not claim it: " + what);
                    assertEquals(later, outcome.instance().expectedTriggerTime(), what);
                    assertEquals(InstanceStatus.WAITING, outcome.instance().status(), what);
                    movedIds.add(id);
                } else {
                    assertEquals(RescheduleOutcome.Kind.ALREADY_DISPATCHED, outcome.outcome(), what);
                    assertEquals(1, oldClaim.size(), "not moved, so the old timer must have claimed it: " + what);
                    assertEquals(old, oldClaim.get(0).expectedTriggerTime(), what);
                    assertEquals(InstanceStatus.DISPATCHING, outcome.instance().status(), what);
                    assertEquals(old, outcome.instance().expectedTriggerTime(), what);
                }
            }
            // The timers armed for the new time: they claim exactly the moved instances, once.
            Map<Long, Long> armedForLater = new HashMap<>();
            ids.forEach(id -> armedForLater.put(id, later.toEpochMilli()));
            Set<Long> newClaims = instances.claimArmed(armedForLater, later).stream().map(Instance::id)
                    .collect(Collectors.toSet());
            assertEquals(movedIds, newClaims, "round " + round + ": the new timers claim the moved instances");
            assertEquals(List.of(), instances.claimArmed(armedForLater, later), "round " + round + ": claimed once");
            for (long id : ids) {
                Instance row = stored(id);
                assertEquals(InstanceStatus.DISPATCHING, row.status(), "round " + round + ", instance " + id);
                assertEquals(1, row.attempt(), "round " + round + ", instance " + id + " claimed once");
                assertEquals(movedIds.contains(id) ? later : old, row.expectedTriggerTime(),
                        "round " + round + ", instance " + id);
            }
            rescheduledTotal += movedIds.size();
        }
        System.out.printf("%s: reschedule vs old claim on %d instances: %d rescheduled, %d claimed at the old time%n",
                getClass().getSimpleName(), perRound * rounds, rescheduledTotal, perRound * rounds - rescheduledTotal);
    }

    // ---------------------------------------------------------------- where instances are placed

    private Job insertJob(ScheduleSpec schedule, int maxConcurrent) {
        return jobs.insert(new NewJob(nextId(), "placed", schedule, Target.handler("noop"), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE,
                new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, maxConcurrent,
                        DeliveryPolicy.OverLimit.WAIT), JobOperations.DEFAULT, null));
    }

    private List<Instance> writeRuns(Job job, int count) {
        List<NewInstance> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(run(job.id(), i % 2 == 0 ? null : "k-" + nextId(), START, null));
        }
        return instances.insertRuns(runs).stream().map(RunWrite::instance).toList();
    }

    @Test
    void insertRuns_jobWithoutLimit_runsSpreadOverShards_jobWithLimitOrFixedDelay_runsOnTheJobsShard() {
        Job spread = insertJob(ScheduleSpec.api(), 0);
        Job limited = insertJob(ScheduleSpec.api(), 5);
        Job fixedDelay = insertJob(ScheduleSpec.fixedDelay(60_000), 0);

        List<Instance> spreadRuns = writeRuns(spread, 400);
        Set<Integer> shardsUsed = new HashSet<>();
        for (Instance run : spreadRuns) {
            assertEquals(Shards.of(run.id(), Shards.DEFAULT_COUNT), run.shard(), "answer of " + run.id());
            assertEquals(run.shard(), stored(run.id()).shard(), "row of " + run.id());
            shardsUsed.add(run.shard());
        }
        // 400 runs over 256 shards: about 200 distinct shards; all on one would mean no spreading.
        assertTrue(shardsUsed.size() > 150, "shards used by 400 runs of one job: " + shardsUsed.size());
        for (Job job : List.of(limited, fixedDelay)) {
            for (Instance run : writeRuns(job, 50)) {
                assertEquals(Shards.of(job.id(), Shards.DEFAULT_COUNT), run.shard(), "answer of " + run.id());
                assertEquals(run.shard(), stored(run.id()).shard(), "row of " + run.id());
            }
        }
    }

    @Test
    void createInstancesAndAdvanceJob_spreadAdvance_eachOnItsOwnShard_otherwiseOnTheJobsShard() {
        Job job = insertJob(ScheduleSpec.fixedRate(1_000, START), 0);
        List<NewInstance> first = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            first.add(new NewInstance(nextId(), job.id(), START.plusSeconds(i), null));
        }
        assertTrue(instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), job.version(),
                job.nextTriggerTime(), START.plusSeconds(20), first, true, null)).advanced());
        for (NewInstance created : first) {
            assertEquals(Shards.of(created.id(), Shards.DEFAULT_COUNT), stored(created.id()).shard());
        }
        NewInstance second = new NewInstance(nextId(), job.id(), START.plusSeconds(20), null);
        assertTrue(instances.createInstancesAndAdvanceJobs(List.of(new JobAdvance(job.id(), job.version(),
                START.plusSeconds(20), START.plusSeconds(21), List.of(second), false, null))).get(0).advanced());
        assertEquals(Shards.of(job.id(), Shards.DEFAULT_COUNT), stored(second.id()).shard());
    }

    @Test
    void update_jobComesToNeedOneOwner_itsWaitingInstancesMoveToItsShard_claimedAndFinishedStay() {
        Job job = insertJob(ScheduleSpec.api(), 0);
        int jobShard = Shards.of(job.id(), Shards.DEFAULT_COUNT);
        List<Instance> waiting = writeRuns(job, 100);
        Instance dispatching = instanceIn(job, InstanceStatus.DISPATCHING);
        Instance succeeded = instanceIn(job, InstanceStatus.SUCCEEDED);
        Job other = insertJob(ScheduleSpec.api(), 0);
        List<Instance> othersRuns = writeRuns(other, 20);

        Job limited = jobs.update(job.withDelivery(new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 5,
                DeliveryPolicy.OverLimit.WAIT))).orElseThrow();

        assertFalse(limited.spreadsInstances());
        for (Instance run : waiting) {
            assertEquals(jobShard, stored(run.id()).shard(), "waiting " + run.id() + " moved to the job's shard");
        }
        assertEquals(dispatching.shard(), stored(dispatching.id()).shard(), "a claimed instance stays");
        assertEquals(succeeded.shard(), stored(succeeded.id()).shard(), "a finished instance stays");
        for (Instance run : othersRuns) {
            assertEquals(run.shard(), stored(run.id()).shard(), "another job's instance " + run.id() + " stays");
        }
        // And back: the limit removed, new runs spread again; the gathered ones stay where they are.
        Job unlimited = jobs.update(limited.withDelivery(DeliveryPolicy.DEFAULT)).orElseThrow();
        assertTrue(unlimited.spreadsInstances());
        Instance later = writeRuns(unlimited, 1).get(0);
        assertEquals(Shards.of(later.id(), Shards.DEFAULT_COUNT), later.shard());
        assertEquals(jobShard, stored(waiting.get(0).id()).shard());
        // An update at a stale version changes nothing, and moves nothing.
        assertEquals(Optional.empty(), jobs.update(job.withDelivery(new DeliveryPolicy(
                DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 5, DeliveryPolicy.OverLimit.WAIT))));
        assertEquals(Shards.of(later.id(), Shards.DEFAULT_COUNT), stored(later.id()).shard());
    }

    /**
     * Runs written while an update gives their job a {@code maxConcurrent}: afterwards every waiting instance of the
     * job is on its shard, whichever committed first. Why it holds: a run write locks its job row shared
     * ({@link SqlDialect#lockAgainstChange()}) and places its runs by the job as it reads it under that lock; the
     * update locks the row exclusively first, then moves the waiting instances. If the update's lock comes first, the
     * run write waits for its commit and then reads the limited job (its runs go to the job's shard); if a run
     * write's lock comes first, the update waits for that write's commit, and its move, a later statement, sees the
     * runs. Many threads and rounds.
     */
    @Test
    void insertRunsRacingAnUpdateThatLimitsTheJob_noWaitingInstanceIsLeftOffTheJobsShard() throws Exception {
        int rounds = 15;
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            for (int round = 0; round < rounds; round++) {
                Job job = insertJob(ScheduleSpec.api(), 0);
                int jobShard = Shards.of(job.id(), Shards.DEFAULT_COUNT);
                CyclicBarrier start = new CyclicBarrier(writers + 1);
                List<Future<List<Instance>>> written = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    written.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        List<Instance> mine = new ArrayList<>();
                        for (int batch = 0; batch < 10; batch++) {
                            mine.addAll(writeRuns(job, 3));
                        }
                        return mine;
                    }));
                }
                int delayRuns = round;
                Future<?> update = pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < delayRuns; i++) {
                        writeRuns(insertJob(ScheduleSpec.api(), 0), 1); // lets the writers get ahead by a varying amount
                    }
                    return jobs.update(job.withDelivery(new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0,
                            5, DeliveryPolicy.OverLimit.WAIT))).orElseThrow();
                });
                update.get(60, TimeUnit.SECONDS);
                int total = 0;
                for (Future<List<Instance>> w : written) {
                    for (Instance run : w.get(60, TimeUnit.SECONDS)) {
                        total++;
                        assertEquals(jobShard, stored(run.id()).shard(), "round " + round + ": run " + run.id()
                                + " (answered shard " + run.shard() + ") is not on the limited job's shard");
                    }
                }
                assertEquals(writers * 10 * 3, total, "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The stored instances of {@code jobId} that {@code keys} name, one {@link InstanceStore#findByKey} each. */
    private List<Instance> findByKeys(long jobId, List<String> keys) {
        return keys.stream().map(key -> instances.findByKey(jobId, key)).flatMap(java.util.Optional::stream).toList();
    }
}
