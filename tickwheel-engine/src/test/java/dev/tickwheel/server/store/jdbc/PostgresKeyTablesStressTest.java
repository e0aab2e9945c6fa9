package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The unique keys of instances where they live on the partitioned PostgreSQL history ({@link PartitionedHistory}: the
 * slot in {@code tw_instance_slot}, the caller's key in {@code tw_run_key}) under concurrency: many transactions
 * inserting one slot or one key at once, each with an instance of its own, leave exactly one instance, named by the
 * key's row. The slot races go straight through {@link InsertIfAbsent}, without the job row lock every store path takes
 * first, so that nothing but the key table decides; the key races go through the store's {@code insertRuns}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresKeyTablesStressTest {

    private static final int THREADS = 16;
    /** Where the instances go does not matter to the keys: one shard for all. */
    private static final java.util.function.ToIntFunction<NewInstance> ONE_SHARD = instance -> 0;
    private static final int ROUNDS = 40;

    private final AtomicLong jobIds = new AtomicLong(1_000);
    private final AtomicLong idSuffix = new AtomicLong();
    private PostgresTestDatabase database;
    private JdbcStores stores;
    private TransactionRunner runner;

    @BeforeAll
    void open() {
        database = PostgresTestDatabase.createSchema();
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl()).poolName("tickwheel-keys")
                .maxPoolSize(THREADS).build());
        runner = new TransactionRunner(stores.dataSource(), java.time.Duration.ZERO);
    }

    @AfterAll
    void close() throws SQLException {
        if (stores != null) {
            stores.close();
        }
        database.dropSchema();
    }

    @Test
    void sameSlotFromManyTransactions_oneInstanceAndTheSlotNamesIt() throws Exception {
        Job job = insertJob(ScheduleSpec.fixedRate(1_000, Instant.now()));
        InsertIfAbsent slots = new InsertIfAbsent(new PostgresDialect(), InstanceSql.SLOT_KEY, true, 1_000);
        Instant base = Instant.now();
        for (int round = 0; round < ROUNDS; round++) {
            Instant slot = base.plusSeconds(round);
            Map<Integer, Set<Long>> inserted = new ConcurrentHashMap<>();
            race(thread -> {
                NewInstance mine = new NewInstance(newId(), job.id(), slot, null);
                inserted.put(thread, runner.inTransaction("insert a slot", c -> slots.insert(c, List.of(mine),
                        slot.toEpochMilli(), ONE_SHARD)));
            });
            List<Long> winners = inserted.values().stream().flatMap(Set::stream).toList();
            assertEquals(1, winners.size(), "round " + round + ": one transaction inserted");
            assertEquals(List.of(winners.get(0)), ids("SELECT id FROM tw_instance WHERE job_id = ?"
                    + " AND scheduled_trigger_time_ms = ?", job.id(), slot.toEpochMilli()), "round " + round);
            assertEquals(List.of(winners.get(0)), ids("SELECT instance_id FROM tw_instance_slot WHERE job_id = ?"
                    + " AND scheduled_trigger_time_ms = ?", job.id(), slot.toEpochMilli()), "round " + round);
        }
    }

    @Test
    void samePageOfSlotsFromManyTransactions_eachSlotOneInstance() throws Exception {
        Job job = insertJob(ScheduleSpec.fixedRate(1_000, Instant.now()));
        InsertIfAbsent slots = new InsertIfAbsent(new PostgresDialect(), InstanceSql.SLOT_KEY, true, 1_000);
        Instant base = Instant.now().plusSeconds(3_600);
        int perPage = 500;
        Set<Long> allInserted = ConcurrentHashMap.newKeySet();
        race(thread -> {
            // In slot order, as the loader writes a page: overlapping pages then wait for each other, never deadlock.
            List<NewInstance> page = IntStream.range(0, perPage)
                    .mapToObj(i -> new NewInstance(newId(), job.id(), base.plusMillis(i), null)).toList();
            allInserted.addAll(runner.inTransaction("insert a page", c -> slots.insert(c, page, base.toEpochMilli(),
                    ONE_SHARD)));
        });
        assertEquals(perPage, allInserted.size(), "one instance inserted per slot, by whichever page came first");
        assertEquals((long) perPage, (long) ids("SELECT id FROM tw_instance WHERE job_id = ?", job.id(), null)
                .size());
        assertEquals(new HashSet<>(ids("SELECT id FROM tw_instance WHERE job_id = ?", job.id(), null)),
                new HashSet<>(ids("SELECT instance_id FROM tw_instance_slot WHERE job_id = ?", job.id(), null)));
    }

    @Test
    void sameRunKeyFromManyCallers_oneCreatedTheOthersGetIt() throws Exception {
        Job job = insertJob(ScheduleSpec.api());
        for (int round = 0; round < ROUNDS; round++) {
            String key = "order-" + round;
            Map<Integer, RunWrite> answers = new ConcurrentHashMap<>();
            race(thread -> answers.put(thread, stores.instances().insertRuns(List.of(new NewInstance(newId(),
                    job.id(), Instant.now(), null, key, null, null, null))).get(0)));
            long created = answers.values().stream().filter(RunWrite::created).count();
            Set<Long> named = new HashSet<>();
            answers.values().forEach(w -> named.add(w.instance().id()));
            assertEquals(1, created, "round " + round);
            assertEquals(1, named.size(), "round " + round + ": every caller answered with the same instance");
            assertEquals(new ArrayList<>(named), ids("SELECT id FROM tw_instance WHERE job_id = ? AND run_key = ?",
                    job.id(), key));
            assertEquals(new ArrayList<>(named), ids("SELECT instance_id FROM tw_run_key WHERE job_id = ?"
                    + " AND run_key = ?", job.id(), key));
        }
    }

    // ---------------------------------------------------------------- fixtures

    private interface ThreadTask {
        void run(int thread) throws Exception;
    }

    /** Runs {@code task} on {@value #THREADS} threads released together; rethrows the first failure. */
    private static void race(ThreadTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Job insertJob(ScheduleSpec schedule) {
        return stores.jobs().insert(new NewJob(jobIds.incrementAndGet(), "keys", schedule, Target.handler("noop"), null,
                true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT,
                null));
    }

    private long newId() {
        return SnowflakeIdGenerator.lowestIdAt(Instant.now()) + idSuffix.incrementAndGet();
    }

    /** The ids a query over (job id, then a slot time or a key, if not null) returns. */
    private List<Long> ids(String query, long jobId, Object second) throws SQLException {
        try (Connection c = stores.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(query)) {
            ps.setLong(1, jobId);
            if (second != null) {
                ps.setObject(2, second);
            }
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        }
    }
}
