package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.Attempt;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.DueJobCursor;
import dev.tickwheel.server.store.DuplicateIdException;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobDeletion;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.WaitingCursor;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleType;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
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
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every {@link JobStore} and {@link InstanceStore} implementation must show, run once per database
 * by a subclass. Each test starts from empty tables and a clock at {@link #START}. The store is a cluster member that
 * holds every shard for the whole class ({@link ShardHolder}), so claims and settles pass their fences; fencing itself
 * is tested by {@link AbstractFencingStoreContractTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractStoreContractTest {

    /** A start with a sub-millisecond part, to show the store keeps milliseconds. */
    static final Instant START = Instant.parse("2030-01-01T00:00:00.123456Z");
    static final Instant START_MS = Instant.parse("2030-01-01T00:00:00.123Z");

    protected final MutableClock clock = new MutableClock(START);
    private final AtomicLong ids = new AtomicLong(1_000);
    protected JdbcStores stores;
    protected JobStore jobs;
    protected InstanceStore instances;
    protected List<Integer> allShards;
    /** Shard → epoch of the leases this class's member holds. */
    protected Map<Integer, Long> heldEpochs;

    /** Creates an empty database for this test class and returns its JDBC URL. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl(createDatabase())
                .poolName("tickwheel-store-test")
                .maxPoolSize(10)
                .clock(clock)
                .build());
        jobs = stores.jobs();
        instances = stores.instances();
        heldEpochs = ShardHolder.joinAndHoldAll(stores);
        allShards = ShardHolder.allShards(stores.cluster());
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

    NewJob newJob(Instant nextTrigger) {
        return new NewJob(nextId(), "job", ScheduleSpec.fixedRate(1_000, START), Target.handler("noop"), null,
                true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, nextTrigger);
    }

    Job insertJob(Instant nextTrigger) {
        return jobs.insert(newJob(nextTrigger));
    }

    NewInstance newInstance(long jobId, Instant trigger) {
        return new NewInstance(nextId(), jobId, trigger, null);
    }

    /** A waiting on-demand instance of a fresh job, due at {@link #START_MS}. */
    Instance waitingInstance() {
        return instances.insertRuns(List.of(newInstance(insertJob(null).id(), START_MS))).get(0).instance();
    }

    /** An instance driven into {@code status} through legal transitions only. */
    /** Claims one instance through the batched claim; true if this call claimed it. */
    boolean claim(long instanceId, Instant now) {
        return !instances.claimBatch(List.of(instanceId), now).isEmpty();
    }

    /** The ids the batched claim moved to DISPATCHING. */
    Set<Long> claimIds(Collection<Long> instanceIds, Instant now) {
        return instances.claimBatch(instanceIds, now).stream().map(Instance::id).collect(Collectors.toSet());
    }

    /** Succeeds one instance through the batched success; true if this call moved it. */
    boolean succeed(long instanceId) {
        return instances.markAllSucceeded(List.of(instanceId)).contains(instanceId);
    }

    Instance instanceIn(InstanceStatus status) {
        Instance instance = waitingInstance();
        long id = instance.id();
        switch (status) {
            case WAITING -> { }
            case DISPATCHING -> assertTrue(claim(id, START));
            case SUCCEEDED -> assertTrue(claim(id, START) && succeed(id));
            case FAILED -> assertTrue(claim(id, START) && instances.markFailed(id, "boom"));
            case CANCELLED -> assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(id)).get(0).outcome());
            case INTERRUPTED -> assertTrue(claim(id, START) && instances.markInterrupted(id, "cut"));
        }
        return instances.get(id).orElseThrow();
    }

    // ---------------------------------------------------------------- jobs

    @Test
    void insert_newJob_getReturnsEveryFieldAsStored() {
        NewJob job = new NewJob(nextId(), "nightly report", new ScheduleSpec(ScheduleType.CRON, "0 0 2 * * ?",
                "Europe/Berlin", 5_000L, 7_000L, START), Target.webhook("https://example.com/hook?a=1"),
                "{\"k\":\"v\"}", false, MisfirePolicy.FIRE_ALL, new RetryPolicy(3, 2_500),
                new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_MOST_ONCE, 2_500, 3, DeliveryPolicy.OverLimit.SKIP),
                new JobOperations(30, "https://alerts.example.com/a", "whsec_0123456789abcdef"),
                START.plusSeconds(60));

        Job inserted = jobs.insert(job);

        Job stored = jobs.get(job.id()).orElseThrow();
        assertEquals(inserted, stored);
        assertEquals("nightly report", stored.name());
        assertEquals(new ScheduleSpec(ScheduleType.CRON, "0 0 2 * * ?", "Europe/Berlin", 5_000L, 7_000L, START_MS),
                stored.schedule());
        assertEquals(Target.webhook("https://example.com/hook?a=1"), stored.target());
        assertEquals("{\"k\":\"v\"}", stored.params());
        assertFalse(stored.enabled());
        assertEquals(MisfirePolicy.FIRE_ALL, stored.misfirePolicy());
        assertEquals(new RetryPolicy(3, 2_500), stored.retryPolicy());
        assertEquals(new JobOperations(30, "https://alerts.example.com/a", "whsec_0123456789abcdef"),
                stored.operations());
        assertEquals(START_MS.plusSeconds(60), stored.nextTriggerTime());
        assertEquals(START_MS, stored.createdAt());
        assertEquals(START_MS, stored.updatedAt());
        assertEquals(0, stored.version());
    }

    @Test
    void insert_nullableFieldsNull_readBackAsNull() {
        NewJob job = new NewJob(nextId(), "api", ScheduleSpec.api(), Target.handler("h"), null, true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null);

        jobs.insert(job);

        Job stored = jobs.get(job.id()).orElseThrow();
        assertEquals(ScheduleSpec.api(), stored.schedule());
        assertNull(stored.params());
        assertNull(stored.nextTriggerTime());
    }

    @Test
    void insert_duplicateId_throwsDuplicateIdExceptionNamingId() {
        Job first = insertJob(START);
        NewJob again = new NewJob(first.id(), "other", ScheduleSpec.api(), Target.handler("h"), null, true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null);

        DuplicateIdException e = assertThrows(DuplicateIdException.class, () -> jobs.insert(again));

        assertTrue(e.getMessage().endsWith(" id already exists: " + first.id()), e.getMessage());
        assertEquals("job", jobs.get(first.id()).orElseThrow().name());
    }

    @Test
    void insertAll_oneIdTaken_writesNothing() {
        Job taken = insertJob(START);
        NewJob fresh = newJob(START);
        NewJob clash = new NewJob(taken.id(), "clash", ScheduleSpec.api(), Target.handler("h"), null, true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null);

        DuplicateIdException e = assertThrows(DuplicateIdException.class,
                () -> jobs.insertAll(List.of(fresh, clash)));

        assertTrue(e.getMessage().endsWith(" id already exists: " + taken.id()), e.getMessage());
        assertTrue(jobs.get(fresh.id()).isEmpty());
    }

    @Test
    void insertAll_sameIdTwice_throwsIllegalArgumentNamingId() {
        NewJob job = newJob(START);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> jobs.insertAll(List.of(job, job)));

        assertTrue(e.getMessage().contains(String.valueOf(job.id())), e.getMessage());
        assertTrue(jobs.get(job.id()).isEmpty());
    }

    @Test
    void insertAll_manyJobs_returnsThemInOrderAndStoresAll() {
        List<NewJob> batch = IntStream.range(0, 50).mapToObj(i -> newJob(START.plusSeconds(i))).toList();

        List<Job> inserted = jobs.insertAll(batch);

        assertEquals(batch.stream().map(NewJob::id).toList(), inserted.stream().map(Job::id).toList());
        assertEquals(50, jobs.search(null, null, 100).items().size());
    }

    @Test
    void update_currentVersion_replacesDefinitionAndBumpsVersion() {
        Job job = insertJob(START);
        clock.advance(Duration.ofSeconds(5));
        Job changed = job.withName("renamed").withSchedule(ScheduleSpec.fixedDelay(750), START.plusSeconds(30))
                .withTarget(Target.webhook("http://localhost:9/x")).withEnabled(false)
                .withPolicies("{}", MisfirePolicy.SKIP, new RetryPolicy(4, 10))
                .withOperations(new JobOperations(2, "http://localhost:9/alerts", "0123456789abcdef-secret"));

        Job updated = jobs.update(changed).orElseThrow();

        assertEquals(1, updated.version());
        assertEquals(START_MS.plusSeconds(5), updated.updatedAt());
        assertEquals(START_MS, updated.createdAt());
        assertEquals(updated, jobs.get(job.id()).orElseThrow());
        assertEquals("renamed", updated.name());
        assertEquals(ScheduleSpec.fixedDelay(750), updated.schedule());
        assertEquals(Target.webhook("http://localhost:9/x"), updated.target());
        assertFalse(updated.enabled());
        assertEquals("{}", updated.params());
        assertEquals(MisfirePolicy.SKIP, updated.misfirePolicy());
        assertEquals(new RetryPolicy(4, 10), updated.retryPolicy());
        assertEquals(new JobOperations(2, "http://localhost:9/alerts", "0123456789abcdef-secret"),
                updated.operations());
        assertEquals(START_MS.plusSeconds(30), updated.nextTriggerTime());
        Job cleared = jobs.update(updated.withOperations(JobOperations.DEFAULT)).orElseThrow();
        assertEquals(JobOperations.DEFAULT, jobs.get(job.id()).orElseThrow().operations());
        assertEquals(2, cleared.version());
    }

    @Test
    void update_staleVersion_returnsEmptyAndKeepsStoredJob() {
        Job job = insertJob(START);
        Job winner = jobs.update(job.withName("first")).orElseThrow();

        Optional<Job> loser = jobs.update(job.withName("second"));

        assertTrue(loser.isEmpty());
        assertEquals(winner, jobs.get(job.id()).orElseThrow());
    }

    @Test
    void update_unknownJob_returnsEmpty() {
        Job ghost = newJob(START).toJob(START);

        assertTrue(jobs.update(ghost).isEmpty());
        assertTrue(jobs.get(ghost.id()).isEmpty());
    }

    @Test
    void delete_jobWithInstances_cancelsOnlyWaitingOnesAndRemovesJob() {
        Job job = insertJob(START);
        Instance waiting1 = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance();
        Instance waiting2 = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance();
        Instance dispatching = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance();
        claim(dispatching.id(), START);
        Instance otherJobs = waitingInstance();

        JobDeletion deletion = jobs.delete(job.id());

        assertTrue(deletion.deleted());
        assertEquals(List.of(waiting1.id(), waiting2.id()), deletion.cancelledInstanceIds());
        assertTrue(jobs.get(job.id()).isEmpty());
        assertEquals(InstanceStatus.CANCELLED, instances.get(waiting1.id()).orElseThrow().status());
        assertEquals(InstanceStatus.CANCELLED, instances.get(waiting2.id()).orElseThrow().status());
        assertEquals(InstanceStatus.DISPATCHING, instances.get(dispatching.id()).orElseThrow().status());
        assertEquals(InstanceStatus.WAITING, instances.get(otherJobs.id()).orElseThrow().status());
    }

    @Test
    void delete_unknownJob_returnsNotFound() {
        assertEquals(JobDeletion.NOT_FOUND, jobs.delete(nextId()));
    }

    @Test
    void get_unknownJob_returnsEmpty() {
        assertTrue(jobs.get(nextId()).isEmpty());
    }

    @Test
    void search_pagedByCursor_visitsEveryJobOnceInNameThenIdOrder() {
        List<String> names = List.of("gamma", "alpha", "beta");
        List<Job> inserted = IntStream.range(0, 25).mapToObj(i -> insertNamed(names.get(i % 3))).toList();
        List<Long> expected = inserted.stream()
                .sorted(java.util.Comparator.comparing(Job::name).thenComparingLong(Job::id)).map(Job::id).toList();

        List<Long> seen = new ArrayList<>();
        JobNameCursor cursor = null;
        int pages = 0;
        while (true) {
            Page<Job, JobNameCursor> page = jobs.search(null, cursor, 10);
            pages++;
            page.items().forEach(j -> seen.add(j.id()));
            if (!page.hasMore()) {
                break;
            }
            cursor = page.nextCursor().orElseThrow();
        }

        assertEquals(expected, seen);
        assertEquals(3, pages);
    }

    @Test
    void search_exactlyOneFullPage_hasNoNextCursor() {
        IntStream.range(0, 10).forEach(i -> insertJob(START));

        Page<Job, JobNameCursor> page = jobs.search("", null, 10);

        assertEquals(10, page.items().size());
        assertFalse(page.hasMore());
    }

    @Test
    void search_nameContains_matchesASubstringIgnoringCase() {
        Job nightlyReport = insertNamed("Nightly Report");
        Job nightlyBackup = insertNamed("nightly-backup");
        Job weekly = insertNamed("REPORT weekly");
        insertNamed("other");

        assertEquals(Set.of(nightlyReport.id(), weekly.id()), searchedIds("report"));
        assertEquals(Set.of(nightlyReport.id(), nightlyBackup.id()), searchedIds("NIGHTLY"));
        assertEquals(Set.of(nightlyBackup.id()), searchedIds("y-b"));
        assertEquals(Set.of(), searchedIds("monthly"));
    }

    @Test
    void search_likeMetacharacters_matchOnlyThemselves() {
        Job percent = insertNamed("50% off");
        Job noPercent = insertNamed("500 off");
        Job underscore = insertNamed("a_b");
        insertNamed("axb");
        Job backslash = insertNamed("back\\slash");
        insertNamed("backslash");

        assertEquals(Set.of(percent.id()), searchedIds("%"));
        assertEquals(Set.of(percent.id()), searchedIds("0%"));
        assertEquals(Set.of(underscore.id()), searchedIds("_"));
        assertEquals(Set.of(underscore.id()), searchedIds("A_B"));
        assertEquals(Set.of(backslash.id()), searchedIds("\\"));
        assertEquals(Set.of(backslash.id()), searchedIds("k\\s"));
        assertEquals(Set.of(percent.id(), noPercent.id()), searchedIds(" OFF"));
    }

    @Test
    void search_nameFilterWithCursor_pagesThroughTheMatchesOnly() {
        List<Long> matches = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            matches.add(insertNamed(String.format("match-%02d", i)).id());
            insertNamed(String.format("skip-%02d", i));
        }

        List<Long> seen = new ArrayList<>();
        Page<Job, JobNameCursor> page = jobs.search("MATCH", null, 5);
        page.items().forEach(j -> seen.add(j.id()));
        while (page.hasMore()) {
            page = jobs.search("MATCH", page.nextCursor().orElseThrow(), 5);
            page.items().forEach(j -> seen.add(j.id()));
        }

        assertEquals(matches, seen);
    }

    @Test
    void list_limitOutOfRange_throwsIllegalArgumentNamingLimit() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> jobs.search(null, null, 0));
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> instances.findWaiting(allShards, WaitingCursor.FIRST, START_MS, 10_001));
        IllegalArgumentException history = assertThrows(IllegalArgumentException.class,
                () -> instances.listLatest(InstanceFilter.ALL, Long.MAX_VALUE, 10_001));

        assertTrue(zero.getMessage().contains("limit") && zero.getMessage().contains(": 0"), zero.getMessage());
        assertTrue(huge.getMessage().contains("10001"), huge.getMessage());
        assertTrue(history.getMessage().contains("10001"), history.getMessage());
    }

    private Job insertNamed(String name) {
        NewJob job = newJob(null);
        return jobs.insert(new NewJob(job.id(), name, job.schedule(), job.target(), null, true, job.misfirePolicy(),
                job.retryPolicy(), job.delivery(), JobOperations.DEFAULT, null));
    }

    private Set<Long> searchedIds(String nameContains) {
        Page<Job, JobNameCursor> page = jobs.search(nameContains, null, 100);
        assertFalse(page.hasMore());
        return page.items().stream().map(Job::id).collect(Collectors.toSet());
    }

    @Test
    void findDue_mixedJobs_returnsEnabledJobsDueByUntilOrderedByTriggerThenId() {
        Instant until = START.plusSeconds(30);
        Job late = insertJob(START.plusSeconds(20));
        Job earlyB = insertJob(START.plusSeconds(10));
        Job earlyA = insertJob(START.plusSeconds(10));
        Job exactlyUntil = insertJob(until);
        insertJob(until.plusMillis(1));
        insertJob(null);
        Job disabled = insertJob(START);
        jobs.update(disabled.withEnabled(false)).orElseThrow();

        List<Job> due = jobs.findDue(until, null, 100, allShards);

        assertEquals(List.of(earlyB.id(), earlyA.id(), late.id(), exactlyUntil.id()),
                due.stream().map(Job::id).toList());
    }

    @Test
    void findDue_keysetPagingWithTiedTriggerTimes_walksEveryDueJobOnceInOrder() {
        List<Job> inserted = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            inserted.add(insertJob(START.plusSeconds(i % 4))); // ten jobs share each trigger time
        }
        List<Long> expected = inserted.stream()
                .sorted((a, b) -> a.nextTriggerTime().equals(b.nextTriggerTime())
                        ? Long.compare(a.id(), b.id()) : a.nextTriggerTime().compareTo(b.nextTriggerTime()))
                .map(Job::id).toList();

        List<Long> seen = walkDue(START.plusSeconds(10), 7);

        assertEquals(expected, seen);
    }

    @Test
    void findDue_20000EnabledJobs_pagesWalkEveryJobOnce() {
        int count = 20_000;
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(newJob(START.plusMillis(i % 997)));
            if (batch.size() == 2_000) {
                jobs.insertAll(batch);
                batch.clear();
            }
        }
        long startNanos = System.nanoTime();

        List<Long> seen = walkDue(START.plusSeconds(30), 1_000);

        long walkMs = (System.nanoTime() - startNanos) / 1_000_000;
        System.out.printf("%s: walked %d due jobs in pages of 1000 in %d ms%n", getClass().getSimpleName(),
                seen.size(), walkMs);
        assertEquals(count, seen.size());
        assertEquals(count, new HashSet<>(seen).size());
    }

    private List<Long> walkDue(Instant until, int pageSize) {
        List<Long> seen = new ArrayList<>();
        DueJobCursor cursor = null;
        while (true) {
            List<Job> page = jobs.findDue(until, cursor, pageSize, allShards);
            page.forEach(j -> seen.add(j.id()));
            if (page.size() < pageSize) {
                return seen;
            }
            cursor = DueJobCursor.after(page.get(page.size() - 1));
        }
    }

    // ---------------------------------------------------------------- instance creation

    @Test
    void createInstancesAndAdvanceJob_expectedTriggerMatches_insertsAllAndAdvancesJob() {
        Job job = insertJob(START);
        List<NewInstance> batch = List.of(newInstance(job.id(), START), newInstance(job.id(), START.plusSeconds(2)),
                newInstance(job.id(), START.plusSeconds(4)));

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(6), batch, false, null));

        assertTrue(result.advanced());
        assertEquals(batch, result.created());
        assertEquals(List.of(), result.skippedDuplicates());
        assertEquals(START_MS.plusSeconds(6), jobs.get(job.id()).orElseThrow().nextTriggerTime());
        Instance first = instances.get(batch.get(0).id()).orElseThrow();
        assertEquals(new Instance(first.id(), job.id(), InstanceStatus.WAITING, START_MS, START_MS, null, 0, null,
                null, null, START_MS, START_MS, Shards.of(job.id(), stores.cluster().shardCount()), -1, 0,
                null, null, null, null, null, null), first);
        assertFalse(first.isOnDemand());
        assertEquals(3, listed(job.id(), InstanceStatus.WAITING).size());
    }

    @Test
    void createInstancesAndAdvanceJob_staleExpectedTrigger_returnsLostAndWritesNothing() {
        Job job = insertJob(START.plusSeconds(2));

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(4),
                List.of(newInstance(job.id(), START)), false, null));

        assertEquals(AdvanceResult.LOST, result);
        assertEquals(START_MS.plusSeconds(2), jobs.get(job.id()).orElseThrow().nextTriggerTime());
        assertEquals(0, listed(job.id(), null).size());
    }

    @Test
    void createInstancesAndAdvanceJob_slotAlreadyFilled_skipsDuplicateAndCreatesRest() {
        Job job = insertJob(START);
        NewInstance original = newInstance(job.id(), START);
        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(2), List.of(original), false, null));
        // A rewind (say, a user edit) sets the next trigger back; the loader then re-creates the old slot.
        Job rewound = jobs.update(jobs.get(job.id()).orElseThrow().withSchedule(job.schedule(), START))
                .orElseThrow();
        NewInstance again = newInstance(job.id(), START);
        NewInstance next = newInstance(job.id(), START.plusSeconds(2));

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), rewound.nextTriggerTime(),
                START.plusSeconds(4), List.of(again, next), false, null));

        assertTrue(result.advanced());
        assertEquals(List.of(next), result.created());
        assertEquals(List.of(again), result.skippedDuplicates());
        assertTrue(instances.get(again.id()).isEmpty());
        assertEquals(List.of(original.id(), next.id()),
                listed(job.id(), null).stream().map(Instance::id).toList());
    }

    @Test
    void createInstancesAndAdvanceJob_disabledJob_returnsLost() {
        Job job = jobs.update(insertJob(START).withEnabled(false)).orElseThrow();

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(2),
                List.of(newInstance(job.id(), START)), false, null));

        assertEquals(AdvanceResult.LOST, result);
        assertEquals(0, listed(job.id(), null).size());
    }

    @Test
    void createInstancesAndAdvanceJob_unknownJob_returnsLost() {
        long ghost = nextId();

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(ghost, versionOf(ghost), START, START.plusSeconds(2),
                List.of(newInstance(ghost, START)), false, null));

        assertEquals(AdvanceResult.LOST, result);
        assertEquals(0, listed(ghost, null).size());
    }

    @Test
    void createInstancesAndAdvanceJob_nullExpectedOnJobWithoutNextTrigger_advances() {
        Job job = insertJob(null);

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), null, START.plusSeconds(9),
                List.of(), false, null));

        assertTrue(result.advanced());
        assertEquals(START_MS.plusSeconds(9), jobs.get(job.id()).orElseThrow().nextTriggerTime());
    }

    @Test
    void createInstancesAndAdvanceJob_nullExpectedOnJobWithNextTrigger_returnsLost() {
        Job job = insertJob(START);

        assertEquals(AdvanceResult.LOST,
                instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), null, START.plusSeconds(9), List.of(), false, null)));
        assertEquals(START_MS, jobs.get(job.id()).orElseThrow().nextTriggerTime());
    }

    @Test
    void createInstancesAndAdvanceJob_lastInstance_setsNextTriggerToNull() {
        Job job = insertJob(START);

        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, null, List.of(newInstance(job.id(), START)), false, null));

        assertNull(jobs.get(job.id()).orElseThrow().nextTriggerTime());
        assertTrue(jobs.findDue(START.plusSeconds(3_600), null, 10, allShards).isEmpty());
    }

    @Test
    void createInstancesAndAdvanceJob_instanceOfOtherJob_throwsIllegalArgumentAndWritesNothing() {
        Job job = insertJob(START);
        Job other = insertJob(START);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(2),
                        List.of(newInstance(other.id(), START)), false, null)));

        assertTrue(e.getMessage().contains(String.valueOf(other.id())), e.getMessage());
        assertEquals(START_MS, jobs.get(job.id()).orElseThrow().nextTriggerTime());
    }

    @Test
    void createInstancesAndAdvanceJob_twoInstancesSameTrigger_throwsIllegalArgument() {
        Job job = insertJob(START);

        assertThrows(IllegalArgumentException.class, () -> instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START,
                START.plusSeconds(2), List.of(newInstance(job.id(), START), newInstance(job.id(), START)), false, null)));
        assertEquals(START_MS, jobs.get(job.id()).orElseThrow().nextTriggerTime());
    }

    @Test
    void createInstancesAndAdvanceJob_instanceIdTaken_throwsDuplicateIdAndRollsBackAdvance() {
        Job job = insertJob(START);
        Instance existing = waitingInstance();
        NewInstance fresh = newInstance(job.id(), START);
        NewInstance clash = new NewInstance(existing.id(), job.id(), START.plusSeconds(1), null);

        DuplicateIdException e = assertThrows(DuplicateIdException.class,
                () -> instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(2),
                        List.of(fresh, clash), false, null)));

        assertTrue(e.getMessage().endsWith(" id already exists: " + existing.id()), e.getMessage());
        assertEquals(START_MS, jobs.get(job.id()).orElseThrow().nextTriggerTime());
        assertTrue(instances.get(fresh.id()).isEmpty());
    }

    @Test
    void insertRuns_twoKeylessRunsInSameMillisecond_bothStored() {
        Job job = insertJob(null);

        Instance a = instances.insertRuns(List.of(new NewInstance(nextId(), job.id(), START, "{\"run\":1}")))
                .get(0).instance();
        Instance b = instances.insertRuns(List.of(new NewInstance(nextId(), job.id(), START, "{\"run\":2}")))
                .get(0).instance();

        assertEquals(a, instances.get(a.id()).orElseThrow());
        assertEquals(b, instances.get(b.id()).orElseThrow());
        assertTrue(a.isOnDemand());
        assertNull(a.scheduledTriggerTime());
        assertEquals(START_MS, b.expectedTriggerTime());
        assertEquals("{\"run\":2}", b.params());
    }

    @Test
    void insertRuns_onDemandRunAtScheduledSlot_bothStored() {
        Job job = insertJob(START);
        NewInstance scheduled = newInstance(job.id(), START);
        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(1), List.of(scheduled), false, null));

        Instance onDemand = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance();

        assertEquals(2, listed(job.id(), InstanceStatus.WAITING).size());
        assertTrue(onDemand.isOnDemand());
    }

    @Test
    void insertRuns_unknownJob_writesNothingAndSaysNoJob() {
        long ghost = nextId();

        List<RunWrite> written = instances.insertRuns(List.of(newInstance(ghost, START)));

        assertEquals(List.of(new RunWrite(RunWrite.Outcome.NO_JOB, null)), written);
        assertEquals(0, instances.countByStatus().values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void insertRuns_duplicateId_throwsDuplicateIdException() {
        Instance existing = waitingInstance();

        DuplicateIdException e = assertThrows(DuplicateIdException.class, () -> instances.insertRuns(List.of(
                new NewInstance(existing.id(), existing.jobId(), START.plusSeconds(5), null))).get(0).instance());

        assertTrue(e.getMessage().endsWith(" id already exists: " + existing.id()), e.getMessage());
        assertEquals(START_MS, instances.get(existing.id()).orElseThrow().expectedTriggerTime());
    }

    // ---------------------------------------------------------------- transitions

    @Test
    void claim_waitingInstance_movesToDispatchingAndCountsAttempt() {
        Instance instance = waitingInstance();
        Instant now = START.plusMillis(5);

        assertTrue(claim(instance.id(), now));

        Instance claimed = instances.get(instance.id()).orElseThrow();
        assertEquals(InstanceStatus.DISPATCHING, claimed.status());
        assertEquals(1, claimed.attempt());
        assertEquals(START_MS.plusMillis(5), claimed.actualTriggerTime());
        assertEquals(START_MS.plusMillis(5), claimed.updatedAt());
        assertEquals(heldEpochs.get(claimed.shard()), claimed.claimEpoch(), "the claim's lease epoch");
        assertEquals(stores.cluster().view().leases().get(claimed.shard()).ownerNode(), claimed.claimNode());
    }

    @Test
    void claim_alreadyClaimed_returnsFalse() {
        Instance instance = waitingInstance();
        claim(instance.id(), START);

        assertFalse(claim(instance.id(), START.plusSeconds(1)));
        assertEquals(1, instances.get(instance.id()).orElseThrow().attempt());
    }

    @Test
    void claim_unknownInstance_returnsFalse() {
        assertFalse(claim(nextId(), START));
    }

    @Test
    void claimBatch_mixedStatuses_returnsExactlyTheWaitingIds() {
        Instance waiting1 = waitingInstance();
        Instance waiting2 = waitingInstance();
        Instance dispatching = instanceIn(InstanceStatus.DISPATCHING);
        Instance cancelled = instanceIn(InstanceStatus.CANCELLED);
        long unknown = nextId();

        Set<Long> claimed = claimIds(
                List.of(waiting1.id(), dispatching.id(), cancelled.id(), unknown, waiting2.id(), waiting1.id()),
                START.plusMillis(3));

        assertEquals(Set.of(waiting1.id(), waiting2.id()), claimed);
        Instance after = instances.get(waiting1.id()).orElseThrow();
        assertEquals(InstanceStatus.DISPATCHING, after.status());
        assertEquals(1, after.attempt());
        assertEquals(START_MS.plusMillis(3), after.actualTriggerTime());
        assertEquals(1, instances.get(dispatching.id()).orElseThrow().attempt());
        assertEquals(InstanceStatus.CANCELLED, instances.get(cancelled.id()).orElseThrow().status());
    }

    @Test
    void claimBatch_noIds_returnsEmpty() {
        assertEquals(Set.of(), claimIds(List.of(), START));
    }

    @Test
    void claimBatch_moreIdsThanOneStatement_claimsEveryOne() {
        Job job = insertJob(START);
        List<NewInstance> batch = IntStream.range(0, 2_500)
                .mapToObj(i -> newInstance(job.id(), START.plusMillis(i))).toList();
        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, null, batch, false, null));
        List<Long> ids = batch.stream().map(NewInstance::id).toList();

        Set<Long> claimed = claimIds(ids, START);

        assertEquals(Set.copyOf(ids), claimed);
        assertEquals(2_500L, instances.countByStatus().get(InstanceStatus.DISPATCHING));
    }

    @Test
    void markAllSucceeded_dispatching_succeedsAndClearsEarlierError() {
        Instance instance = instanceIn(InstanceStatus.DISPATCHING);
        instances.retry(instance.id(), START.plusSeconds(1), "first attempt failed");
        claim(instance.id(), START.plusSeconds(1));
        clock.advance(Duration.ofSeconds(2));

        assertTrue(succeed(instance.id()));

        Instance done = instances.get(instance.id()).orElseThrow();
        assertEquals(InstanceStatus.SUCCEEDED, done.status());
        assertNull(done.error());
        assertEquals(2, done.attempt());
        assertEquals(START_MS.plusSeconds(2), done.updatedAt());
    }

    @Test
    void markAllSucceededWithOutputs_keepsEachOutput_andMovesOnlyDispatchingRows() {
        Instance first = instanceIn(InstanceStatus.DISPATCHING);
        Instance second = instanceIn(InstanceStatus.DISPATCHING);
        Instance waiting = instanceIn(InstanceStatus.WAITING);
        instances.retry(second.id(), START.plusSeconds(1), "first attempt failed");
        claim(second.id(), START.plusSeconds(1));
        String big = "\"" + "x".repeat(Instance.MAX_OUTPUT_LENGTH - 2) + "\"";

        Set<Long> moved = instances.markAllSucceeded(Map.of(first.id(), "{\"total\": 3}", second.id(), big,
                waiting.id(), "1"));

        assertEquals(Set.of(first.id(), second.id()), moved);
        assertEquals("{\"total\": 3}", instances.get(first.id()).orElseThrow().output());
        Instance secondDone = instances.get(second.id()).orElseThrow();
        assertEquals(InstanceStatus.SUCCEEDED, secondDone.status());
        assertEquals(big, secondDone.output(), "an output of the whole limit fits the column");
        assertNull(secondDone.error(), "the earlier attempt's error is cleared");
        Instance stillWaiting = instances.get(waiting.id()).orElseThrow();
        assertEquals(InstanceStatus.WAITING, stillWaiting.status());
        assertNull(stillWaiting.output());
        assertEquals(Set.of(), instances.markAllSucceeded(Map.of(first.id(), "2")), "a settled row is left alone");
        assertEquals("{\"total\": 3}", instances.get(first.id()).orElseThrow().output());
    }

    @Test
    void markFailed_dispatching_storesError() {
        Instance instance = instanceIn(InstanceStatus.DISPATCHING);

        assertTrue(instances.markFailed(instance.id(), "HTTP 503 from https://example.com"));

        Instance failed = instances.get(instance.id()).orElseThrow();
        assertEquals(InstanceStatus.FAILED, failed.status());
        assertEquals("HTTP 503 from https://example.com", failed.error());
    }

    @Test
    void markFailed_hugeError_storedTruncated() {
        Instance instance = instanceIn(InstanceStatus.DISPATCHING);
        String huge = "x".repeat(InstanceTransitions.MAX_ERROR_LENGTH + 500);

        assertTrue(instances.markFailed(instance.id(), huge));

        assertEquals(InstanceTransitions.MAX_ERROR_LENGTH,
                instances.get(instance.id()).orElseThrow().error().length());
    }

    @Test
    void retry_dispatching_returnsToWaitingAtNewTimeKeepingSlot() {
        Job job = insertJob(START);
        NewInstance slot = newInstance(job.id(), START);
        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, START.plusSeconds(1), List.of(slot), false, null));
        claim(slot.id(), START);

        assertTrue(instances.retry(slot.id(), START.plusSeconds(30), "timeout after 5000 ms"));

        Instance retried = instances.get(slot.id()).orElseThrow();
        assertEquals(InstanceStatus.WAITING, retried.status());
        assertEquals(START_MS.plusSeconds(30), retried.expectedTriggerTime());
        assertEquals(START_MS, retried.scheduledTriggerTime());
        assertEquals("timeout after 5000 ms", retried.error());
        assertEquals(1, retried.attempt());
        assertTrue(claim(slot.id(), START.plusSeconds(30)));
        assertEquals(2, instances.get(slot.id()).orElseThrow().attempt());
    }

    @Test
    void cancel_waiting_returnsCancelledAndInstanceCannotBeClaimed() {
        Instance instance = waitingInstance();

        assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(instance.id())).get(0).outcome());

        assertEquals(InstanceStatus.CANCELLED, instances.get(instance.id()).orElseThrow().status());
        assertFalse(claim(instance.id(), START));
        assertEquals(Set.of(), claimIds(List.of(instance.id()), START));
    }

    @Test
    void cancel_dispatching_returnsAlreadyDispatched() {
        Instance instance = instanceIn(InstanceStatus.DISPATCHING);

        assertEquals(CancelOutcome.ALREADY_DISPATCHED, instances.cancelAll(List.of(instance.id())).get(0).outcome());
        assertEquals(InstanceStatus.DISPATCHING, instances.get(instance.id()).orElseThrow().status());
    }

    @ParameterizedTest
    @MethodSource("terminalStatuses")
    void cancel_finished_returnsAlreadyFinished(InstanceStatus terminal) {
        Instance instance = instanceIn(terminal);

        assertEquals(CancelOutcome.ALREADY_FINISHED, instances.cancelAll(List.of(instance.id())).get(0).outcome());
        assertEquals(terminal, instances.get(instance.id()).orElseThrow().status());
    }

    static Stream<InstanceStatus> terminalStatuses() {
        return Stream.of(InstanceStatus.SUCCEEDED, InstanceStatus.FAILED, InstanceStatus.CANCELLED);
    }

    @Test
    void cancel_unknownInstance_returnsUnknown() {
        assertEquals(CancelOutcome.UNKNOWN, instances.cancelAll(List.of(nextId())).get(0).outcome());
    }

    /** Every transition operation, as the status it needs and a call that reports whether it applied. */
    enum Operation {
        CLAIM(InstanceStatus.WAITING, (s, id) -> !s.claimBatch(List.of(id), START).isEmpty()),
        MARK_SUCCEEDED(InstanceStatus.DISPATCHING, (s, id) -> s.markAllSucceeded(List.of(id)).contains(id)),
        MARK_SUCCEEDED_WITH_OUTPUT(InstanceStatus.DISPATCHING,
                (s, id) -> s.markAllSucceeded(Map.of(id, "[]")).contains(id)),
        MARK_FAILED(InstanceStatus.DISPATCHING, (s, id) -> s.markFailed(id, "e")),
        RETRY(InstanceStatus.DISPATCHING, (s, id) -> s.retry(id, START.plusSeconds(9), "e")),
        CANCEL(InstanceStatus.WAITING, (s, id) -> s.cancelAll(List.of(id)).get(0).outcome() == CancelOutcome.CANCELLED),
        RELEASE(InstanceStatus.DISPATCHING, (s, id) -> s.release(id)),
        MARK_INTERRUPTED(InstanceStatus.DISPATCHING, (s, id) -> s.markInterrupted(id, "cut")),
        SKIP(InstanceStatus.WAITING, (s, id) -> s.skip(id, "over the limit"));

        final InstanceStatus requires;
        final java.util.function.BiFunction<InstanceStore, Long, Boolean> call;

        Operation(InstanceStatus requires, java.util.function.BiFunction<InstanceStore, Long, Boolean> call) {
            this.requires = requires;
            this.call = call;
        }
    }

    static Stream<Arguments> illegalTransitions() {
        List<Arguments> cases = new ArrayList<>();
        for (Operation op : Operation.values()) {
            for (InstanceStatus status : EnumSet.complementOf(EnumSet.of(op.requires))) {
                cases.add(Arguments.of(op, status));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} from {1}")
    @MethodSource("illegalTransitions")
    void transition_fromWrongStatus_refusedAndRowUnchanged(Operation op, InstanceStatus status) {
        Instance before = instanceIn(status);
        clock.advance(Duration.ofSeconds(1));

        assertFalse(op.call.apply(instances, before.id()));

        assertEquals(before, instances.get(before.id()).orElseThrow());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legalOperations")
    void transition_fromRequiredStatus_applies(Operation op) {
        Instance before = instanceIn(op.requires);

        assertTrue(op.call.apply(instances, before.id()));

        assertTrue(op.requires.canMoveTo(instances.get(before.id()).orElseThrow().status()));
    }

    static Stream<Operation> legalOperations() {
        return Stream.of(Operation.values());
    }

    // ---------------------------------------------------------------- reads

    @Test
    void get_unknownInstance_returnsEmpty() {
        assertTrue(instances.get(nextId()).isEmpty());
    }

    @Test
    void jobIdsOf_eachStoredInstancesJob_inOneRead_unknownIdsAbsent() {
        Job job = insertJob(null);
        Job other = insertJob(null);
        long first = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance().id();
        long second = instances.insertRuns(List.of(newInstance(other.id(), START))).get(0).instance().id();
        long unknown = nextId();

        assertEquals(Map.of(first, job.id(), second, other.id()), instances.jobIdsOf(List.of(first, unknown, second)));
        assertEquals(Map.of(), instances.jobIdsOf(List.of()));
        assertEquals(Map.of(), instances.jobIdsOf(List.of(unknown)));
    }

    @Test
    void listLatest_filtersByJobAndStatus_newestFirstPagedById() {
        Job job = insertJob(null);
        Job other = insertJob(null);
        List<Long> jobWaiting = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            jobWaiting.add(instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance().id());
            instances.insertRuns(List.of(newInstance(other.id(), START))).get(0).instance();
        }
        long claimed = jobWaiting.remove(3);
        claim(claimed, START);
        Collections.reverse(jobWaiting);

        assertEquals(jobWaiting, collectPages(new InstanceFilter(job.id(), InstanceStatus.WAITING, 0, Long.MAX_VALUE),
                2));
        assertEquals(7, collectPages(new InstanceFilter(job.id(), null, 0, Long.MAX_VALUE), 3).size());
        assertEquals(List.of(claimed),
                collectPages(new InstanceFilter(null, InstanceStatus.DISPATCHING, 0, Long.MAX_VALUE), 3));
        assertEquals(List.of(), collectPages(new InstanceFilter(other.id(), InstanceStatus.DISPATCHING, 0,
                Long.MAX_VALUE), 3));
        List<Long> all = collectPages(InstanceFilter.ALL, 5);
        assertEquals(14, all.size());
        assertEquals(all.stream().sorted(Collections.reverseOrder()).toList(), all, "newest (highest id) first");
        assertFalse(instances.listLatest(InstanceFilter.ALL, Long.MAX_VALUE, 14).hasMore(), "one full page");
    }

    @Test
    void listLatest_creationTimeBounds_areIdRangesFromInclusiveToExclusive() {
        Job job = insertJob(null);
        Job other = insertJob(null);
        Instant t0 = Instant.parse("2030-01-01T00:00:00Z");
        // Six instances created a second apart, alternating jobs, with the ids a generator mints at those times.
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long id = new SnowflakeIdGenerator(3, java.time.Clock.fixed(t0.plusSeconds(i), java.time.ZoneOffset.UTC))
                    .nextId();
            ids.add(instances.insertRuns(List.of(new NewInstance(id, i % 2 == 0 ? job.id() : other.id(), START, null)))
                    .get(0).instance()
                    .id());
        }
        assertTrue(claim(ids.get(1), START) && claim(ids.get(4), START) && claim(ids.get(5), START));
        long second1 = SnowflakeIdGenerator.lowestIdAt(t0.plusSeconds(1));
        long second4 = SnowflakeIdGenerator.lowestIdAt(t0.plusSeconds(4));

        assertEquals(List.of(ids.get(3), ids.get(2), ids.get(1)),
                collectPages(new InstanceFilter(null, null, second1, second4), 2), "[t0 + 1 s, t0 + 4 s)");
        assertEquals(List.of(ids.get(4), ids.get(2)),
                collectPages(new InstanceFilter(job.id(), null, second1, Long.MAX_VALUE), 1), "job, from t0 + 1 s");
        assertEquals(List.of(ids.get(4), ids.get(1)),
                collectPages(new InstanceFilter(null, InstanceStatus.DISPATCHING, 0, ids.get(5)), 1),
                "status, before the last");
        assertEquals(List.of(ids.get(1)),
                collectPages(new InstanceFilter(other.id(), InstanceStatus.DISPATCHING, second1, second4), 1),
                "job, status and both bounds");
        assertEquals(List.of(), collectPages(new InstanceFilter(null, null, second4, second1), 10), "empty range");
        assertEquals(List.of(ids.get(2), ids.get(1)),
                instances.listLatest(new InstanceFilter(null, null, second1, second4), ids.get(3), 10).items()
                        .stream().map(Instance::id).toList(), "the cursor bound and the filter's, the lower wins");
    }

    /** Every page of a newest-first listing, {@code limit} at a time, following the cursor. */
    private List<Long> collectPages(InstanceFilter filter, int limit) {
        List<Long> ids = new ArrayList<>();
        long before = Long.MAX_VALUE;
        while (true) {
            Page<Instance, Long> page = instances.listLatest(filter, before, limit);
            assertTrue(page.items().size() <= limit);
            page.items().forEach(i -> ids.add(i.id()));
            if (!page.hasMore()) {
                return ids;
            }
            before = page.nextCursor().orElseThrow();
        }
    }

    /** Every instance of a job and/or in a status, ascending id (the newest-first listing reversed). */
    private List<Instance> listed(Long jobId, InstanceStatus status) {
        List<Instance> all = new ArrayList<>(instances.listLatest(new InstanceFilter(jobId, status, 0,
                Long.MAX_VALUE), Long.MAX_VALUE, 10_000).items());
        Collections.reverse(all);
        return all;
    }

    // ---------------------------------------------------------------- attempts

    @Test
    void retry_recordsTheFailedAttempt_andTheHistoryShowsEveryAttempt() {
        long id = waitingInstance().id(); // due at START_MS
        Instance first = instances.claimBatch(List.of(id), START_MS.plusMillis(250)).get(0);
        clock.set(START_MS.plusSeconds(3));
        assertTrue(instances.retry(id, START_MS.plusSeconds(10), "HTTP 503"));
        Attempt retried = new Attempt(1, Attempt.Outcome.RETRIED, START_MS.plusMillis(250), START_MS.plusSeconds(3),
                START_MS, "HTTP 503", first.claimNode(), first.claimEpoch());

        InstanceHistory waiting = instances.history(id).orElseThrow();
        assertEquals(List.of(retried), waiting.attempts(), "a waiting instance has no current attempt");
        assertEquals(250L, retried.latenessMs());
        assertNull(waiting.instance().latenessMs(), "its actual trigger belongs to the retried attempt");

        Instance second = instances.claimBatch(List.of(id), START_MS.plusMillis(10_500)).get(0);
        Attempt inFlight = new Attempt(2, Attempt.Outcome.DISPATCHING, START_MS.plusMillis(10_500), null,
                START_MS.plusSeconds(10), null, second.claimNode(), second.claimEpoch());
        assertEquals(List.of(retried, inFlight), instances.history(id).orElseThrow().attempts());
        assertEquals(500L, second.latenessMs());

        clock.set(START_MS.plusSeconds(12));
        assertTrue(succeed(id));
        Attempt succeeded = new Attempt(2, Attempt.Outcome.SUCCEEDED, START_MS.plusMillis(10_500),
                START_MS.plusSeconds(12), START_MS.plusSeconds(10), null, second.claimNode(), second.claimEpoch());
        InstanceHistory done = instances.history(id).orElseThrow();
        assertEquals(List.of(retried, succeeded), done.attempts());
        assertEquals(instances.get(id).orElseThrow(), done.instance());
    }

    @Test
    void history_failedFinalAttempt_isTheRowAfterTheRetriedOnes() {
        long id = waitingInstance().id();
        assertTrue(claim(id, START_MS) && instances.retry(id, START_MS.plusSeconds(1), "first"));
        assertTrue(claim(id, START_MS.plusSeconds(1)) && instances.retry(id, START_MS.plusSeconds(2), "second"));
        assertTrue(claim(id, START_MS.plusSeconds(2)) && instances.markFailed(id, "third"));

        List<Attempt> attempts = instances.history(id).orElseThrow().attempts();

        assertEquals(List.of(1, 2, 3), attempts.stream().map(Attempt::attempt).toList());
        assertEquals(List.of(Attempt.Outcome.RETRIED, Attempt.Outcome.RETRIED, Attempt.Outcome.FAILED),
                attempts.stream().map(Attempt::outcome).toList());
        assertEquals(List.of("first", "second", "third"), attempts.stream().map(Attempt::error).toList());
        assertEquals(List.of(START_MS, START_MS.plusSeconds(1), START_MS.plusSeconds(2)),
                attempts.stream().map(Attempt::startedAt).toList());
    }

    @Test
    void retry_refusedOrReleased_recordsNothing() {
        long id = waitingInstance().id();

        assertFalse(instances.retry(id, START_MS.plusSeconds(1), "not dispatching"));
        assertEquals(List.of(), instances.history(id).orElseThrow().attempts(), "never claimed: no attempts");

        assertTrue(claim(id, START_MS) && instances.release(id));
        assertEquals(List.of(), instances.history(id).orElseThrow().attempts(), "a release is the same attempt");
        assertTrue(claim(id, START_MS.plusSeconds(1)) && instances.retry(id, START_MS.plusSeconds(2), "boom"));
        assertFalse(instances.retry(id, START_MS.plusSeconds(3), "twice"), "the retry of a waiting instance");
        assertEquals(1, attemptRows(id));
        assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(id)).get(0).outcome());

        InstanceHistory cancelled = instances.history(id).orElseThrow();
        assertEquals(List.of(1), cancelled.attempts().stream().map(Attempt::attempt).toList());
        assertEquals(START_MS.plusSeconds(1), cancelled.attempts().get(0).startedAt(), "the claim after the release");
        assertNull(cancelled.instance().latenessMs());
    }

    @Test
    void history_unknownInstance_isEmpty() {
        assertTrue(instances.history(nextId()).isEmpty());
    }

    @Test
    void history_instanceDeleted_takesItsAttemptsWithIt() throws Exception {
        long id = waitingInstance().id();
        assertTrue(claim(id, START_MS) && instances.retry(id, START_MS.plusSeconds(1), "boom"));
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM tw_instance WHERE id = " + id);
        }

        assertEquals(0, attemptRows(id), "ON DELETE CASCADE");
    }

    private long attemptRows(long instanceId) {
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery(
                        "SELECT COUNT(*) FROM tw_attempt WHERE instance_id = " + instanceId)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void findWaiting_allShards_pagesInDueThenIdOrder_onlyWaiting() {
        List<Long> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(instanceIn(InstanceStatus.WAITING).id());
            instanceIn(InstanceStatus.DISPATCHING);
            instanceIn(InstanceStatus.SUCCEEDED);
        }
        Instant farFuture = START_MS.plus(Duration.ofDays(365));

        List<Instance> firstWaiting = instances.findWaiting(allShards, WaitingCursor.FIRST, farFuture, 3);
        Instance last = firstWaiting.get(2);
        List<Instance> restWaiting = instances.findWaiting(allShards,
                WaitingCursor.after(last.expectedTriggerTime(), last.id()), farFuture, 3);

        assertEquals(waiting.subList(0, 3), firstWaiting.stream().map(Instance::id).toList());
        assertEquals(waiting.subList(3, 5), restWaiting.stream().map(Instance::id).toList());
    }

    /**
     * Due order first, then id: a walk in pages of two over instances created in an order unlike their due times,
     * several sharing a due time, sees each once, in (due, id) order; a walk that starts after a due time sees only
     * later ones.
     */
    @Test
    void findWaiting_pagesInDueOrder_sharedDueTimesSeenOnce_dueAfterSkipsEarlier() {
        Job job = insertJob(null);
        long[] offsets = {30, 10, 20, 10, 40, 20, 10, 50};
        List<Instance> created = new ArrayList<>();
        for (long offset : offsets) {
            created.add(instances.insertRuns(List.of(newInstance(job.id(), START_MS.plusSeconds(offset)))).get(0)
                    .instance());
        }
        List<Long> expected = created.stream()
                .sorted(java.util.Comparator.comparing(Instance::expectedTriggerTime).thenComparingLong(Instance::id))
                .map(Instance::id).toList();
        Instant dueBy = START_MS.plusSeconds(60);

        List<Long> walked = new ArrayList<>();
        WaitingCursor cursor = WaitingCursor.FIRST;
        while (true) {
            List<Instance> page = instances.findWaiting(allShards, cursor, dueBy, 2);
            page.forEach(i -> walked.add(i.id()));
            if (page.size() < 2) {
                break;
            }
            Instance last = page.get(page.size() - 1);
            cursor = WaitingCursor.after(last.expectedTriggerTime(), last.id());
        }

        assertEquals(expected, walked);
        List<Instance> afterTwenty = instances.findWaiting(allShards,
                WaitingCursor.dueAfter(START_MS.plusSeconds(20).toEpochMilli()), dueBy, 100);
        assertEquals(expected.subList(5, 8), afterTwenty.stream().map(Instance::id).toList());
        assertEquals(List.of(), instances.findWaiting(allShards,
                WaitingCursor.dueAfter(dueBy.toEpochMilli()), dueBy, 100), "nothing after the bound");
    }

    @Test
    void findWaiting_someShards_returnsOnlyInstancesOfThoseShards() {
        Map<Integer, List<Long>> byShard = new java.util.TreeMap<>();
        for (int i = 0; i < 40; i++) {
            Instance instance = waitingInstance();
            byShard.computeIfAbsent(instance.shard(), s -> new ArrayList<>()).add(instance.id());
        }
        List<Integer> asked = byShard.keySet().stream().limit(3).toList();
        List<Long> expected = asked.stream().flatMap(s -> byShard.get(s).stream()).sorted().toList();

        List<Instance> found = instances.findWaiting(asked, WaitingCursor.FIRST, START_MS.plusSeconds(3_600), 100);

        assertEquals(expected, found.stream().map(Instance::id).toList());
        assertTrue(found.stream().allMatch(i -> asked.contains(i.shard())), "shards of " + found);
        assertEquals(List.of(), instances.findWaiting(List.of(), WaitingCursor.FIRST, START_MS, 100));
    }

    @Test
    void findWaiting_dueBy_returnsOnlyInstancesDueByThen() {
        Job job = insertJob(null);
        Instance early = instances.insertRuns(List.of(newInstance(job.id(), START_MS))).get(0).instance();
        Instance exactlyDue = instances.insertRuns(List.of(newInstance(job.id(), START_MS.plusSeconds(10))))
                .get(0).instance();
        instances.insertRuns(List.of(newInstance(job.id(), START_MS.plusSeconds(10).plusMillis(1)))).get(0).instance();

        List<Instance> due = instances.findWaiting(allShards, WaitingCursor.FIRST, START_MS.plusSeconds(10), 100);

        assertEquals(List.of(early.id(), exactlyDue.id()), due.stream().map(Instance::id).toList());
    }

    @Test
    void insert_jobsAndInstances_carryTheirShards_aRunOfASpreadingJobItsOwn() {
        Job job = insertJob(START);
        assertTrue(job.spreadsInstances(), "no maxConcurrent, not fixed-delay");
        Instance onDemand = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0).instance();
        NewInstance scheduled = newInstance(job.id(), START);
        assertTrue(instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), 0, START, START.plusSeconds(1),
                List.of(scheduled), false, null)).advanced());
        int shard = Shards.of(job.id(), stores.cluster().shardCount());

        assertEquals(Shards.of(onDemand.id(), stores.cluster().shardCount()), onDemand.shard());
        assertEquals(onDemand.shard(), instances.get(onDemand.id()).orElseThrow().shard());
        assertEquals(shard, instances.get(scheduled.id()).orElseThrow().shard());
        assertEquals(-1, onDemand.claimNode());
        assertEquals(0, onDemand.claimEpoch());
        Instant until = START.plusSeconds(1);
        assertEquals(List.of(job.id()), jobs.findDue(until, null, 10, List.of(shard)).stream().map(Job::id).toList());
        assertEquals(List.of(), jobs.findDue(until, null, 10, allShards.stream().filter(s -> s != shard).toList()));
    }

    @Test
    void insert_loaderPagesAndFollowUps_carryTheShardOfTheirJob() {
        List<JobAdvance> page = new ArrayList<>();
        List<NewInstance> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Job job = insertJob(START);
            NewInstance instance = newInstance(job.id(), START);
            created.add(instance);
            page.add(new JobAdvance(job.id(), 0, START, null, List.of(instance), false, null));
        }
        Job fixedDelay = insertFixedDelayJob(true, null);
        NewInstance followUp = newInstance(fixedDelay.id(), START);

        instances.createInstancesAndAdvanceJobs(page);
        assertTrue(instances.createFollowUp(followUp));

        created.add(followUp);
        for (NewInstance instance : created) {
            assertEquals(Shards.of(instance.jobId(), stores.cluster().shardCount()),
                    instances.get(instance.id()).orElseThrow().shard(), "shard of instance " + instance.id());
        }
    }

    // ---------------------------------------------------------------- delivery (issue 10)

    @Test
    void release_claimedInstance_waitsAgainAsTheSameAttempt() {
        Instance claimed = instanceIn(InstanceStatus.DISPATCHING);
        instances.markCallStarted(List.of(claimed.id()), START);
        assertEquals(1, claimed.attempt());

        assertTrue(instances.release(claimed.id()));

        Instance released = instances.get(claimed.id()).orElseThrow();
        assertEquals(InstanceStatus.WAITING, released.status());
        assertEquals(0, released.attempt(), "the claim is undone, so the next claim makes the same attempt");
        assertNull(released.callStartedAt());
        assertEquals(claimed.expectedTriggerTime(), released.expectedTriggerTime());
        assertEquals(1, instances.claimBatch(List.of(claimed.id()), START).get(0).attempt());
    }

    @Test
    void markCallStarted_marksDispatchingRowsOnly() {
        Instance dispatching = instanceIn(InstanceStatus.DISPATCHING);
        Instance waiting = instanceIn(InstanceStatus.WAITING);

        Set<Long> marked = instances.markCallStarted(List.of(dispatching.id(), waiting.id(), 987_654_321L),
                START.plusSeconds(3));

        assertEquals(Set.of(dispatching.id()), marked);
        assertEquals(START_MS.plusSeconds(3), instances.get(dispatching.id()).orElseThrow().callStartedAt());
        assertNull(instances.get(waiting.id()).orElseThrow().callStartedAt());
    }

    @Test
    void retry_afterMarkedCall_clearsTheMark() {
        Instance dispatching = instanceIn(InstanceStatus.DISPATCHING);
        instances.markCallStarted(List.of(dispatching.id()), START);

        assertTrue(instances.retry(dispatching.id(), START.plusSeconds(5), "boom"));

        assertNull(instances.get(dispatching.id()).orElseThrow().callStartedAt());
    }

    @Test
    void skip_waitingInstance_cancelsWithTheReason() {
        Instance waiting = instanceIn(InstanceStatus.WAITING);

        assertTrue(instances.skip(waiting.id(), "skipped: over the limit"));

        Instance skipped = instances.get(waiting.id()).orElseThrow();
        assertEquals(InstanceStatus.CANCELLED, skipped.status());
        assertEquals("skipped: over the limit", skipped.error());
    }

    @Test
    void advance_plannedFromAVersionAUserChangedSince_isLostAndWritesNothing() {
        Job read = insertJob(START);
        Job updated = jobs.update(read.withName("renamed")).orElseThrow(); // same next trigger, version 1
        assertEquals(read.nextTriggerTime(), updated.nextTriggerTime());

        AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(read.id(), read.version(),
                START, START.plusSeconds(1), List.of(newInstance(read.id(), START)), false, null));

        assertFalse(result.advanced());
        assertEquals(0, listed(read.id(), null).size());
        assertEquals(START_MS, jobs.get(read.id()).orElseThrow().nextTriggerTime());
    }

    private Job insertFixedDelayJob(boolean enabled, Instant nextTrigger) {
        return jobs.insert(new NewJob(nextId(), "fixed delay", ScheduleSpec.fixedDelay(1_000), Target.handler("h"),
                null, enabled, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, nextTrigger));
    }

    @Test
    void createFollowUp_oneChainPerJob_whateverTheCompletionsInterleave() {
        Job job = insertFixedDelayJob(true, null);
        NewInstance first = newInstance(job.id(), START);
        NewInstance second = newInstance(job.id(), START.plusMillis(1));

        assertTrue(instances.createFollowUp(first));
        assertFalse(instances.createFollowUp(second), "the first follow-up still waits: its chain goes on");
        assertTrue(claim(first.id(), START) && succeed(first.id()));
        assertTrue(instances.createFollowUp(second), "the chain's instance completed: the next one follows");
    }

    @Test
    void createFollowUp_jobDisabledOrWithANextTrigger_createsNothing() {
        Job disabled = insertFixedDelayJob(false, null);
        Job restarted = insertFixedDelayJob(true, START.plusSeconds(1)); // updated or re-enabled: a new chain

        assertFalse(instances.createFollowUp(newInstance(disabled.id(), START)));
        assertFalse(instances.createFollowUp(newInstance(restarted.id(), START)));
        assertEquals(0, listed(disabled.id(), null).size()
                + listed(restarted.id(), null).size());
    }

    @Test
    void countByStatus_someStatuses_countsEachAndZeroForTheRest() {
        instanceIn(InstanceStatus.WAITING);
        instanceIn(InstanceStatus.WAITING);
        instanceIn(InstanceStatus.FAILED);

        Map<InstanceStatus, Long> counts = instances.countByStatus();

        assertEquals(Map.of(InstanceStatus.WAITING, 2L, InstanceStatus.DISPATCHING, 0L,
                InstanceStatus.SUCCEEDED, 0L, InstanceStatus.FAILED, 1L, InstanceStatus.CANCELLED, 0L,
                InstanceStatus.INTERRUPTED, 0L), counts);
    }

    // ---------------------------------------------------------------- races

    private static final int RACERS = 8;

    /** Runs {@code task(racer)} on {@link #RACERS} threads released together; rethrows the first failure. */
    private static void race(int racers, IntConsumerWithException task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            CyclicBarrier start = new CyclicBarrier(racers);
            List<Future<?>> futures = new ArrayList<>();
            for (int r = 0; r < racers; r++) {
                int racer = r;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.accept(racer);
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    interface IntConsumerWithException {
        void accept(int value) throws Exception;
    }

    private List<Long> createWaitingInstances(int count) {
        Job job = insertJob(START);
        List<NewInstance> batch = IntStream.range(0, count)
                .mapToObj(i -> newInstance(job.id(), START.plusMillis(i))).toList();
        assertTrue(instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, null, batch, false, null)).advanced());
        return batch.stream().map(NewInstance::id).toList();
    }

    @Test
    void claim_8ThreadsRaceForSame1000Instances_eachClaimedExactlyOnce() throws Exception {
        List<Long> ids = createWaitingInstances(1_000);
        Map<Long, Integer> wins = new ConcurrentHashMap<>();
        long startNanos = System.nanoTime();

        race(RACERS, racer -> {
            List<Long> order = new ArrayList<>(ids);
            Collections.shuffle(order, new Random(racer));
            for (long id : order) {
                if (claim(id, START)) {
                    wins.merge(id, 1, Integer::sum);
                }
            }
        });

        System.out.printf("%s: 8 threads raced claim() over 1000 instances in %d ms%n",
                getClass().getSimpleName(), (System.nanoTime() - startNanos) / 1_000_000);
        assertEquals(Set.copyOf(ids), wins.keySet());
        assertTrue(wins.values().stream().allMatch(n -> n == 1), "an instance was claimed twice: " + wins);
        assertEquals(1_000L, instances.countByStatus().get(InstanceStatus.DISPATCHING));
        assertTrue(listed(null, InstanceStatus.DISPATCHING).stream()
                .allMatch(i -> i.attempt() == 1));
    }

    @Test
    void claimBatch_8ThreadsRaceOverlappingBatches_eachClaimedExactlyOnce() throws Exception {
        List<Long> ids = createWaitingInstances(1_000);
        Map<Long, Integer> wins = new ConcurrentHashMap<>();

        race(RACERS, racer -> {
            List<Long> order = new ArrayList<>(ids);
            Collections.shuffle(order, new Random(100 + racer));
            for (int from = 0; from < order.size(); from += 50) {
                for (long id : claimIds(order.subList(from, from + 50), START)) {
                    wins.merge(id, 1, Integer::sum);
                }
            }
        });

        assertEquals(Set.copyOf(ids), wins.keySet());
        assertTrue(wins.values().stream().allMatch(n -> n == 1), "an instance was claimed twice: " + wins);
        assertTrue(listed(null, InstanceStatus.DISPATCHING).stream()
                .allMatch(i -> i.attempt() == 1));
    }

    @Test
    void cancel_racesClaimOnSameInstances_neverBothAndAnswersAgree() throws Exception {
        List<Long> ids = createWaitingInstances(500);
        Map<Long, Boolean> claimed = new ConcurrentHashMap<>();
        Map<Long, CancelOutcome> cancelled = new ConcurrentHashMap<>();

        race(2, racer -> {
            for (long id : ids) {
                if (racer == 0) {
                    claimed.put(id, claim(id, START));
                } else {
                    cancelled.put(id, instances.cancelAll(List.of(id)).get(0).outcome());
                }
            }
        });

        int claimWins = 0;
        for (long id : ids) {
            boolean claimWon = claimed.get(id);
            CancelOutcome cancel = cancelled.get(id);
            InstanceStatus status = instances.get(id).orElseThrow().status();
            if (claimWon) {
                claimWins++;
                assertEquals(CancelOutcome.ALREADY_DISPATCHED, cancel, "instance " + id);
                assertEquals(InstanceStatus.DISPATCHING, status, "instance " + id);
            } else {
                assertEquals(CancelOutcome.CANCELLED, cancel, "instance " + id);
                assertEquals(InstanceStatus.CANCELLED, status, "instance " + id);
            }
        }
        System.out.printf("%s: cancel vs claim on 500 instances: %d claimed, %d cancelled%n",
                getClass().getSimpleName(), claimWins, 500 - claimWins);
    }

    @Test
    void createInstancesAndAdvanceJob_twoLoadersRaceForSameWindow_oneAdvancesAndNoDuplicates() throws Exception {
        int jobCount = 50;
        List<Job> raced = IntStream.range(0, jobCount).mapToObj(i -> insertJob(START)).toList();
        List<Instant> window = List.of(START, START.plusSeconds(2), START.plusSeconds(4));
        Map<Long, Integer> advances = new ConcurrentHashMap<>();

        race(2, racer -> {
            for (Job job : raced) {
                List<NewInstance> batch = window.stream().map(t -> newInstance(job.id(), t)).toList();
                AdvanceResult result = instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START,
                        START.plusSeconds(6), batch, false, null));
                if (result.advanced()) {
                    assertEquals(batch, result.created());
                    advances.merge(job.id(), 1, Integer::sum);
                }
            }
        });

        for (Job job : raced) {
            assertEquals(1, advances.get(job.id()), "advances of job " + job.id());
            List<Instance> created = listed(job.id(), null);
            assertEquals(window.stream().map(t -> Instant.ofEpochMilli(t.toEpochMilli())).toList(),
                    created.stream().map(Instance::scheduledTriggerTime).sorted().toList());
            assertEquals(START_MS.plusSeconds(6), jobs.get(job.id()).orElseThrow().nextTriggerTime());
        }
    }

    @Test
    void delete_racesOnDemandInserts_leavesNoWaitingInstanceOfDeletedJob() throws Exception {
        List<Job> doomed = IntStream.range(0, 50).mapToObj(i -> insertJob(null)).toList();
        List<Long> inserted = new CopyOnWriteArrayList<>();

        race(2, racer -> {
            for (Job job : doomed) {
                if (racer == 0) {
                    jobs.delete(job.id());
                } else {
                    RunWrite written = instances.insertRuns(List.of(newInstance(job.id(), START))).get(0);
                    if (written.created()) {
                        inserted.add(written.instance().id());
                    } // else NO_JOB: the delete won, nothing was written
                }
            }
        });

        for (Job job : doomed) {
            assertTrue(jobs.get(job.id()).isEmpty());
            assertTrue(listed(job.id(), InstanceStatus.WAITING).isEmpty(),
                    "waiting instance left for deleted job " + job.id());
        }
        for (long id : inserted) {
            assertEquals(InstanceStatus.CANCELLED, instances.get(id).orElseThrow().status());
        }
    }

    @Test
    void delete_racesClaimsOfItsInstances_eachInstanceEitherClaimedOrCancelledNeverBoth() throws Exception {
        Job job = insertJob(START);
        List<NewInstance> batch = IntStream.range(0, 300)
                .mapToObj(i -> newInstance(job.id(), START.plusMillis(i))).toList();
        instances.createInstancesAndAdvanceJob(new JobAdvance(job.id(), versionOf(job.id()), START, null, batch, false, null));
        List<Long> ids = batch.stream().map(NewInstance::id).toList();
        Set<Long> claimed = ConcurrentHashMap.newKeySet();
        List<JobDeletion> deletion = new CopyOnWriteArrayList<>();

        race(2, racer -> {
            if (racer == 0) {
                for (long id : ids) {
                    if (claim(id, START)) {
                        claimed.add(id);
                    }
                }
            } else {
                deletion.add(jobs.delete(job.id()));
            }
        });

        Set<Long> cancelled = Set.copyOf(deletion.get(0).cancelledInstanceIds());
        for (long id : ids) {
            InstanceStatus status = instances.get(id).orElseThrow().status();
            assertTrue(claimed.contains(id) != cancelled.contains(id), "instance " + id);
            assertEquals(claimed.contains(id) ? InstanceStatus.DISPATCHING : InstanceStatus.CANCELLED, status,
                    "instance " + id);
        }
    }

    /** The job's stored version (0 for an unknown job): what a loader that just read it would expect. */
    private long versionOf(long jobId) {
        return jobs.get(jobId).map(dev.tickwheel.server.job.Job::version).orElse(0L);
    }
}
