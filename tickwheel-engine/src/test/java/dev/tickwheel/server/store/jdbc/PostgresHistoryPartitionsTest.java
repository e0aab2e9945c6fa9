package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.cluster.WholeClusterMember;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retention over the partitioned PostgreSQL history ({@link PartitionedHistory}, {@link PartitionRetention}): a
 * store with instances over ten days (each day a loader page of scheduled instances, keyed on-demand runs and a
 * retried attempt, all made through the store with the clock at that day) and a retention of three days. One
 * {@link RetentionPurge} run drops the days wholly past the retention with their attempts, slots and run keys, keeps
 * a day that holds a live instance or an instance of a job kept longer (and purges the rest of it row by row), and
 * keeps the days inside the retention untouched. The wall clock is a {@link MutableClock}; nothing sleeps.
 */
class PostgresHistoryPartitionsTest {

    /** Ten days of history: 2030-03-01 to 2030-03-10; now is the middle of the last. */
    private static final Instant FIRST_DAY = Instant.parse("2030-03-01T00:00:00Z");
    private static final Instant NOW = Instant.parse("2030-03-10T12:00:00Z");
    private static final int DAYS = 10;
    private static final int SCHEDULED_PER_DAY = 20;
    private static final int KEYED_PER_DAY = 10;
    private static final RetentionPurge.Settings THREE_DAYS = new RetentionPurge.Settings(3,
            RetentionPurge.Settings.DEFAULT_BATCH_SIZE, Duration.ofMinutes(1), 100);

    private final MutableClock clock = new MutableClock(NOW);
    private final AtomicLong jobIds = new AtomicLong(1_000);
    /** The node and sequence bits of the ids minted here, distinct for every id. */
    private final AtomicLong idSuffix = new AtomicLong();
    private PostgresTestDatabase database;
    private JdbcStores stores;
    private JobStore jobs;
    private InstanceStore instances;
    private WholeClusterMember member;
    private Job keyedJob;
    private Job keptLonger;
    /** Day index (0 = 2030-03-01) to the ids created that day. */
    private final Map<Integer, List<Long>> idsByDay = new TreeMap<>();

    @BeforeEach
    void open() {
        database = PostgresTestDatabase.createSchema();
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl()).poolName("tickwheel-partitions")
                .maxPoolSize(6).clock(clock).build());
        jobs = stores.jobs();
        instances = stores.instances();
        member = WholeClusterMember.join(stores.cluster());
        keyedJob = insertJob(ScheduleSpec.api(), null, null);
        keptLonger = insertJob(ScheduleSpec.api(), null, 30);
    }

    @AfterEach
    void close() throws SQLException {
        if (stores != null) {
            stores.close();
        }
        database.dropSchema();
    }

    @Test
    void run_tenDaysRetentionThree_dropsTheDaysPastItWholeAndKeepsTheRest() throws SQLException {
        for (int day = 0; day < DAYS; day++) {
            writeDay(day);
        }
        // 2030-03-02 also holds an instance of a job kept 30 days; 2030-03-03 one that is still waiting.
        clock.set(dayStart(1).plusSeconds(7_200));
        long longerId = succeeded(run(keptLonger, null, dayStart(1).plusSeconds(7_200)));
        idsByDay.get(1).add(longerId);
        clock.set(dayStart(2).plusSeconds(7_200));
        long waitingId = run(keyedJob, "still-waiting", NOW.plus(Duration.ofDays(30)));
        idsByDay.get(2).add(waitingId);
        clock.set(NOW);
        assertEquals(List.of("tw_instance_20300301", "tw_instance_20300302", "tw_instance_20300303",
                "tw_instance_20300304", "tw_instance_20300305", "tw_instance_20300306", "tw_instance_20300307",
                "tw_instance_20300308", "tw_instance_20300309", "tw_instance_20300310", "tw_instance_20300311",
                "tw_instance_20300312"), partitions("tw_instance"), "the ten days, and two days ahead of now");
        int perDay = SCHEDULED_PER_DAY + KEYED_PER_DAY;

        long removed = purge().run();

        // The cutoff is 2030-03-07T12:00: days up to 03-06 are wholly past it, 03-07 is not.
        List<String> kept = List.of("20300302", "20300303", "20300307", "20300308", "20300309", "20300310",
                "20300311", "20300312");
        assertEquals(kept.stream().map(d -> "tw_instance_" + d).toList(), partitions("tw_instance"));
        assertEquals(kept.stream().map(d -> "tw_attempt_" + d).toList(), partitions("tw_attempt"));
        assertEquals(kept.stream().map(d -> "tw_instance_slot_" + d).toList(), partitions("tw_instance_slot"));
        // Dropped whole: four days. Row by row: the other rows of the two days that had to stay (their instances
        // were created before 03-06, the per-row cutoff, which leaves the last day past the cutoff to the drop).
        assertEquals(4L * perDay + 2L * perDay, removed);
        for (int day = 0; day < DAYS; day++) {
            Set<Long> expected = day >= 6 ? Set.copyOf(idsByDay.get(day))
                    : day == 1 ? Set.of(longerId) : day == 2 ? Set.of(waitingId) : Set.of();
            assertEquals(expected, storedIds(idsByDay.get(day)), "day " + day);
        }
        // The keys, slots and attempts went with their instances; those of the days kept stayed.
        assertEquals(4L * KEYED_PER_DAY + 1, count("SELECT COUNT(*) FROM tw_run_key"));
        assertEquals(4L * SCHEDULED_PER_DAY, count("SELECT COUNT(*) FROM tw_instance_slot"));
        assertEquals(4L, count("SELECT COUNT(*) FROM tw_attempt"));
        assertEquals(0, count("SELECT COUNT(*) FROM tw_run_key k WHERE NOT EXISTS (SELECT 1 FROM tw_instance i"
                + " WHERE i.id = k.instance_id)"), "no key outlives its instance");

        // A key of a dropped day is free again; a key of a kept day still names its instance.
        assertEquals(RunWrite.Outcome.CREATED, write(keyedJob, "d0-k3").outcome());
        RunWrite kept7 = write(keyedJob, "d7-k3");
        assertEquals(RunWrite.Outcome.EXISTING, kept7.outcome());
        assertEquals(instances.findByKey(keyedJob.id(), "d7-k3").orElseThrow().id(), kept7.instance().id());

        assertEquals(0, purge().run(), "the next run finds nothing more");
        assertEquals(kept.stream().map(d -> "tw_instance_" + d).toList(), partitions("tw_instance"));
    }

    @Test
    void run_dayWithAnInstanceFinishedAfterTheCutoff_waitsWholeAndTheRowPassLeavesItAlone() throws SQLException {
        writeDay(5);
        // Created on 2030-03-06, finished at 2030-03-09T00:00, after the cutoff of a run at NOW (03-07T12:00).
        clock.set(dayStart(5).plusSeconds(3_600));
        long late = run(keyedJob, "late", dayStart(5).plusSeconds(3_600));
        clock.set(Instant.parse("2030-03-09T00:00:00Z"));
        succeeded(late);
        clock.set(NOW);

        assertEquals(0, purge().run());
        assertTrue(partitions("tw_instance").contains("tw_instance_20300306"));
        assertEquals(SCHEDULED_PER_DAY + KEYED_PER_DAY, storedIds(idsByDay.get(5)).size(),
                "the row pass does not nibble at a day the drop is waiting for");
        assertTrue(instances.get(late).isPresent());

        clock.set(Instant.parse("2030-03-12T00:00:00.001Z")); // 3 days and 1 ms after the late finish
        assertEquals(SCHEDULED_PER_DAY + KEYED_PER_DAY + 1, purge().run());
        assertTrue(!partitions("tw_instance").contains("tw_instance_20300306"));
        assertEquals(0, count("SELECT COUNT(*) FROM tw_run_key"));
    }

    @Test
    void maintainPartitions_twoMembersAtOnce_eachDayDroppedOnceAndNoError() throws Exception {
        for (int day = 0; day < 4; day++) {
            writeDay(day);
        }
        clock.set(NOW);
        try (JdbcStores other = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl())
                .poolName("tickwheel-partitions-2").maxPoolSize(2).clock(clock).build())) {
            Instant cutoff = NOW.minus(Duration.ofDays(3));
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                    () -> instances.maintainPartitions(NOW, cutoff, Set.of()));
            CompletableFuture<Long> second = CompletableFuture.supplyAsync(
                    () -> other.instances().maintainPartitions(NOW, cutoff, Set.of()));
            long removed = first.get() + second.get();
            // The member that found the upkeep taken skips it; a later upkeep finds nothing left.
            removed += instances.maintainPartitions(NOW, cutoff, Set.of())
                    + other.instances().maintainPartitions(NOW, cutoff, Set.of());
            assertEquals(4L * (SCHEDULED_PER_DAY + KEYED_PER_DAY), removed);
        }
        assertEquals(List.of("tw_instance_20300310", "tw_instance_20300311", "tw_instance_20300312"),
                partitions("tw_instance"));
    }

    // ---------------------------------------------------------------- fixtures

    /**
     * One day of history, made through the store with the clock at that day: a loader page of
     * {@value #SCHEDULED_PER_DAY} scheduled instances (slots an hour into the day, a second apart) and
     * {@value #KEYED_PER_DAY} keyed runs ({@code d<day>-k<n>}), all claimed and succeeded two hours into the day; the
     * first scheduled one failed once and was retried first (one attempt row).
     */
    private void writeDay(int day) {
        Instant start = dayStart(day);
        Instant created = start.plusSeconds(3_600);
        clock.set(created);
        Job scheduled = insertJob(ScheduleSpec.fixedRate(1_000, created), created, null);
        List<NewInstance> page = IntStream.range(0, SCHEDULED_PER_DAY)
                .mapToObj(i -> new NewInstance(idAt(created), scheduled.id(), created.plusSeconds(i), null)).toList();
        AdvanceResult advance = instances.createInstancesAndAdvanceJob(new JobAdvance(scheduled.id(),
                scheduled.version(), created, created.plusSeconds(SCHEDULED_PER_DAY), page, false, null));
        assertEquals(page, advance.created());
        List<Long> ids = new ArrayList<>(page.stream().map(NewInstance::id).toList());
        for (int k = 0; k < KEYED_PER_DAY; k++) {
            ids.add(run(keyedJob, "d" + day + "-k" + k, created));
        }
        clock.set(start.plusSeconds(7_000));
        long retried = ids.get(0);
        assertEquals(1, instances.claimBatch(List.of(retried), clock.instant()).size());
        assertTrue(instances.retry(retried, clock.instant(), "HTTP 503"));
        clock.set(start.plusSeconds(7_200));
        assertEquals(ids.size(), instances.claimBatch(ids, clock.instant()).size());
        assertEquals(Set.copyOf(ids), instances.markAllSucceeded(ids));
        idsByDay.put(day, ids);
    }

    private static Instant dayStart(int day) {
        return FIRST_DAY.plus(Duration.ofDays(day));
    }

    private RetentionPurge purge() {
        return new RetentionPurge(instances, jobs, member, THREE_DAYS, clock, Ticker.systemTicker());
    }

    private Job insertJob(ScheduleSpec schedule, Instant nextTrigger, Integer retentionDays) {
        return jobs.insert(new NewJob(jobIds.incrementAndGet(), "job", schedule, Target.handler("noop"), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                new JobOperations(retentionDays, null, null), nextTrigger));
    }

    /** An id minted now by the clock, as a server would mint it. */
    private long idAt(Instant at) {
        return SnowflakeIdGenerator.lowestIdAt(at) + idSuffix.incrementAndGet();
    }

    private RunWrite write(Job job, String key) {
        return instances.insertRuns(List.of(new NewInstance(idAt(clock.instant()), job.id(), clock.instant(), null,
                key, null, null, null))).get(0);
    }

    /** A run of {@code job} created now, due at {@code due}; its id. */
    private long run(Job job, String key, Instant due) {
        RunWrite write = instances.insertRuns(List.of(new NewInstance(idAt(clock.instant()), job.id(), due, null,
                key, null, null, null))).get(0);
        assertEquals(RunWrite.Outcome.CREATED, write.outcome());
        return write.instance().id();
    }

    private long succeeded(long id) {
        assertEquals(1, instances.claimBatch(List.of(id), clock.instant()).size());
        assertEquals(Set.of(id), instances.markAllSucceeded(List.of(id)));
        assertEquals(InstanceStatus.SUCCEEDED, instances.get(id).map(Instance::status).orElseThrow());
        return id;
    }

    private Set<Long> storedIds(List<Long> ids) {
        Set<Long> stored = new java.util.TreeSet<>();
        for (long id : ids) {
            instances.get(id).ifPresent(i -> stored.add(i.id()));
        }
        return stored;
    }

    private List<String> partitions(String table) throws SQLException {
        try (Connection c = stores.dataSource().getConnection()) {
            return TestPartitions.partitionsOf(c, table);
        }
    }

    private long count(String query) throws SQLException {
        try (Connection c = stores.dataSource().getConnection()) {
            return TestPartitions.count(c, query);
        }
    }
}
