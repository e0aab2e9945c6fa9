package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
import dev.tickwheel.server.store.PoolStore.Deletion;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The behaviour every {@link PoolStore} must show, run once per database by a subclass: the lifecycle of a pool, a
 * name created by many callers at once, and deletion while a job names the pool. Each test starts from empty
 * {@code tw_job} and {@code tw_pool} tables.
 *
 * <p>Jobs have no pool field yet: a test names a pool in a job with {@code UPDATE tw_job SET pool_name = ?}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractPoolStoreContractTest {

    static final Instant CREATED = Instant.parse("2030-01-01T00:00:00.123Z");

    private final AtomicLong ids = new AtomicLong(1_000);
    protected JdbcStores stores;
    protected PoolStore pools;

    /** Creates an empty database for this test class and returns its JDBC URL. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl(createDatabase())
                .poolName("tickwheel-pool-store-test")
                .maxPoolSize(10)
                .build());
        pools = stores.pools();
    }

    @AfterAll
    void closeStores() throws Exception {
        if (stores != null) {
            stores.close();
        }
        dropDatabase();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM tw_job");
            statement.executeUpdate("DELETE FROM tw_pool");
        }
    }

    static InstancePool pool(String name, int maxConcurrent, InstancePool.Rate rate) {
        return new InstancePool(name, maxConcurrent, rate, CREATED);
    }

    /** A job (of no pool) in the store; returns its id. */
    long insertJob() {
        NewJob job = new NewJob(ids.incrementAndGet(), "job", ScheduleSpec.api(), Target.handler("noop"), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null);
        return stores.jobs().insert(job).id();
    }

    /** Makes job {@code jobId} name pool {@code pool} (null: none) on {@code connection}, committed or not. */
    static void namePool(Connection connection, long jobId, String pool) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE tw_job SET pool_name = ? WHERE id = ?")) {
            ps.setString(1, pool);
            ps.setLong(2, jobId);
            assertEquals(1, ps.executeUpdate(), "job " + jobId);
        }
    }

    void namePool(long jobId, String pool) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection()) {
            namePool(connection, jobId, pool);
        }
    }

    @Test
    void insert_thenGetAndList_returnEveryFieldAsStored_byName() {
        InstancePool rated = pool("b-rated", 0, new InstancePool.Rate(50, 1_000));
        InstancePool both = pool("a-both", 4, new InstancePool.Rate(1, 86_400_000L));
        InstancePool bounded = pool("c-bounded", InstancePool.MAX_CONCURRENT, null);

        assertTrue(pools.insert(rated));
        assertTrue(pools.insert(both));
        assertTrue(pools.insert(bounded));

        assertEquals(Optional.of(rated), pools.get("b-rated"));
        assertEquals(Optional.of(bounded), pools.get("c-bounded"), "no rate reads back as none");
        assertEquals(List.of(both, rated, bounded), pools.list());
        assertEquals(Optional.empty(), pools.get("none"));
    }

    @Test
    void insert_nameTaken_returnsFalse_andKeepsTheStoredPool() {
        InstancePool first = pool("shared", 2, null);
        assertTrue(pools.insert(first));

        assertFalse(pools.insert(pool("shared", 9, new InstancePool.Rate(3, 10))));

        assertEquals(List.of(first), pools.list());
    }

    @Test
    void replace_setsTheLimits_keepsTheCreationTime_unknownNameReturnsFalse() {
        assertTrue(pools.insert(pool("elastic", 2, null)));

        InstancePool.Rate rate = new InstancePool.Rate(10, 60_000);
        assertTrue(pools.replace(new InstancePool("elastic", 0, rate, CREATED.plusSeconds(60))));
        assertEquals(Optional.of(pool("elastic", 0, rate)), pools.get("elastic"),
                "the limits replaced, the creation time kept");
        assertTrue(pools.replace(pool("elastic", 7, null)));
        assertEquals(Optional.of(pool("elastic", 7, null)), pools.get("elastic"), "the rate removed");

        assertFalse(pools.replace(pool("none", 1, null)));
        assertEquals(Optional.empty(), pools.get("none"), "a replace creates nothing");
    }

    @Test
    void delete_unknown_notFound_unused_deleted() {
        assertTrue(pools.insert(pool("gone", 1, null)));

        assertEquals(Deletion.NOT_FOUND, pools.delete("none"));
        assertEquals(Deletion.DELETED, pools.delete("gone"));
        assertEquals(Deletion.NOT_FOUND, pools.delete("gone"));
        assertEquals(List.of(), pools.list());
    }

    @Test
    void delete_whileAJobNamesThePool_inUse_andDeletedOnceNoJobDoes() throws SQLException {
        assertTrue(pools.insert(pool("busy", 1, null)));
        long job = insertJob();
        namePool(job, "busy");

        assertEquals(Deletion.IN_USE, pools.delete("busy"));
        assertTrue(pools.get("busy").isPresent(), "nothing deleted");

        namePool(job, null);
        assertEquals(Deletion.DELETED, pools.delete("busy"));
    }

    /**
     * The longest qualified name (schema 20 widened the columns): a 64-character namespace, '/', a 100-character local
     * name; stored, read back, named by a job through the foreign key, and kept in use.
     */
    @Test
    void longestQualifiedName_isStored_andAJobNamesIt() throws SQLException {
        String name = "n".repeat(dev.tickwheel.server.access.Namespaces.MAX_LENGTH) + "/"
                + "p".repeat(InstancePool.MAX_NAME_LENGTH);
        InstancePool pool = pool(name, 3, null);
        assertTrue(pools.insert(pool));
        long job = insertJob();
        namePool(job, name);

        assertEquals(Optional.of(pool), pools.get(name));
        assertEquals(Deletion.IN_USE, pools.delete(name));
        assertEquals(name.substring(name.indexOf('/') + 1), pools.get(name).orElseThrow().localName());
        assertEquals(DeliveryPolicy.DEFAULT.withPool(name), stores.jobs().get(job).orElseThrow().delivery(),
                "the job reads back with it");
    }

    // Eight threads insert each of 20 names at once: the read-then-insert races, and the losers must get false (the
    // primary key refuses the second insert), never a store failure.
    @Test
    void insert_sameNameByManyCallersAtOnce_storesOnce_andTheOthersGetFalse() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 20; round++) {
                String name = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(8);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int maxConcurrent = t + 1;
                    results.add(callers.submit(() -> {
                        start.await();
                        return pools.insert(pool(name, maxConcurrent, null));
                    }));
                }
                int stored = 0;
                for (Future<Boolean> result : results) {
                    stored += result.get() ? 1 : 0;
                }
                assertEquals(1, stored, name);
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(20, pools.list().size());
    }
}
