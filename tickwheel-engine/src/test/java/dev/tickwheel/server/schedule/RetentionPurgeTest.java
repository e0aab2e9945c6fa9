package dev.tickwheel.server.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.google.common.base.Ticker;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.cluster.WholeClusterMember;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.metrics.RetentionMetrics;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The retention purge over a real H2 store with a settable wall clock: what goes when, per-job retention both ways,
 * deleted jobs, the batch budget and its cursor, the shard filter, failures, and the meters.
 */
class RetentionPurgeTest {

    private static final Instant T0 = Instant.parse("2030-06-01T12:00:00Z");
    private static final RetentionPurge.Settings DEFAULTS = RetentionPurge.Settings.DEFAULTS;

    private final SettableClock clock = new SettableClock(T0);
    /** Each read is 3 ms after the one before: every run takes exactly 3 ms. */
    private final Ticker ticker = new Ticker() {
        private final AtomicLong nanos = new AtomicLong();

        @Override
        public long read() {
            return nanos.addAndGet(3_000_000);
        }
    };
    private final AtomicLong jobIds = new AtomicLong(100);
    /** The node and sequence part of the ids {@link #idAt} mints, distinct for every id. */
    private final AtomicLong idSuffix = new AtomicLong();
    private JdbcStores stores;
    private JobStore jobs;
    private InstanceStore instances;
    private ShardOwnership everyShard;

    @BeforeEach
    void open() {
        stores = JdbcStores.open(dev.tickwheel.server.store.jdbc.JdbcStoreConfig.builder()
                .jdbcUrl("jdbc:h2:mem:tw_purge_" + UUID.randomUUID().toString().replace("-", "")).clock(clock)
                .build());
        jobs = stores.jobs();
        instances = stores.instances();
        everyShard = WholeClusterMember.join(stores.cluster());
    }

    @AfterEach
    void close() {
        stores.close();
    }

    @Test
    void run_beforeTheRetentionHasPassed_deletesNothing_afterItHas_deletesAndCounts() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RetentionPurge purge = purge(DEFAULTS, everyShard);
        RetentionMetrics.bind(registry, purge, RetentionPurge::stats);
        long id = succeededAt(insertJob(null), T0);

        clock.set(T0.plus(Duration.ofDays(7)));
        assertEquals(0, purge.run(), "finished exactly 7 days ago: kept (the cutoff is exclusive)");
        assertTrue(instances.get(id).isPresent());

        clock.set(T0.plus(Duration.ofDays(7)).plusMillis(1));
        assertEquals(1, purge.run());
        assertFalse(instances.get(id).isPresent());

        assertEquals(new RetentionStats(1, 2, 0, 0, 6_000_000), purge.stats());
        // Micrometer holds a function meter's state weakly: a meter bound over a throwaway lambda reads nothing after
        // a collection (it did: the server's purged count stayed 0 while a million rows went).
        System.gc();
        assertEquals(1.0, registry.get("tickwheel.instances.purged").functionCounter().count());
        assertEquals(2.0, registry.get("tickwheel.retention.runs").tag("outcome", "caught_up").functionCounter()
                .count());
        assertEquals(0.0, registry.get("tickwheel.retention.runs").tag("outcome", "failed").functionCounter()
                .count());
        FunctionTimer duration = registry.get("tickwheel.retention.duration").functionTimer();
        assertEquals(2.0, duration.count());
        assertEquals(6.0, duration.totalTime(TimeUnit.MILLISECONDS));
    }

    @Test
    void run_perJobRetention_longerAndShorterThanTheDefault_andDeletedJobsFollowTheDefault() {
        Job byDefault = insertJob(null);
        Job longer = insertJob(30);
        Job shorter = insertJob(1);
        Job deleted = insertJob(30);
        Map<Long, List<Long>> byJob = new java.util.HashMap<>();
        for (int daysAgo : new int[] {40, 10, 3}) {
            for (Job job : List.of(byDefault, longer, shorter, deleted)) {
                byJob.computeIfAbsent(job.id(), k -> new ArrayList<>())
                        .add(succeededAt(job, T0.minus(Duration.ofDays(daysAgo))));
            }
        }
        assertTrue(jobs.delete(deleted.id()).deleted());
        clock.set(T0);

        long deletedNow = purge(DEFAULTS, everyShard).run();

        // Kept: what is younger than its retention; the deleted job's 30 days no longer count.
        Set<Long> expected = new TreeSet<>(List.of(byJob.get(byDefault.id()).get(2), byJob.get(longer.id()).get(1),
                byJob.get(longer.id()).get(2), byJob.get(deleted.id()).get(2)));
        assertEquals(expected, storedIds());
        assertEquals(12 - expected.size(), deletedNow);
    }

    @Test
    void run_budgetSpent_nextRunGoesOnFromTheCursor() {
        Job job = insertJob(null);
        Instant old = T0.minus(Duration.ofDays(30));
        List<Long> waiting = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clock.set(old.plusMillis(i));
            waiting.add(instances.insertRuns(List.of(new NewInstance(idAt(old.plusMillis(i)), job.id(), old, null)))
                    .get(0).instance().id());
        }
        long finished1 = succeededAt(job, old.plusSeconds(1));
        long finished2 = succeededAt(job, old.plusSeconds(2));
        clock.set(T0);
        // Two batches of two a run: the first run only gets through the four waiting rows, which stay.
        RetentionPurge purge = purge(new RetentionPurge.Settings(7, 2, Duration.ofMinutes(1), 2), everyShard);

        assertEquals(0, purge.run());
        assertEquals(2, purge.run(), "went on after the waiting rows rather than from the start");

        assertEquals(new TreeSet<>(waiting), storedIds());
        assertFalse(instances.get(finished1).isPresent() || instances.get(finished2).isPresent());
        RetentionStats stats = purge.stats();
        assertEquals(1, stats.budgetSpentRuns());
        assertEquals(1, stats.caughtUpRuns(), "the second run reached the end of the range");
    }

    @Test
    void run_budgetSpentInOnePass_theNextRunStartsThereAndTheOtherPassesGetTheirTurn() {
        Job byDefault = insertJob(null);
        Job shorter = insertJob(1);
        Instant old = T0.minus(Duration.ofDays(30));
        for (int i = 0; i < 4; i++) {
            succeededAt(byDefault, old.plusSeconds(i));
        }
        long shortRow = succeededAt(shorter, old.plusSeconds(10));
        clock.set(T0);
        // One batch of two a run: the default pass alone needs three runs (2, 2, then the short window that ends it).
        RetentionPurge purge = purge(new RetentionPurge.Settings(7, 2, Duration.ofMinutes(1), 1), everyShard);

        List<Long> perRun = new ArrayList<>();
        for (int run = 0; run < 4; run++) {
            perRun.add(purge.run());
        }

        assertEquals(List.of(2L, 2L, 0L, 1L), perRun, "the fourth run starts with the job's pass the third reached");
        assertFalse(instances.get(shortRow).isPresent());
        assertEquals(Set.of(), storedIds());
    }

    @Test
    void run_memberHoldingSomeShards_purgesOnlyTheirRowsAndJobPassesOfTheirJobs() {
        Job mine = insertJob(null);
        Job theirs = insertJob(null);
        while (shardOf(theirs) == shardOf(mine)) {
            theirs = insertJob(null);
        }
        Job theirsShort = insertJob(1);
        while (shardOf(theirsShort) == shardOf(mine)) {
            theirsShort = insertJob(1);
        }
        Instant old = T0.minus(Duration.ofDays(10));
        long mineRow = succeededAt(mine, old);
        long theirRow = succeededAt(theirs, old.plusSeconds(1));
        long theirShortRow = succeededAt(theirsShort, old.plusSeconds(2));
        clock.set(T0);
        ShardOwnership oneShard = mock(ShardOwnership.class);
        when(oneShard.heldShards()).thenReturn(Set.of(shardOf(mine)));
        when(oneShard.shardCount()).thenReturn(stores.cluster().shardCount());
        when(oneShard.shardOf(anyLong())).thenAnswer(call -> Shards.of(call.getArgument(0),
                stores.cluster().shardCount()));

        assertEquals(1, purge(DEFAULTS, oneShard).run());

        assertFalse(instances.get(mineRow).isPresent());
        assertTrue(instances.get(theirRow).isPresent());
        assertTrue(instances.get(theirShortRow).isPresent(), "its job's pass is its shard owner's");
    }

    /**
     * A job that spreads its instances and sets its own retention: its pass belongs to the owner of the job's shard
     * and deletes its rows in every shard; the default pass of the members holding those shards leaves them alone
     * (the job's retention, not the default, applies to them).
     */
    @Test
    void run_jobPassOfASpreadJob_isItsShardOwners_deletesItsRowsInEveryShard() {
        Job spread = insertJob(1, DeliveryPolicy.DEFAULT);
        Instant old = T0.minus(Duration.ofDays(3));
        List<Long> rows = new ArrayList<>();
        Set<Integer> rowShards = new TreeSet<>();
        for (int i = 0; i < 20; i++) {
            long id = succeededAt(spread, old.plusSeconds(i));
            rows.add(id);
            rowShards.add(instances.get(id).orElseThrow().shard());
        }
        assertTrue(rowShards.size() > 10, "the rows are spread: " + rowShards);
        clock.set(T0);
        ShardOwnership jobOwner = holding(Set.of(shardOf(spread)));
        Set<Integer> others = new TreeSet<>(rowShards);
        others.remove(shardOf(spread));
        ShardOwnership rowOwners = holding(others);

        purge(DEFAULTS, rowOwners).run();
        assertEquals(rows.size(), rows.stream().filter(id -> instances.get(id).isPresent()).count(),
                "not the default pass's: the job keeps its rows 1 day, they are 3 days old, yet the default is 7");
        assertEquals(rows.size(), purge(DEFAULTS, jobOwner).run());

        assertEquals(0, rows.stream().filter(id -> instances.get(id).isPresent()).count());
    }

    private ShardOwnership holding(Set<Integer> shards) {
        ShardOwnership ownership = mock(ShardOwnership.class);
        when(ownership.heldShards()).thenReturn(shards);
        when(ownership.shardCount()).thenReturn(stores.cluster().shardCount());
        when(ownership.shardOf(anyLong())).thenAnswer(call -> Shards.of(call.getArgument(0),
                stores.cluster().shardCount()));
        return ownership;
    }

    @Test
    void run_everyShardHeld_asksForNoShardFilter_noShardHeld_touchesNothing() {
        InstanceStore store = mock(InstanceStore.class);
        JobStore jobStore = mock(JobStore.class);
        when(jobStore.findRetentionOverrides()).thenReturn(Map.of());
        when(store.purgeFinished(any(), any(), anyLong(), anyInt())).thenReturn(new PurgeBatch(0, -1, true));
        ArgumentCaptor<PurgeScope> scope = ArgumentCaptor.forClass(PurgeScope.class);

        new RetentionPurge(store, jobStore, everyShard, DEFAULTS, clock, ticker).run();

        verify(store).purgeFinished(scope.capture(), any(), anyLong(), anyInt());
        assertNull(scope.getValue().shards());
        ShardOwnership none = mock(ShardOwnership.class);
        when(none.heldShards()).thenReturn(Set.of());
        InstanceStore untouched = mock(InstanceStore.class);
        new RetentionPurge(untouched, jobStore, none, DEFAULTS, clock, ticker).run();
        verify(untouched, never()).purgeFinished(any(), any(), anyLong(), anyInt());
    }

    @Test
    void run_storeFails_countedNotThrown_andTheNextRunWorks() {
        InstanceStore store = mock(InstanceStore.class);
        JobStore jobStore = mock(JobStore.class);
        when(jobStore.findRetentionOverrides()).thenReturn(Map.of());
        when(store.purgeFinished(any(), any(), anyLong(), anyInt()))
                .thenReturn(new PurgeBatch(3, 10, false))
                .thenThrow(new StoreException("database unreachable", null))
                .thenReturn(new PurgeBatch(2, 20, true));
        RetentionPurge purge = new RetentionPurge(store, jobStore, everyShard, DEFAULTS, clock, ticker);

        assertEquals(3, purge.run(), "what was deleted before the failure stays deleted");
        assertEquals(2, purge.run());

        assertEquals(new RetentionStats(5, 1, 0, 1, 12_000_000), purge.stats());
        // The failed batch's and the next run's: the run after a failure goes on from the cursor.
        verify(store, org.mockito.Mockito.times(2)).purgeFinished(any(), any(), org.mockito.ArgumentMatchers.eq(10L),
                anyInt());
    }

    // ---------------------------------------------------------------- fixtures

    private RetentionPurge purge(RetentionPurge.Settings settings, ShardOwnership ownership) {
        return new RetentionPurge(instances, jobs, ownership, settings, clock, ticker);
    }

    /** A job whose instances stay on its shard (a {@code maxConcurrent} no test reaches). */
    private Job insertJob(Integer retentionDays) {
        return insertJob(retentionDays, new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0,
                DeliveryPolicy.MAX_CONCURRENT, DeliveryPolicy.OverLimit.WAIT));
    }

    private Job insertJob(Integer retentionDays, DeliveryPolicy delivery) {
        return jobs.insert(new NewJob(jobIds.incrementAndGet(), "job", ScheduleSpec.api(), Target.handler("noop"),
                null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, delivery,
                new JobOperations(retentionDays, null, null), null));
    }

    private int shardOf(Job job) {
        return Shards.of(job.id(), stores.cluster().shardCount());
    }

    /** An id minted at {@code at}, as a server would mint it then. */
    private long idAt(Instant at) {
        return SnowflakeIdGenerator.lowestIdAt(at) + idSuffix.incrementAndGet();
    }

    /** An instance of {@code job} created and succeeded at {@code at}. */
    private long succeededAt(Job job, Instant at) {
        clock.set(at);
        long id = instances.insertRuns(List.of(new NewInstance(idAt(at), job.id(), at, null))).get(0).instance().id();
        assertEquals(1, instances.claimBatch(List.of(id), at).size());
        assertEquals(Set.of(id), instances.markAllSucceeded(List.of(id)));
        assertEquals(InstanceStatus.SUCCEEDED, instances.get(id).orElseThrow().status());
        return id;
    }

    private Set<Long> storedIds() {
        Set<Long> stored = new TreeSet<>();
        instances.listLatest(InstanceFilter.ALL, Long.MAX_VALUE, 10_000).items()
                .forEach(instance -> stored.add(instance.id()));
        return stored;
    }
}
