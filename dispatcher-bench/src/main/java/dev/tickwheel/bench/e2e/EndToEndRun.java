package dev.tickwheel.bench.e2e;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One end-to-end run on a fresh store: {@code instances} ONE_SHOT jobs due within the next {@code leadMs}, created
 * as instances by the server's own loader, fired by the wheel, claimed, handed to a {@link CountingHandler} and
 * recorded SUCCEEDED; then the store rows are read back and measured.
 *
 * <h2>Fixture</h2>
 * The job definitions are setup, not measured ({@link OneShotJobs}): their triggers spread evenly over
 * {@code [start + leadMs − spreadMs, start + leadMs)}, and the server starts at once. Its first
 * loader pass (at start) sees every job within its 30 s window and creates the 100 000 instances; that is the
 * "created" stage, measured from the rows' {@code created_at}.
 *
 * <p>With {@code pools} N &gt; 0, N pools ({@code e2e-pool-0} ...) are stored first, each with
 * {@value #POOL_MAX_CONCURRENT} calls in flight and no rate, limits that never bind (the server's own limits are far
 * lower); then job {@code i} of the run names pool {@code i mod N}, its due time unchanged. So the run takes the
 * same path plus the pool level (the pool read, the pool's slot), and every instance of a pool lives on that pool's
 * shard. The pools are written to the store as {@code PoolService.create} writes them, because the jobs are written
 * before the server starts.
 *
 * <p>Not thread-safe: confined to the benchmark's main thread.
 */
public final class EndToEndRun {

    private static final String HANDLER = "count";
    /** A pool's limit in a run with pools: the most a pool allows, far above the server's calls in flight. */
    public static final int POOL_MAX_CONCURRENT = InstancePool.MAX_CONCURRENT;

    private final int instances;
    private final long leadMs;
    private final long spreadMs;
    private final Duration timeout;
    private final int handlerThreads;
    private final int pools;

    /** A run with the server's default handler pool. */
    public EndToEndRun(int instances, long leadMs, long spreadMs, Duration timeout) {
        this(instances, leadMs, spreadMs, timeout, TickwheelServer.DEFAULT_HANDLER_THREADS);
    }

    /** @param handlerThreads the server's handler pool: the most handler calls in flight at once */
    public EndToEndRun(int instances, long leadMs, long spreadMs, Duration timeout, int handlerThreads) {
        this(instances, leadMs, spreadMs, timeout, handlerThreads, 0);
    }

    /**
     * @param handlerThreads the server's handler pool: the most handler calls in flight at once
     * @param pools          pools the jobs are spread over, 0..instances; 0 for jobs without a pool
     */
    public EndToEndRun(int instances, long leadMs, long spreadMs, Duration timeout, int handlerThreads, int pools) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be positive: " + instances);
        }
        if (pools < 0 || pools > instances) {
            throw new IllegalArgumentException("pools must be in 0..instances (" + instances + "): " + pools);
        }
        if (spreadMs < 0 || spreadMs > leadMs) {
            throw new IllegalArgumentException("spreadMs must be in 0..leadMs (" + leadMs + "): " + spreadMs);
        }
        this.instances = instances;
        this.leadMs = leadMs;
        this.spreadMs = spreadMs;
        this.timeout = timeout;
        this.handlerThreads = handlerThreads;
        this.pools = pools;
    }

    public RunResult run(BenchDatabase database) {
        Clock clock = Clock.systemUTC();
        try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
            for (int k = 0; k < pools; k++) {
                if (!stores.pools().insert(new InstancePool(poolName(k), POOL_MAX_CONCURRENT, null,
                        Instant.ofEpochMilli(clock.millis())))) {
                    throw new IllegalStateException("pool " + poolName(k) + " exists in a fresh store");
                }
            }
            OneShotJobs.insert(stores, groups(instances, pools, leadMs - spreadMs, spreadMs), clock);
        }
        database.checkpoint(); // the ceiling does the same before it creates its dispatch phase's instances
        CountingHandler handler = new CountingHandler();
        long serverStartMs = clock.millis();
        TickwheelServer server = TickwheelServer.builder()
                .jdbcUrl(database.jdbcUrl())
                .handler(HANDLER, handler)
                .handlerThreads(handlerThreads)
                .build()
                .start();
        try {
            awaitAllSucceeded(server, handler);
            // Give a duplicate dispatch, were there one, a moment to show up in the handler's count.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        } finally {
            server.close();
        }
        try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
            return measure(StoreRows.readAll(stores.instances()), instances, serverStartMs, handler.duplicates());
        }
    }

    /**
     * The run's jobs: one group without a pool if {@code pools} is 0; else one group per pool, pool {@code k}'s
     * {@code instances / pools} jobs (one more for the first {@code instances % pools}), every group due evenly over
     * the same window, so that the jobs of all pools interleave as the one group's would.
     */
    public static List<OneShotJobs.Group> groups(int instances, int pools, long firstDueMs, long spreadMs) {
        Target target = Target.handler(HANDLER);
        if (pools == 0) {
            return List.of(new OneShotJobs.Group("e2e-", instances, target, DeliveryPolicy.DEFAULT, firstDueMs,
                    spreadMs));
        }
        List<OneShotJobs.Group> groups = new ArrayList<>(pools);
        for (int k = 0; k < pools; k++) {
            int count = instances / pools + (k < instances % pools ? 1 : 0);
            DeliveryPolicy delivery = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0,
                    DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, poolName(k), Completion.IMMEDIATE);
            groups.add(new OneShotJobs.Group("e2e-p" + k + "-", count, target, delivery, firstDueMs, spreadMs));
        }
        return groups;
    }

    /** The name of a run's pool {@code k}. */
    public static String poolName(int k) {
        return "e2e-pool-" + k;
    }

    private void awaitAllSucceeded(TickwheelServer server, CountingHandler handler) {
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        long lastReportNanos = System.nanoTime();
        while (true) {
            if (handler.calls() >= instances
                    && server.instances().countByStatus().get(InstanceStatus.SUCCEEDED) >= instances) {
                return;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException("not every instance succeeded within " + timeout + ": handler calls "
                        + handler.calls() + ", store " + server.instances().countByStatus());
            }
            if (System.nanoTime() - lastReportNanos > TimeUnit.SECONDS.toNanos(5)) {
                System.err.println("  ... handler calls " + handler.calls() + " of " + instances);
                lastReportNanos = System.nanoTime();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /**
     * What a run's store rows say: rates, lateness and the instances that did not succeed in one attempt.
     *
     * @param expected      instances the run created; missing rows count as not succeeded
     * @param serverStartMs when the server was started (epoch ms)
     * @param duplicates    calls beyond the first for any instance, as the target counted them
     */
    public static RunResult measure(List<Instance> rows, int expected, long serverStartMs, long duplicates) {
        long[] latenessMs = new long[rows.size()];
        long lastCreatedMs = Long.MIN_VALUE;
        long firstFiredMs = Long.MAX_VALUE;
        long lastRecordedMs = Long.MIN_VALUE;
        long notSucceeded = Math.max(0, expected - rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Instance row = rows.get(i);
            if (row.status() != InstanceStatus.SUCCEEDED || row.attempt() != 1 || row.actualTriggerTime() == null) {
                notSucceeded++;
                continue;
            }
            long actualMs = row.actualTriggerTime().toEpochMilli();
            latenessMs[i] = actualMs - row.expectedTriggerTime().toEpochMilli(); // one attempt: its due time
            lastCreatedMs = Math.max(lastCreatedMs, row.createdAt().toEpochMilli());
            firstFiredMs = Math.min(firstFiredMs, actualMs);
            lastRecordedMs = Math.max(lastRecordedMs, row.updatedAt().toEpochMilli());
        }
        Percentiles lateness = new Percentiles(latenessMs);
        long n = rows.size();
        return new RunResult(n, perSec(n, lastCreatedMs - serverStartMs), perSec(n, lastRecordedMs - firstFiredMs),
                perSec(n, lastRecordedMs - serverStartMs), lateness.at(50), lateness.at(99), lateness.at(99.9),
                lateness.max(), duplicates, notSucceeded);
    }

    private static double perSec(long count, long elapsedMs) {
        return count * 1000.0 / Math.max(1, elapsedMs);
    }
}
