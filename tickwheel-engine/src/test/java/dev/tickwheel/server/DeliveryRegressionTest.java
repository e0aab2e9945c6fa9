package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.cluster.WholeClusterMember;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.StoreInUseException;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import dev.tickwheel.timer.TimerFuture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression tests for the defects issue 10 lists (items 5 to 11), each on a real H2 file store with a wall clock the
 * test sets. A "crash" in-process is a close whose calls do not end within its stop timeout: their rows stay
 * DISPATCHING, exactly as after {@code kill -9} (the process-level tests kill real processes).
 */
class DeliveryRegressionTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Instant T0 = Instant.parse("2031-05-01T10:00:00Z");

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock(T0);
    private final List<String> keys = new CopyOnWriteArrayList<>();
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final List<TickwheelServer> servers = new CopyOnWriteArrayList<>();

    private String url() {
        return "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath();
    }

    private TickwheelServer server(Consumer<TickwheelServer.Builder> adjust) {
        TickwheelServer.Builder builder = TickwheelServer.builder()
                .jdbcUrl(url())
                .clock(clock)
                .stopTimeout(Duration.ofMillis(200))
                .handler("record", ctx -> {
                    keys.add(ctx.idempotencyKey());
                    if (failuresLeft.getAndDecrement() > 0) {
                        throw new IllegalStateException("planned failure");
                    }
                })
                .handler("block", ctx -> {
                    keys.add(ctx.idempotencyKey());
                    blocked.await(30, TimeUnit.SECONDS);
                });
        adjust.accept(builder);
        TickwheelServer server = builder.build().start();
        servers.add(server);
        return server;
    }

    private TickwheelServer server() {
        return server(b -> { });
    }

    @AfterEach
    void closeAll() {
        blocked.countDown();
        servers.forEach(TickwheelServer::close);
    }

    private static Instance await(TickwheelServer server, long id, InstanceStatus status) {
        Await.until(() -> "instance " + id + " " + status + ", is " + server.instances().history(id)
                .map(InstanceHistory::instance), WAIT,
                () -> server.instances().history(id).map(InstanceHistory::instance).orElseThrow().status() == status);
        return server.instances().history(id).map(InstanceHistory::instance).orElseThrow();
    }

    // ---- item 6: one downtime, one fire under FIRE_ONCE_NOW

    @Test
    void fireOnceNow_downtimeOverWaitingAndUnloadedTriggers_firesOnceForTheWholeDowntime() {
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("every 10 s", ScheduleSpec.cron("*/10 * * * * ?", "UTC"),
                Target.handler("record")));
        long loaded = first.instances().list(job.id(), InstanceStatus.WAITING, null, null, null, 100).items().size();
        assertTrue(loaded >= 3, "the loader created the next 30 s of instances: " + loaded);
        first.close();

        clock.set(T0.plus(Duration.ofMinutes(10)).plusSeconds(7)); // 10:10:07; threshold 5 s, so 10:10:00 is missed
        TickwheelServer second = server();

        Instant missedBefore = clock.instant().minus(TickwheelServer.DEFAULT_MISFIRE_THRESHOLD);
        // Triggers after T0 up to the threshold were missed by the downtime (T0 itself fired before the stop).
        List<Instance> missed = second.instances().list(job.id(), null, null, null, null, 1_000).items().stream()
                .filter(i -> i.scheduledTriggerTime().isAfter(T0) && i.scheduledTriggerTime().isBefore(missedBefore))
                .toList();
        List<Instance> fired = missed.stream().filter(i -> i.status() != InstanceStatus.CANCELLED).toList();
        assertEquals(1, fired.size(), "one fire for the downtime: " + fired);
        assertEquals(Instant.parse("2031-05-01T10:10:00Z"), fired.get(0).scheduledTriggerTime(), "the latest");
        assertTrue(missed.size() >= loaded - 1, "the waiting ones from before the stop are among the missed");
        missed.stream().filter(i -> i.status() == InstanceStatus.CANCELLED)
                .forEach(i -> assertTrue(i.error().startsWith("misfire"), i.toString()));
        await(second, fired.get(0).id(), InstanceStatus.SUCCEEDED);
        assertEquals(1, keys.stream().filter(k -> k.startsWith(fired.get(0).id() + "-")).count());
        assertTrue(missed.stream().filter(i -> i != fired.get(0))
                .noneMatch(i -> keys.stream().anyMatch(k -> k.startsWith(i.id() + "-"))), "no other missed fired");
    }

    // ---- item 8 and "a crash never consumes an attempt"

    @Test
    void restart_retryWaitingForItsBackoff_isArmedForItsTimeNotNow() {
        failuresLeft.set(1);
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("retries", ScheduleSpec.api(), Target.handler("record"))
                .withRetry(new RetryPolicy(3, 60_000)));
        long id = first.jobs().run(job.id(), 0, null).id();
        Await.until("attempt 1 failed and waits for its retry", WAIT, () -> {
            Instance now = first.instances().history(id).map(InstanceHistory::instance).orElseThrow();
            return now.status() == InstanceStatus.WAITING && now.attempt() == 1;
        });
        Instance waiting = first.instances().history(id).map(InstanceHistory::instance).orElseThrow();
        assertEquals(T0.plusSeconds(60), first.instances().history(id)
                .map(InstanceHistory::instance).orElseThrow().expectedTriggerTime());
        first.close();

        TickwheelServer second = server();

        Instance after = second.instances().history(id).map(InstanceHistory::instance).orElseThrow();
        assertEquals(InstanceStatus.WAITING, after.status());
        assertEquals(1, after.attempt());
        TimerFuture timer = second.wheel().fetchTimerFuture(id).orElseThrow();
        long remainingMs = TimeUnit.NANOSECONDS.toMillis(timer.deadlineNanos() - System.nanoTime());
        assertTrue(remainingMs > 50_000, "armed once, for its backoff, not now: " + remainingMs + " ms left");
        assertEquals(List.of(id + "-1"), keys, "no attempt was made during recovery: " + waiting);
    }

    @Test
    void restart_callCutByTheStop_isMadeAgainAsTheSameAttemptWithTheSameKey() {
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("cut", ScheduleSpec.api(), Target.handler("block")));
        long id = first.jobs().run(job.id(), 0, null).id();
        await(first, id, InstanceStatus.DISPATCHING);
        Await.until("the call started", WAIT, () -> keys.size() == 1);
        first.close(); // the call does not end within the stop timeout: the row stays DISPATCHING
        try (JdbcStores stores = JdbcStores.open(url())) {
            assertEquals(InstanceStatus.DISPATCHING, stores.instances().get(id).orElseThrow().status());
        }
        blocked.countDown();

        TickwheelServer second = server();

        Instance done = await(second, id, InstanceStatus.SUCCEEDED);
        assertEquals(1, done.attempt(), "a crash consumes no attempt");
        assertEquals(List.of(id + "-1", id + "-1"), keys, "delivered again, with the same key");
    }

    @Test
    void restart_atMostOnceCallCutByTheStop_endsInterrupted_andIsNotRepeated() {
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("at most once", ScheduleSpec.api(), Target.handler("block"))
                .withDelivery(new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_MOST_ONCE, 0, 0,
                        DeliveryPolicy.OverLimit.WAIT)));
        long id = first.jobs().run(job.id(), 0, null).id();
        Await.until("the call started", WAIT, () -> keys.size() == 1);
        first.close();
        blocked.countDown();

        TickwheelServer second = server();

        Instance interrupted = second.instances().history(id).map(InstanceHistory::instance).orElseThrow();
        assertEquals(InstanceStatus.INTERRUPTED, interrupted.status());
        assertTrue(interrupted.error().contains("AT_MOST_ONCE: not repeated"), interrupted.error());
        assertEquals(1, keys.size(), "not delivered again");
    }

    @Test
    void restart_atMostOnceClaimWhoseCallNeverStarted_isDispatched() {
        long id;
        long jobId;
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("at most once", ScheduleSpec.api(), Target.handler("record"))
                .withDelivery(new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_MOST_ONCE, 0, 0,
                        DeliveryPolicy.OverLimit.WAIT)));
        jobId = job.id();
        first.close();
        // A claim the crash caught before the call was marked started: claimed in the store, never called.
        try (JdbcStores stores = JdbcStores.open(url())) {
            WholeClusterMember.join(stores.cluster()); // the crashed server held the shards when it claimed
            id = stores.instances().insertRuns(List.of(new NewInstance(777_001L, jobId, T0, null)))
                    .get(0).instance().id();
            assertEquals(1, stores.instances().claimBatch(List.of(id), T0).size());
        }

        TickwheelServer second = server();

        Instance done = await(second, id, InstanceStatus.SUCCEEDED);
        assertEquals(1, done.attempt());
        assertEquals(List.of(id + "-1"), keys);
    }

    // ---- item 7: a fixed-delay job keeps one chain

    @Test
    void fixedDelay_disabledAndEnabledWhileAnInstanceRuns_keepsOneChain() {
        // Real time here: each instance of the chain is due 300 ms after the previous one completed.
        TickwheelServer server = server(b -> b.clock(java.time.Clock.systemUTC()));
        Job job = server.jobs().create(JobSpec.of("fixed delay", ScheduleSpec.fixedDelay(300),
                Target.handler("block")));
        Await.until("the first instance runs", WAIT, () -> keys.size() == 1);

        server.jobs().setEnabled(job.id(), false);
        server.jobs().setEnabled(job.id(), true); // a new chain starts 300 ms from now
        Await.until("the new chain's instance runs too", WAIT, () -> keys.size() == 2);
        blocked.countDown(); // both end now: only one chain may go on

        for (int generation = 3; generation <= 5; generation++) {
            int next = generation;
            Await.until("instance " + generation + " of the chain", WAIT, () -> keys.size() >= next);
            long live = server.instances().list(job.id(), null, null, null, null, 1_000).items().stream()
                    .filter(i -> i.status() == InstanceStatus.WAITING || i.status() == InstanceStatus.DISPATCHING)
                    .count();
            assertTrue(live <= 1, "one chain: " + live + " live instances at generation " + generation);
        }
    }

    // ---- item 10: a run beyond the maximum writes nothing; a row the wheel cannot hold does not stop a start

    @Test
    void run_delayAboveTheMaximum_isRefusedAndWritesNothing() {
        TickwheelServer server = server();
        Job job = server.jobs().create(JobSpec.of("api", ScheduleSpec.api(), Target.handler("record")));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> server.jobs().run(job.id(), JobService.MAX_RUN_DELAY_MS + 1, null));

        assertTrue(e.getMessage().contains("delayMs"), e.getMessage());
        assertTrue(server.instances().list(job.id(), null, null, null, null, 10).items().isEmpty());
    }

    @Test
    void start_withAWaitingRowBeyondWhatTheWheelHolds_startsAndKeepsTheRow() {
        TickwheelServer first = server();
        Job job = first.jobs().create(JobSpec.of("api", ScheduleSpec.api(), Target.handler("record")));
        first.close();
        try (JdbcStores stores = JdbcStores.open(url())) {
            stores.instances().insertRuns(List.of(new NewInstance(888_001L, job.id(),
                    Instant.parse("2250-01-01T00:00:00Z"), null))).get(0).instance();
        }

        TickwheelServer second = server();

        assertEquals(InstanceStatus.WAITING, second.instances().history(888_001L)
                .map(InstanceHistory::instance).orElseThrow().status());
        assertTrue(second.wheelsRunning());
    }

    // ---- item 11: one server per store

    @Test
    void secondServerOnTheSameStore_refusesToStartWithOneClearMessage() {
        TickwheelServer first = server();

        StoreInUseException e = assertThrows(StoreInUseException.class, this::server);

        assertTrue(e.getMessage().contains("another Tickwheel server is running on this store"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(first.wheelsRunning(), "the first server is unaffected");
        first.close();
        server().close(); // the lock went with the first server
    }
}
