package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.timer.ManualClock;
import dev.tickwheel.timer.TimerFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviours that Netty's {@code HashedWheelTimerTest} and Kafka's {@code TimerTest} and {@code TimerTaskListTest}
 * check, exercised on the two tiers of {@link InstanceTimeWheelService}: where the peers move a task from an overflow
 * wheel to a finer one, Tickwheel hands an instance from the coarse wheel to the precise one at its deadline minus the
 * long-delay threshold, and cancels by instance ID wherever the instance is. Each test names the peer case it mirrors.
 *
 * <p>Default wheel sizes (1 ms x 4096, 10 s x 12, hand-off 60 s before the deadline) on a {@link ManualClock}; unless a
 * test supplies its own executor, dispatches run on the precise wheel's worker through a direct executor, so the
 * clock's "settled" state includes them.
 */
class InstanceTimeWheelServiceConformanceTest {

    private static final long MS = 1_000_000;
    private static final long THRESHOLD_NANOS = InstanceTimeWheelService.DEFAULT_LONG_DELAY_THRESHOLD.toNanos();

    private ManualClock clock = new ManualClock(-7_000_000_000L);
    private long origin = clock.read();
    /** Instance ID to the clock readings, relative to {@code origin}, at which its task ran. */
    private final Map<Long, List<Long>> runsById = new ConcurrentHashMap<>();
    private InstanceTimeWheelService service;

    private InstanceTimeWheelService.Builder builder() {
        return InstanceTimeWheelService.builder().ticker(clock).dispatchExecutor(Runnable::run);
    }

    private void scheduleRecorded(long id, long delayMs) {
        service.schedule(id, delayMs, () -> runsById.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
                .add(clock.read() - origin));
    }

    private List<Long> runsOf(long id) {
        return runsById.getOrDefault(id, List.of());
    }

    /** Moves the clock to {@code origin + relNanos}. */
    private void advanceTo(long relNanos) {
        clock.advanceNanos(relNanos - (clock.read() - origin));
    }

    @AfterEach
    void close() {
        if (service != null) {
            service.close();
        }
    }

    // Mirrors Kafka TimerTest#testTaskExpiration (tasks of many delays, some sharing one, each run once) across the
    // tiers: delays around the threshold and the coarse ticks, stepped deadline by deadline, each run exactly at it.
    @Test
    void schedule_instancesOfManyDelaysAcrossBothTiers_eachRunsOnceExactlyAtItsDeadline() {
        service = builder().build();
        long[] delaysMs = {0, 1, 4, 59_999, 60_000, 60_000, 60_001, 60_001, 69_999, 70_000, 70_001, 119_999, 120_000,
            120_000, 3_600_000, 3_600_001};
        TreeMap<Long, List<Long>> idsByDeadline = new TreeMap<>();
        for (int id = 0; id < delaysMs.length; id++) {
            scheduleRecorded(id, delaysMs[id]);
            idsByDeadline.computeIfAbsent(delaysMs[id] * MS, k -> new ArrayList<>()).add((long) id);
        }
        int ran = 0;
        for (Map.Entry<Long, List<Long>> due : idsByDeadline.entrySet()) {
            long deadline = due.getKey();
            if (deadline > 0) {
                advanceTo(deadline - 1);
                for (long id : due.getValue()) {
                    assertEquals(List.of(), runsOf(id), "instance " + id + " early");
                }
                advanceTo(deadline);
            } else {
                clock.awaitSettled();
            }
            for (long id : due.getValue()) {
                assertEquals(List.of(deadline), runsOf(id), "instance " + id);
            }
            ran += due.getValue().size();
            assertEquals(ran, runsById.size(), "no other instance ran by " + deadline);
        }
        assertEquals(0, service.pendingCount());
    }

    // Mirrors Kafka TimingWheel#add and #advanceClock (a task moves down to a finer wheel when its overflow bucket
    // expires; here, at exactly deadline - threshold, whether or not that instant is on a coarse tick).
    @Test
    void handOff_happensExactlyAtDeadlineMinusThreshold_onAndOffCoarseTicks() {
        service = builder().build();
        long[] delaysMs = {60_001, 69_999, 70_000, 70_001, 130_000, 3_600_000};
        for (int id = 0; id < delaysMs.length; id++) {
            scheduleRecorded(id, delaysMs[id]);
        }
        assertEquals(delaysMs.length, service.coarseWheelStats().scheduled());
        for (int handedOver = 0; handedOver < delaysMs.length; handedOver++) {
            long handOffAt = delaysMs[handedOver] * MS - THRESHOLD_NANOS;
            advanceTo(handOffAt - 1);
            assertEquals(handedOver, service.preciseWheelStats().scheduled(), "before hand-off " + handedOver);
            advanceTo(handOffAt);
            assertEquals(handedOver + 1, service.preciseWheelStats().scheduled(), "at hand-off " + handedOver);
        }
        assertEquals(0, service.coarseWheelStats().pending());
    }

    // Mirrors Kafka TimerTest#testAlreadyExpiredTask and SystemTimer#addTimerTaskEntry (a task reinserted after its
    // expiration runs at once): the clock jumps past both the hand-off and the deadline of a far instance.
    @Test
    void schedule_farInstanceWhoseHandOffComesLate_runsOnceAtOnce() {
        service = builder().build();
        scheduleRecorded(1, Duration.ofHours(3).toMillis());
        advanceTo(Duration.ofHours(4).toNanos());
        assertEquals(List.of(Duration.ofHours(4).toNanos()), runsOf(1));
        assertEquals(1, service.preciseWheelStats().expired());
        assertEquals(0, service.coarseWheelStats().pending());
        assertEquals(0, service.preciseWheelStats().pending());
    }

    // Mirrors Netty HashedWheelTimerTest#testPendingTimeoutsShouldBeCountedCorrectlyWhenTimeoutCancelledWithinGoalTick,
    // cancelling by ID across the tiers: while the first of eleven instances due at 200 ms runs, it cancels the other
    // ten, one instance on the precise wheel due in 30 s and one on the coarse wheel due in 2 h.
    @Test
    void cancel_byIdWhileTheGoalTickRuns_acrossBothTiers_runsNothingCancelled() {
        service = builder().build();
        AtomicInteger cancelWins = new AtomicInteger();
        service.schedule(0, 200, () -> {
            for (long id = 1; id <= 12; id++) {
                cancelWins.addAndGet(service.cancel(id) ? 1 : 0);
            }
        });
        for (long id = 1; id <= 10; id++) {
            scheduleRecorded(id, 200);
        }
        scheduleRecorded(11, 30_200);
        scheduleRecorded(12, Duration.ofHours(2).toMillis());
        advanceTo(200 * MS);
        int othersRan = (int) runsById.keySet().stream().filter(id -> id <= 10).count();
        assertEquals(10, cancelWins.get() - 2 + othersRan, "each of the ten was either cancelled or run");
        assertEquals(0, service.pendingCount(), "CARGO released every cancelled instance at once");
        // The wheels drop their cancelled nodes when they reach their buckets (or in a sweep, once cancels are many).
        advanceTo(Duration.ofHours(3).toNanos());
        assertTrue(runsOf(11).isEmpty() && runsOf(12).isEmpty());
        assertEquals(0, service.preciseWheelStats().pending());
        assertEquals(0, service.coarseWheelStats().pending());
        assertEquals(1, service.coarseWheelStats().cancelled(), "the 2 h instance, dropped by the coarse wheel");
    }

    // Mirrors Netty HashedWheelTimerTest#reportPendingTimeouts, with the two far instances on the coarse wheel.
    @Test
    void pendingCount_dropsOnCancelByIdAndOnRun_acrossBothTiers() {
        service = builder().build();
        scheduleRecorded(1, Duration.ofMinutes(100).toMillis());
        scheduleRecorded(2, Duration.ofMinutes(100).toMillis());
        scheduleRecorded(3, 90);
        assertEquals(3, service.pendingCount());
        assertEquals(2, service.coarseWheelStats().pending());
        assertEquals(1, service.preciseWheelStats().pending());
        assertTrue(service.cancel(1));
        assertTrue(service.cancel(2));
        assertEquals(1, service.pendingCount());
        advanceTo(90 * MS);
        assertEquals(0, service.pendingCount());
        assertEquals(0, service.preciseWheelStats().pending());
        // The coarse wheel drops the cancelled nodes when it reaches their bucket (at 100 min - 60 s, when they would
        // have been handed over): two cancels are far from a sweep.
        advanceTo(Duration.ofMinutes(99).toNanos());
        assertEquals(0, service.coarseWheelStats().pending());
        assertEquals(2, service.coarseWheelStats().cancelled());
        assertEquals(0, service.heldCount(), "CARGO let go of them with the wheel");
    }

    /**
     * The memory of cancelled instances is released with their nodes: CARGO keeps a cancelled entry until the wheel
     * lets go of the node, so the entries it holds follow the wheels' bound (a sweep once cancels are half of what a
     * wheel holds) and reach zero when the buckets are reached. 3 × 4 096 + 5 instances an hour out (coarse wheel) and
     * as many 30 s out (precise wheel), all cancelled by ID.
     */
    @Test
    void heldCount_cancelledEntriesLeaveCargoWithTheirNodes_boundedBySweeps_zeroAtTheirBuckets() {
        service = builder().build();
        int each = 3 * SlabWheel.CANCELS_PER_WAKE + 5;
        for (int i = 0; i < each; i++) {
            scheduleRecorded(i, Duration.ofHours(1).toMillis() + i);
            scheduleRecorded(1_000_000 + i, 30_000 + i % 1_000);
        }
        advanceTo(MS); // both workers take what was handed over
        assertEquals(2 * each, service.heldCount());
        for (int i = 0; i < each; i++) {
            assertTrue(service.cancel(i));
            assertTrue(service.cancel(1_000_000 + i));
        }
        assertEquals(0, service.pendingCount());
        advanceTo(2 * MS); // a pass of each worker: the sweeps the cancels made due
        int held = service.heldCount();
        assertTrue(held < 2 * SlabWheel.CANCELS_PER_WAKE,
                "held after the sweeps: " + held + " of " + 2 * each);
        assertEquals(held, service.preciseWheelStats().pending() + service.coarseWheelStats().pending(),
                "CARGO holds exactly the cancelled nodes the wheels still hold");
        advanceTo(Duration.ofHours(2).toNanos());
        assertEquals(0, service.heldCount());
        assertEquals(List.of(), List.copyOf(runsById.keySet()), "none ran");
    }

    // Mirrors Netty HashedWheelTimerTest#testExecutionOnTime (100 000 timeouts with one delay, all on time), through
    // the hand-off: all are moved to the precise wheel in one coarse pass and run exactly at their deadline.
    @Test
    void schedule_100kInstancesWithOneFarDeadline_allHandedOffTogetherAndRunExactlyAtIt() {
        service = builder().build();
        int count = 100_000;
        long deadline = Duration.ofMinutes(2).toNanos();
        AtomicInteger onTime = new AtomicInteger();
        AtomicInteger offTime = new AtomicInteger();
        for (int id = 0; id < count; id++) {
            service.schedule(id, Duration.ofMinutes(2).toMillis(),
                    () -> (clock.read() - origin == deadline ? onTime : offTime).incrementAndGet());
        }
        advanceTo(deadline - THRESHOLD_NANOS);
        assertEquals(count, service.preciseWheelStats().scheduled());
        advanceTo(deadline - 1);
        assertEquals(0, onTime.get() + offTime.get(), "none early");
        advanceTo(deadline);
        assertEquals(count, onTime.get());
        assertEquals(0, offTime.get());
        assertEquals(0, service.pendingCount());
    }

    // Mirrors Netty HashedWheelTimerTest#testOverflow (the longest delay does not run early), to the end: the largest
    // accepted delay, on a clock whose reading wraps past Long.MAX_VALUE before the deadline, is handed over and run
    // exactly on time.
    @Test
    void schedule_largestDelay_handsOffAndRunsExactlyAtItsDeadline() {
        clock = new ManualClock(Long.MAX_VALUE - Duration.ofHours(1).toNanos());
        origin = clock.read();
        service = builder().build();
        long deadline = TimeUnit.MILLISECONDS.toNanos(InstanceTimeWheelService.MAX_DELAY_MS);
        scheduleRecorded(1, InstanceTimeWheelService.MAX_DELAY_MS);
        advanceTo(deadline - THRESHOLD_NANOS - 1);
        assertEquals(0, service.preciseWheelStats().scheduled());
        advanceTo(deadline - THRESHOLD_NANOS);
        assertEquals(1, service.preciseWheelStats().scheduled());
        advanceTo(deadline - 1);
        assertEquals(List.of(), runsOf(1));
        advanceTo(deadline);
        assertEquals(List.of(deadline), runsOf(1));
    }

    // Mirrors Netty HashedWheelTimerTest#testStopTimerCancelsPendingTasks: close() cancels every instance wherever it
    // is (coarse wheel, precise wheel, deferred after a rejection, queued in the caller's executor), and none of them
    // starts afterwards.
    @Test
    void close_cancelsInstancesInEveryPlace_andNoneStartsAfterwards() {
        List<Runnable> queued = new ArrayList<>();
        Executor oneSlot = task -> {
            if (!queued.isEmpty()) {
                throw new RejectedExecutionException("full");
            }
            queued.add(task);
        };
        service = builder().dispatchExecutor(oneSlot).build();
        scheduleRecorded(1, 5);                                // queued in the executor at 5 ms
        scheduleRecorded(2, 6);                                // rejected at 6 ms: deferred
        scheduleRecorded(3, 30_000);                           // precise wheel
        scheduleRecorded(4, Duration.ofHours(2).toMillis());   // coarse wheel
        List<TimerFuture> handles = new ArrayList<>();
        for (long id = 1; id <= 4; id++) {
            handles.add(service.fetchTimerFuture(id).orElseThrow());
        }
        advanceTo(6 * MS);
        assertEquals(1, queued.size());
        assertTrue(service.preciseWheelStats().deferred() > 0);
        service.close();
        assertTrue(handles.stream().allMatch(TimerFuture::isCancelled), handles.toString());
        assertEquals(0, service.pendingCount());
        queued.forEach(Runnable::run);
        assertEquals(Map.of(), runsById);
        for (long id = 1; id <= 4; id++) {
            assertFalse(service.cancel(id));
        }
    }

    // Mirrors Kafka TimerTaskListTest#testAll (a task added again under the same identity leaves its old place; the
    // count does not change): an ID cancelled in one tier can be scheduled again in the other, and only the new
    // instance runs.
    @Test
    void schedule_idCancelledInOneTier_isReusableInTheOther_andOnlyTheNewInstanceRuns() {
        service = builder().build();
        scheduleRecorded(42, Duration.ofHours(2).toMillis());
        scheduleRecorded(43, 10);
        TimerFuture far = service.fetchTimerFuture(42).orElseThrow();
        TimerFuture near = service.fetchTimerFuture(43).orElseThrow();
        assertTrue(service.cancel(42));
        assertTrue(service.cancel(43));
        scheduleRecorded(42, 10);
        scheduleRecorded(43, Duration.ofHours(2).toMillis());
        assertEquals(2, service.pendingCount());
        advanceTo(10 * MS);
        assertEquals(List.of(10 * MS), runsOf(42));
        advanceTo(Duration.ofHours(2).toNanos());
        assertEquals(List.of(Duration.ofHours(2).toNanos()), runsOf(43));
        assertTrue(far.isCancelled() && near.isCancelled());
        assertEquals(0, service.pendingCount());
        assertEquals(0, service.coarseWheelStats().pending());
        assertEquals(0, service.preciseWheelStats().pending());
    }

    // Mirrors Netty HashedWheelTimerTest#testExecutionOnTaskExecutor with an executor that fails: an exception other
    // than a rejection neither stops the precise wheel nor loses the instance, which stays cancellable by ID meanwhile.
    @Test
    void dispatch_executorFailsOtherThanRejecting_instanceIsRetriedAndStaysCancellable() {
        AtomicInteger failuresLeft = new AtomicInteger(2);
        Executor flaky = task -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("executor bug");
            }
            task.run();
        };
        service = builder().dispatchExecutor(flaky).build();
        scheduleRecorded(1, 5);
        scheduleRecorded(2, 5);
        advanceTo(5 * MS);
        assertEquals(Map.of(), runsById);
        assertEquals(1, service.preciseWheelStats().failed(), "one failure per pass: the pass stops there");
        assertTrue(service.cancel(1), "a failed hand-off has not started the instance");
        advanceTo(6 * MS);
        advanceTo(7 * MS);
        assertEquals(Map.of(2L, List.of(7 * MS)), runsById);
        assertEquals(0, service.pendingCount());
        assertEquals(0, service.preciseWheelStats().pending());
    }
}
