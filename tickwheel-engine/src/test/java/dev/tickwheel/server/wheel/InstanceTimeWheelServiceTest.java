package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.Await;
import dev.tickwheel.timer.ManualClock;
import dev.tickwheel.timer.TimerFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link InstanceTimeWheelService} on a {@link ManualClock} with default wheel sizes. Dispatches run on the precise
 * wheel's worker through a direct executor, so the clock's "settled" state includes them.
 */
class InstanceTimeWheelServiceTest {

    private static final long MS = 1_000_000;

    private final ManualClock clock = new ManualClock(-7_000_000_000L);
    private final long origin = clock.read();
    private final List<String> fired = new CopyOnWriteArrayList<>();
    private InstanceTimeWheelService service;

    private InstanceTimeWheelService.Builder builder() {
        return InstanceTimeWheelService.builder().ticker(clock).dispatchExecutor(Runnable::run);
    }

    private Runnable record(String name) {
        return () -> fired.add(name + "@" + (clock.read() - origin) / MS);
    }

    @AfterEach
    void close() {
        if (service != null) {
            service.close();
        }
    }

    @Test
    void schedule_250ms_firesAtDeadlineOnPreciseWheel() {
        service = builder().build();
        service.schedule(42, 250, record("42"));
        clock.advance(Duration.ofMillis(249));
        assertEquals(List.of(), fired);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("42@250"), fired);
        assertEquals(0, service.coarseWheelStats().scheduled());
        assertEquals(0, service.pendingCount());
    }

    @Test
    void schedule_3h_handsOffAtDeadlineMinusThresholdAndFiresOnTime() {
        service = builder().build();
        service.schedule(43, Duration.ofHours(3).toMillis(), record("43"));
        TimerFuture handle = service.fetchTimerFuture(43).orElseThrow();
        assertEquals(1, service.coarseWheelStats().scheduled());
        clock.advance(Duration.ofHours(3).minusSeconds(60).minusNanos(1));
        assertEquals(0, service.preciseWheelStats().scheduled(), "still on the coarse wheel");
        clock.advanceNanos(1);
        assertEquals(1, service.preciseWheelStats().scheduled(), "handed over at deadline - 60 s");
        assertSame(handle, service.fetchTimerFuture(43).orElseThrow(), "one handle across the hand-off");
        assertEquals(origin + Duration.ofHours(3).toNanos(), handle.deadlineNanos(), "deadline kept");
        clock.advance(Duration.ofSeconds(60).minusNanos(1));
        assertEquals(List.of(), fired);
        clock.advanceNanos(1);
        assertEquals(List.of("43@" + Duration.ofHours(3).toMillis()), fired);
    }

    @Test
    void schedule_exactlyThreshold_goesToPreciseWheel_andOneMsMoreToCoarse() {
        service = builder().build();
        service.schedule(1, 60_000, record("a"));
        service.schedule(2, 60_001, record("b"));
        assertEquals(1, service.preciseWheelStats().scheduled());
        assertEquals(1, service.coarseWheelStats().scheduled());
        clock.advance(Duration.ofMillis(60_000));
        assertEquals(List.of("a@60000"), fired);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("a@60000", "b@60001"), fired);
    }

    @Test
    void cancel_anHourLater_returnsTrueNeverRunsLeavesCargoAtOnce_theCoarseWheelDropsItAtItsBucket() {
        service = builder().build();
        service.schedule(43, Duration.ofHours(3).toMillis(), record("43"));
        service.schedule(44, Duration.ofHours(2).toMillis(), record("44"));
        clock.advance(Duration.ofHours(1));
        assertTrue(service.cancel(43));
        assertFalse(service.cancel(43), "second cancel");
        assertEquals(1, service.pendingCount(), "CARGO let go of 43 at once");
        assertTrue(service.fetchTimerFuture(43).isEmpty());
        clock.awaitSettled();
        assertEquals(2, service.coarseWheelStats().pending(), "the cancel did not wake the coarse worker");
        clock.advance(Duration.ofHours(1).minusSeconds(60)); // 44's hand-off: a coarse pass, one cancel is no sweep
        assertEquals(0, service.coarseWheelStats().cancelled());
        assertEquals(1, service.coarseWheelStats().pending(), "43, cancelled, still linked");
        clock.advance(Duration.ofSeconds(60)); // 44 runs
        clock.advance(Duration.ofHours(1).minusSeconds(60)); // 43's bucket (3 h - 60 s): dropped, not handed over
        assertEquals(1, service.coarseWheelStats().cancelled(), "coarse wheel dropped 43 at its bucket");
        assertEquals(0, service.coarseWheelStats().pending());
        assertEquals(1, service.preciseWheelStats().scheduled(), "only 44 was handed over");
        clock.advance(Duration.ofHours(3));
        assertEquals(List.of("44@" + Duration.ofHours(2).toMillis()), fired, "43 never ran");
    }

    @Test
    void cancel_afterHandOffBeforeDeadline_returnsTrue() {
        service = builder().build();
        service.schedule(7, 90_000, record("7"));
        clock.advance(Duration.ofSeconds(45));
        assertEquals(1, service.preciseWheelStats().scheduled());
        assertTrue(service.cancel(7));
        clock.advance(Duration.ofSeconds(60));
        assertEquals(List.of(), fired);
        assertEquals(0, service.preciseWheelStats().pending());
    }

    @Test
    void cancel_unknownOrStarted_returnsFalse() {
        service = builder().build();
        assertFalse(service.cancel(99));
        service.schedule(5, 10, record("5"));
        clock.advance(Duration.ofMillis(10));
        assertFalse(service.cancel(5));
        assertEquals(List.of("5@10"), fired);
    }

    @Test
    void schedule_nonPositiveDelay_runsOnDispatchExecutorNotCaller() {
        List<Runnable> queued = new ArrayList<>();
        AtomicReference<Thread> submitter = new AtomicReference<>();
        service = builder().dispatchExecutor(task -> {
            submitter.set(Thread.currentThread());
            queued.add(task);
        }).build();
        service.schedule(1, 0, record("zero"));
        service.schedule(2, -500, record("negative"));
        assertEquals(List.of(), fired, "never on the caller's thread");
        clock.awaitSettled();
        assertEquals(2, queued.size());
        assertNotEquals(Thread.currentThread(), submitter.get());
        queued.forEach(Runnable::run);
        assertEquals(List.of("zero@0", "negative@0"), fired);
    }

    @Test
    void cancel_whileExecutorFullAndDeferred_returnsTrue() {
        AtomicBoolean full = new AtomicBoolean(true);
        Executor executor = task -> {
            if (full.get()) {
                throw new RejectedExecutionException("full");
            }
            task.run();
        };
        service = builder().dispatchExecutor(executor).build();
        service.schedule(1, 5, record("1"));
        service.schedule(2, 5, record("2"));
        clock.advance(Duration.ofMillis(5));
        assertTrue(service.preciseWheelStats().deferred() >= 1);
        assertTrue(service.cancel(1), "a deferred instance has not started: cancel must win");
        full.set(false);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("2@6"), fired);
    }

    @Test
    void schedule_duplicatePendingId_throwsNamingId_butIdIsReusableAfterRun() {
        service = builder().build();
        service.schedule(42, 100, record("first"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> service.schedule(42, 200, record("second")));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
        clock.advance(Duration.ofMillis(100));
        service.schedule(42, 50, record("again"));
        clock.advance(Duration.ofMillis(50));
        assertEquals(List.of("first@100", "again@150"), fired);
    }

    @Test
    void schedule_delayThatWouldOverflow_throwsNamingValue() {
        service = builder().build();
        long tooLarge = InstanceTimeWheelService.MAX_DELAY_MS + 1;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> service.schedule(1, tooLarge, record("x")));
        assertTrue(e.getMessage().contains(String.valueOf(tooLarge)), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> service.schedule(1, Long.MAX_VALUE, record("x")));
        assertEquals(0, service.pendingCount(), "nothing half-written");
        service.schedule(1, InstanceTimeWheelService.MAX_DELAY_MS, record("max"));
        assertEquals(1, service.pendingCount());
    }

    @Test
    void schedule_nullTask_throwsNpe() {
        service = builder().build();
        assertThrows(NullPointerException.class, () -> service.schedule(1, 10, null));
    }

    @Test
    void close_isIdempotent_cancelsPending_andRejectsLaterSchedules() {
        service = builder().build();
        service.schedule(1, 10, record("1"));
        service.schedule(2, 100_000, record("2"));
        TimerFuture near = service.fetchTimerFuture(1).orElseThrow();
        TimerFuture far = service.fetchTimerFuture(2).orElseThrow();
        clock.awaitSettled();
        service.close();
        service.close();
        assertTrue(near.isCancelled());
        assertTrue(far.isCancelled());
        assertEquals(0, service.pendingCount());
        assertThrows(RejectedExecutionException.class, () -> service.schedule(3, 10, record("3")));
    }

    @Test
    void task_thatThrows_doesNotStopLaterDispatches() {
        service = builder().build();
        service.schedule(1, 1, () -> {
            throw new IllegalStateException("boom");
        });
        service.schedule(2, 2, record("2"));
        clock.advance(Duration.ofMillis(2));
        assertEquals(List.of("2@2"), fired);
        assertEquals(1, service.preciseWheelStats().failed());
    }

    @Test
    void builder_invalidSettings_throwNamingSettingAndValue() {
        InstanceTimeWheelService.Builder b = InstanceTimeWheelService.builder();
        assertEquals("preciseSlots must be positive: 0",
                assertThrows(IllegalArgumentException.class, () -> b.preciseSlots(0)).getMessage());
        assertEquals("dispatchThreads must be positive: -1",
                assertThrows(IllegalArgumentException.class, () -> b.dispatchThreads(-1)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.coarseTick(Duration.ZERO))
                .getMessage().startsWith("coarseTick"));
        assertThrows(IllegalArgumentException.class,
                () -> InstanceTimeWheelService.builder().preciseTick(Duration.ofSeconds(2))
                        .longDelayThreshold(Duration.ofSeconds(1)).build());
        assertEquals("dispatchLead must not be negative: PT-0.001S",
                assertThrows(IllegalArgumentException.class, () -> b.dispatchLead(Duration.ofMillis(-1))).getMessage());
        assertEquals("dispatchLead (PT1M) must be shorter than longDelayThreshold (PT1M)",
                assertThrows(IllegalArgumentException.class,
                        () -> InstanceTimeWheelService.builder().dispatchLead(Duration.ofMinutes(1)).build())
                        .getMessage());
    }

    /**
     * On the system ticker, with a lead longer than the delays, every instance waits in the service's own executor;
     * close() drops those dispatches instead of waiting out their 20 s, cancels the instances, and none runs.
     */
    @Test
    void close_withInstancesWaitingOutTheLead_cancelsThemWithoutWaiting() {
        service = InstanceTimeWheelService.builder().dispatchLead(Duration.ofSeconds(30)).build();
        AtomicInteger ran = new AtomicInteger();
        for (long id = 1; id <= 100; id++) {
            service.schedule(id, 20_000, ran::incrementAndGet);
        }
        InstanceTimeWheelService waiting = service;
        Await.until(() -> waiting.dispatchQueueDepth() + " of 100 in the executor",
                Duration.ofSeconds(10), () -> waiting.dispatchQueueDepth() == 100);
        long start = System.nanoTime();
        service.close();
        long closeMillis = (System.nanoTime() - start) / MS;
        assertTrue(closeMillis < 5_000, "close waited " + closeMillis + " ms");
        assertEquals(0, service.pendingCount());
        for (long id = 1; id <= 100; id++) {
            assertFalse(service.cancel(id), "cancelled by close: " + id);
        }
        assertEquals(0, ran.get(), "the executor is terminated, so none can run later");
    }

    /**
     * The service's own executor holds instances handed over early on the system's nano clock; with another ticker the
     * wait would not be on the ticker's time, so the lead is not used: nothing is handed over before its deadline.
     */
    @Test
    void ownExecutor_manualClock_handsOverAtTheDeadlineNotTheLeadBefore() {
        service = InstanceTimeWheelService.builder().ticker(clock).dispatchLead(Duration.ofMillis(3)).build();
        AtomicBoolean ran = new AtomicBoolean();
        service.schedule(7, 5, () -> ran.set(true));
        clock.advance(Duration.ofMillis(4));
        assertEquals(0, service.preciseWheelStats().expired(), "handed over 1 ms before the deadline");
        assertFalse(ran.get());
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, service.preciseWheelStats().expired());
        Await.until(() -> "the task ran", Duration.ofSeconds(10), ran::get);
    }
}
