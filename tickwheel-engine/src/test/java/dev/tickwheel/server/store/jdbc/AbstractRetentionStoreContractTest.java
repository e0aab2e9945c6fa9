package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The retention purge's store side ({@link InstanceStore#purgeFinished}, {@link JobStore#findRetentionOverrides}), run
 * once per database by a subclass: only finished instances created and last updated before the cutoff go, whatever
 * their scope leaves out stays, a batch examines at most its limit, and a pass walks the range by its cursor.
 *
 * <p>Instances get Snowflake ids minted at their creation time ({@link SnowflakeIdGenerator#lowestIdAt} plus a
 * counter), as the server mints them, because the purge bounds its range by the id; their statuses are reached by the
 * store's own transitions with the clock at the finishing time, so {@code updated_at_ms} is what a server writes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRetentionStoreContractTest {

    static final Instant NOW = Instant.parse("2030-06-01T00:00:00Z");
    static final Instant CUTOFF = NOW.minus(Duration.ofDays(7));
    static final int LIMIT = 100;

    private final MutableClock clock = new MutableClock(NOW);
    private final AtomicLong jobIds = new AtomicLong(1_000);
    /** Distinct ids within one millisecond: the node and sequence bits of a minted id. */
    private final AtomicLong idSuffix = new AtomicLong();
    private JdbcStores stores;
    private JobStore jobs;
    private InstanceStore instances;

    protected abstract String createDatabase() throws Exception;

    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(createDatabase()).poolName("tickwheel-retention-test")
                .maxPoolSize(4).clock(clock).build());
        jobs = stores.jobs();
        instances = stores.instances();
        ShardHolder.joinAndHoldAll(stores);
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

    // ---------------------------------------------------------------- what goes, what stays

    @Test
    void purgeFinished_everyFinishedStatusOlderThanTheCutoff_deletedAndNothingElse() {
        Job job = insertJob(null);
        Instant old = CUTOFF.minus(Duration.ofDays(2));
        List<Long> gone = List.of(
                instance(job, old, InstanceStatus.SUCCEEDED, old.plusSeconds(1)),
                instance(job, old, InstanceStatus.FAILED, old.plusSeconds(1)),
                instance(job, old, InstanceStatus.CANCELLED, old.plusSeconds(1)),
                instance(job, old, InstanceStatus.INTERRUPTED, CUTOFF.minusMillis(1)));
        List<Long> kept = List.of(
                // Finished after the cutoff (a long retry chain, a late one-shot): its history is young.
                instance(job, old, InstanceStatus.SUCCEEDED, CUTOFF),
                instance(job, CUTOFF.plusSeconds(60), InstanceStatus.FAILED, CUTOFF.plusSeconds(61)),
                // Not finished: never deleted, however old.
                instance(job, CUTOFF.minus(Duration.ofDays(300)), InstanceStatus.WAITING, null),
                instance(job, CUTOFF.minus(Duration.ofDays(300)), InstanceStatus.DISPATCHING,
                        CUTOFF.minus(Duration.ofDays(300))));

        PurgeBatch batch = instances.purgeFinished(PurgeScope.allJobsExcept(Set.of(), null), CUTOFF, -1, LIMIT);

        assertEquals(4, batch.deleted());
        assertTrue(batch.exhausted());
        assertEquals(new TreeSet<>(kept), storedIds());
        assertTrue(gone.stream().noneMatch(id -> instances.get(id).isPresent()));
    }

    @Test
    void purgeFinished_idMintedAfterTheCutoff_neitherExaminedNorDeleted() {
        Job job = insertJob(null);
        // A row updated before the cutoff whose id says it was created after it (a node whose clock ran ahead): the
        // id bound keeps the purge off every row created after the cutoff, so the batch does not even see it.
        long id = lowestIdAt(CUTOFF.plusSeconds(60));
        insertAt(job, id, CUTOFF.minus(Duration.ofDays(1)));
        clock.set(CUTOFF.minus(Duration.ofDays(1)));
        assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(id)).get(0).outcome());

        PurgeBatch batch = instances.purgeFinished(PurgeScope.allJobsExcept(Set.of(), null), CUTOFF, -1, LIMIT);

        assertEquals(new PurgeBatch(0, -1, true), batch);
        assertTrue(instances.get(id).isPresent());
    }

    // ---------------------------------------------------------------- batches

    @Test
    void purgeFinished_limit_examinesAtMostLimitRowsAndContinuesFromTheCursor() {
        Job job = insertJob(null);
        Instant old = CUTOFF.minus(Duration.ofDays(1));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(instance(job, old.plusMillis(i), InstanceStatus.SUCCEEDED, old.plusSeconds(1)));
        }
        // A waiting row in the second window: examined (it takes a place in the window) but kept.
        long waiting = instance(job, old.plusMillis(2).plusNanos(500_000), InstanceStatus.WAITING, null);
        PurgeScope all = PurgeScope.allJobsExcept(Set.of(), null);

        PurgeBatch first = instances.purgeFinished(all, CUTOFF, -1, 2);
        PurgeBatch second = instances.purgeFinished(all, CUTOFF, first.lastId(), 2);
        PurgeBatch third = instances.purgeFinished(all, CUTOFF, second.lastId(), 2);
        PurgeBatch fourth = instances.purgeFinished(all, CUTOFF, third.lastId(), 2);

        assertEquals(new PurgeBatch(2, ids.get(1), false), first);
        assertEquals(new PurgeBatch(1, waiting, false), second, "ids[2] and the waiting row");
        assertEquals(new PurgeBatch(2, ids.get(4), false), third);
        assertEquals(new PurgeBatch(0, ids.get(4), true), fourth);
        assertEquals(Set.of(waiting), storedIds());
    }

    // ---------------------------------------------------------------- scopes

    @Test
    void purgeFinished_perJobRetention_longerAndShorterThanTheDefault() {
        Job byDefault = insertJob(null);
        Job longer = insertJob(30);
        Job shorter = insertJob(1);
        Map<Job, List<Long>> byAge = new java.util.HashMap<>();
        for (Job job : List.of(byDefault, longer, shorter)) {
            List<Long> ids = new ArrayList<>();
            for (int days : new int[] {3, 10, 40}) {
                Instant at = NOW.minus(Duration.ofDays(days));
                ids.add(instance(job, at, InstanceStatus.SUCCEEDED, at.plusSeconds(1)));
            }
            byAge.put(job, ids);
        }
        Map<Long, Integer> overrides = jobs.findRetentionOverrides();
        assertEquals(Map.of(longer.id(), 30, shorter.id(), 1), overrides);

        int defaultPass = instances.purgeFinished(PurgeScope.allJobsExcept(overrides.keySet(), null),
                NOW.minus(Duration.ofDays(7)), -1, LIMIT).deleted();
        int longerPass = instances.purgeFinished(PurgeScope.ofJob(longer.id()), NOW.minus(Duration.ofDays(30)), -1,
                LIMIT).deleted();
        int shorterPass = instances.purgeFinished(PurgeScope.ofJob(shorter.id()), NOW.minus(Duration.ofDays(1)), -1,
                LIMIT).deleted();

        assertEquals(2, defaultPass, "the default job's 10- and 40-day-old instances; none of the other jobs'");
        assertEquals(1, longerPass, "the 30-day job's 40-day-old instance");
        assertEquals(3, shorterPass, "the 1-day job's every instance");
        assertEquals(Set.of(byAge.get(byDefault).get(0), byAge.get(longer).get(0), byAge.get(longer).get(1)),
                storedIds());
    }

    @Test
    void purgeFinished_jobPass_walksOnlyThatJobsInstances() {
        Job mine = insertJob(1);
        Job other = insertJob(null);
        Instant old = NOW.minus(Duration.ofDays(2));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            instance(other, old.plusMillis(i), InstanceStatus.SUCCEEDED, old.plusSeconds(1));
            ids.add(instance(mine, old.plusMillis(i).plusNanos(500_000), InstanceStatus.SUCCEEDED, old.plusSeconds(1)));
        }

        PurgeBatch first = instances.purgeFinished(PurgeScope.ofJob(mine.id()), NOW.minus(Duration.ofDays(1)), -1, 2);
        PurgeBatch second = instances.purgeFinished(PurgeScope.ofJob(mine.id()), NOW.minus(Duration.ofDays(1)),
                first.lastId(), 2);

        assertEquals(new PurgeBatch(2, ids.get(1), false), first, "its window holds two of its own rows");
        assertEquals(new PurgeBatch(1, ids.get(2), true), second);
        assertEquals(3, storedIds().size(), "the other job's three");
    }

    @Test
    void purgeFinished_deletedJobWithItsOwnRetention_itsInstancesFollowTheDefault() {
        Job kept30Days = insertJob(30);
        Instant tenDaysAgo = NOW.minus(Duration.ofDays(10));
        long finished = instance(kept30Days, tenDaysAgo, InstanceStatus.SUCCEEDED, tenDaysAgo.plusSeconds(1));
        assertTrue(jobs.delete(kept30Days.id()).deleted());

        Map<Long, Integer> overrides = jobs.findRetentionOverrides();
        PurgeBatch batch = instances.purgeFinished(PurgeScope.allJobsExcept(overrides.keySet(), null),
                NOW.minus(Duration.ofDays(7)), -1, LIMIT);

        assertEquals(Map.of(), overrides, "a deleted job has no retention of its own");
        assertEquals(1, batch.deleted());
        assertFalse(instances.get(finished).isPresent());
    }

    @Test
    void purgeFinished_shardFilter_deletesOnlyTheHeldShardsRows() {
        Job held = insertJob(null);
        Job notHeld = insertJob(null);
        while (shardOf(notHeld) == shardOf(held)) {
            notHeld = insertJob(null);
        }
        Instant old = CUTOFF.minus(Duration.ofDays(1));
        long heldRow = instance(held, old, InstanceStatus.SUCCEEDED, old.plusSeconds(1));
        long otherRow = instance(notHeld, old, InstanceStatus.SUCCEEDED, old.plusSeconds(1));

        PurgeBatch batch = instances.purgeFinished(PurgeScope.allJobsExcept(Set.of(), Set.of(shardOf(held))),
                CUTOFF, -1, LIMIT);

        assertEquals(1, batch.deleted());
        assertFalse(instances.get(heldRow).isPresent());
        assertTrue(instances.get(otherRow).isPresent(), "the other shard's owner purges it");
    }

    @Test
    void findRetentionOverrides_onlyJobsThatSetDays() {
        insertJob(null);
        Job days = insertJob(90);

        assertEquals(Map.of(days.id(), 90), jobs.findRetentionOverrides());
    }

    // ---------------------------------------------------------------- fixtures

    /**
     * A job whose instances stay on its shard (a {@code maxConcurrent} no test reaches), so that "the shard of a
     * job's rows" is one shard; spread instances are the same rows in other shards, filtered the same way.
     */
    private static final DeliveryPolicy ONE_OWNER = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0,
                DeliveryPolicy.MAX_CONCURRENT, DeliveryPolicy.OverLimit.WAIT);

    private Job insertJob(Integer retentionDays) {
        clock.set(NOW);
        return jobs.insert(new NewJob(jobIds.incrementAndGet(), "job", ScheduleSpec.api(), Target.handler("noop"), null,
                true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, ONE_OWNER,
                new JobOperations(retentionDays, null, null), null));
    }

    private int shardOf(Job job) {
        return Shards.of(job.id(), stores.cluster().shardCount());
    }

    /** An id minted at {@code createdAt}. */
    private long lowestIdAt(Instant createdAt) {
        return SnowflakeIdGenerator.lowestIdAt(createdAt) + idSuffix.incrementAndGet();
    }

    /**
     * An instance of {@code job} created at {@code createdAt} and moved to {@code status} at {@code finishedAt} (ignored
     * for WAITING) by the store's transitions.
     */
    private long instance(Job job, Instant createdAt, InstanceStatus status, Instant finishedAt) {
        long id = lowestIdAt(createdAt);
        insertAt(job, id, createdAt);
        clock.set(finishedAt == null ? createdAt : finishedAt);
        switch (status) {
            case WAITING -> { }
            case DISPATCHING -> assertTrue(claim(id));
            case SUCCEEDED -> assertTrue(claim(id) && instances.markAllSucceeded(List.of(id)).contains(id));
            case FAILED -> assertTrue(claim(id) && instances.markFailed(id, "boom"));
            case CANCELLED -> assertEquals(CancelOutcome.CANCELLED, instances.cancelAll(List.of(id)).get(0).outcome());
            case INTERRUPTED -> assertTrue(claim(id) && instances.markInterrupted(id, "cut"));
        }
        Instance stored = instances.get(id).orElseThrow();
        assertEquals(status, stored.status());
        return id;
    }

    private void insertAt(Job job, long id, Instant createdAt) {
        clock.set(createdAt);
        instances.insertRuns(List.of(new NewInstance(id, job.id(), createdAt, null))).get(0).instance();
    }

    private boolean claim(long id) {
        return !instances.claimBatch(List.of(id), clock.instant()).isEmpty();
    }

    private Set<Long> storedIds() {
        Set<Long> ids = new TreeSet<>();
        instances.listLatest(InstanceFilter.ALL, Long.MAX_VALUE, 10_000).items()
                .forEach(instance -> ids.add(instance.id()));
        return ids;
    }
}
