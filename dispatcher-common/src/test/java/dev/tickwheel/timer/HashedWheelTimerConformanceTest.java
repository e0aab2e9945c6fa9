package dev.tickwheel.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviours that the peers' own timer suites check, exercised on {@link HashedWheelTimer}: Netty's
 * {@code HashedWheelTimerTest} and Kafka's {@code TimerTest}, {@code TimerTaskListTest} and
 * {@code SystemTimerReaperTest} (Kafka has no {@code TimingWheelTest}). Each test names the case it mirrors. The code
 * is ours, on a {@link ManualClock}: where a peer sleeps and allows a margin, these tests observe the exact instant.
 *
 * <p>Where Tickwheel's contract differs from the peer's, the test checks Tickwheel's and says so: a stopped timer
 * rejects with {@link RejectedExecutionException} (Netty: {@link IllegalStateException}); {@code stop()} leaves the
 * timeouts it returns waiting (Netty cancels them); a delay whose deadline would overflow is refused (Netty clamps it);
 * an existing node cannot be scheduled again (Kafka moves it). Netty's {@code maxPendingTimeouts} has no counterpart:
 * Tickwheel's rejected executions are those of its executor, which defer the timeout.
 */
class HashedWheelTimerConformanceTest extends AbstractManualClockTimerTest {

    // ---- lifecycle

    // Mirrors Netty HashedWheelTimerTest#testScheduleTimeoutShouldNotRunBeforeDelay and
    // #testScheduleTimeoutShouldRunAfterDelay.
    @Test
    void schedule_beforeItsDelay_doesNotRun_andRunsAtIt() {
        timer = builder().build();
        TimerFuture future = timer.schedule(recordFire(), 10, TimeUnit.SECONDS);
        clock.advanceNanos(TimeUnit.SECONDS.toNanos(10) - 1);
        assertEquals(List.of(), fireTimes);
        assertTrue(future.isPending());
        clock.advanceNanos(1);
        assertEquals(List.of(TimeUnit.SECONDS.toNanos(10)), fireTimes);
        assertTrue(future.isStarted());
    }

    // Mirrors Netty HashedWheelTimer#start: idempotent, and "cannot be started once stopped".
    @Test
    void start_isIdempotent_andStartAfterStopThrows() {
        timer = builder().build();
        timer.start();
        timer.start();
        timer.stop();
        IllegalStateException e = assertThrows(IllegalStateException.class, timer::start);
        assertEquals("cannot be started once stopped", e.getMessage());
    }

    // Mirrors Netty HashedWheelTimer#stop on a timer that never started: an empty result, and the timer is shut.
    @Test
    void stop_beforeStart_returnsNothingAndLaterSchedulesAreRejected() {
        timer = builder().build();
        assertEquals(List.of(), timer.stop());
        assertTrue(timer.isStopped());
        assertThrows(RejectedExecutionException.class, () -> timer.schedule(recordFire(), 1, TimeUnit.SECONDS));
        assertThrows(IllegalStateException.class, timer::start);
    }

    // Mirrors Netty HashedWheelTimerTest#testTimerShouldThrowExceptionAfterShutdownForNewTimeouts (Tickwheel's Timer
    // documents RejectedExecutionException).
    @Test
    void schedule_afterStop_isRejected() {
        timer = builder().build();
        timer.start();
        timer.stop();
        assertThrows(RejectedExecutionException.class, () -> timer.schedule(recordFire(), 1, TimeUnit.SECONDS));
    }

    // Mirrors Netty HashedWheelTimer#stop: "cannot be called from TimerTask".
    @Test
    void stop_fromTaskOnTheWorker_throws() {
        timer = builder().build();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        timer.schedule(() -> {
            try {
                timer.stop();
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, 1, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(1));
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
        assertFalse(timer.isStopped());
    }

    // Mirrors Kafka SystemTimerReaperTest#testReaperClose: close() shuts the timer down.
    @Test
    void close_stopsTheTimerAndItsWorker() {
        try (HashedWheelTimer closing = builder().build()) {
            closing.schedule(recordFire(), 1, TimeUnit.HOURS);
            clock.awaitSettled();
            timer = closing;
        }
        assertTrue(timer.isStopped());
        assertFalse(workerThread.get().isAlive());
    }

    // ---- stop returns the unexpired timeouts

    // Mirrors Netty HashedWheelTimerTest#testStopTimer.
    @Test
    void stop_afterEverythingRan_returnsNothing_andWithTimeoutsWaiting_returnsThem() {
        timer = builder().build();
        for (int i = 0; i < 3; i++) {
            timer.schedule(recordFire(), 1, TimeUnit.MILLISECONDS);
        }
        clock.advance(Duration.ofMillis(1));
        assertEquals(3, fireTimes.size());
        assertEquals(List.of(), timer.stop());

        timer = builder().build();
        Set<TimerFuture> waiting = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(timer.schedule(recordFire(), 5, TimeUnit.SECONDS));
        }
        clock.advance(Duration.ofSeconds(1));
        assertEquals(waiting, new HashSet<>(timer.stop()));
    }

    // Mirrors Netty HashedWheelTimer#stop, which restores the caller's interrupt after waiting for the worker.
    @Test
    void stop_returnsWaitingTimeoutsAndRestoresInterrupt() {
        timer = builder().build();
        TimerFuture a = timer.schedule(recordFire(), 1, TimeUnit.SECONDS);
        TimerFuture b = timer.schedule(recordFire(), 2, TimeUnit.HOURS);
        TimerFuture c = timer.schedule(recordFire(), 3, TimeUnit.SECONDS);
        c.cancel();
        clock.awaitSettled();
        Thread.currentThread().interrupt();
        List<TimerFuture> unprocessed = timer.stop();
        assertTrue(Thread.interrupted(), "interrupt flag restored");
        assertEquals(2, unprocessed.size());
        assertTrue(unprocessed.containsAll(List.of(a, b)));
        assertFalse(workerThread.get().isAlive());
        assertEquals(List.of(), timer.stop(), "second stop has nothing to return");
    }

    // Mirrors Netty HashedWheelTimerTest#testStopTimerCancelsPendingTasks, with Tickwheel's documented difference: the
    // returned timeouts are left waiting for the caller to run or cancel, and the timer never runs them.
    @Test
    void stop_leavesTheReturnedTimeoutsWaiting_andNeverRunsThem() {
        timer = builder().build();
        for (int i = 0; i < 5; i++) {
            timer.schedule(recordFire(), 5, TimeUnit.SECONDS);
        }
        clock.advance(Duration.ofSeconds(1));
        List<TimerFuture> unprocessed = timer.stop();
        assertEquals(5, unprocessed.size());
        assertTrue(unprocessed.stream().allMatch(TimerFuture::isPending));
        clock.advanceNanos(TimeUnit.SECONDS.toNanos(10));
        assertEquals(List.of(), fireTimes);
        assertTrue(unprocessed.get(0).cancel(), "the caller can still cancel it");
    }

    // Mirrors Netty HashedWheelTimerTest#testTimerOverflowWheelLength: a task that reschedules itself keeps firing
    // across revolutions of the wheel, and stop() then returns its next timeout.
    @Test
    void schedule_taskReschedulingItselfAcrossRevolutions_keepsFiring_andStopReturnsItsNext() {
        timer = builder().build(); // 8 buckets of 1 ms: 10 periods of 3 ms are almost four revolutions
        List<TimerFuture> next = new CopyOnWriteArrayList<>();
        Runnable[] periodic = new Runnable[1];
        periodic[0] = () -> {
            fireTimes.add(clock.read());
            next.add(timer.schedule(periodic[0], 3, TimeUnit.MILLISECONDS));
        };
        timer.schedule(periodic[0], 3, TimeUnit.MILLISECONDS);
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofMillis(3));
        }
        List<Long> expected = new ArrayList<>();
        for (long t = 3; t <= 30; t += 3) {
            expected.add(t * MS);
        }
        assertEquals(expected, fireTimes);
        assertEquals(List.of(next.get(next.size() - 1)), timer.stop());
    }

    // ---- cancel

    // Mirrors Netty HashedWheelTimeout#cancel: once the task has run, cancel() reports false.
    @Test
    void cancel_afterRun_returnsFalse() {
        timer = builder().build();
        TimerFuture future = timer.schedule(recordFire(), 1, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(1));
        assertTrue(future.isStarted());
        assertFalse(future.cancel());
        assertEquals(1, fireTimes.size());
    }

    // Mirrors Netty HashedWheelTimerTest#cancelWillCallCallback (TimerTask#cancelled; here WheelTimeout#onCancel).
    @Test
    void cancel_callsOnCancelOnce_andTheTaskNeverRuns() {
        timer = builder().build();
        AtomicInteger onCancel = new AtomicInteger();
        AtomicInteger onStart = new AtomicInteger();
        WheelTimeout node = new WheelTimeout(recordFire()) {
            @Override
            protected void onCancel() {
                onCancel.incrementAndGet();
            }

            @Override
            protected void onStart() {
                onStart.incrementAndGet();
            }
        };
        timer.schedule(node, 90 * MS);
        assertEquals(1, timer.stats().pending());
        assertTrue(node.cancel());
        assertFalse(node.cancel());
        clock.advance(Duration.ofMillis(100));
        assertEquals(1, onCancel.get());
        assertEquals(0, onStart.get());
        assertEquals(List.of(), fireTimes);
    }

    // Mirrors Netty HashedWheelTimerTest#testPendingTimeoutsShouldBeCountedCorrectlyWhenTimeoutCancelledWithinGoalTick:
    // eleven timeouts share one deadline; while the first runs, it cancels the other ten.
    @Test
    void cancel_withinTheGoalTick_leavesNothingPending() {
        timer = builder().build();
        List<TimerFuture> others = new ArrayList<>();
        AtomicInteger cancelWins = new AtomicInteger();
        AtomicInteger othersRan = new AtomicInteger();
        timer.schedule(() -> others.forEach(f -> cancelWins.addAndGet(f.cancel() ? 1 : 0)), 200, TimeUnit.MILLISECONDS);
        for (int i = 0; i < 10; i++) {
            others.add(timer.schedule(othersRan::incrementAndGet, 200, TimeUnit.MILLISECONDS));
        }
        clock.advance(Duration.ofMillis(200));
        assertEquals(10, cancelWins.get() + othersRan.get(), "each of the ten was either cancelled or run");
        assertEquals(cancelWins.get(), timer.stats().cancelled());
        assertEquals(0, timer.stats().pending());
    }

    // Mirrors Kafka TimerTaskListTest#testAll (cancelling every task empties every list). Here a cancelled node leaves
    // its list when the worker reaches its bucket (or in a sweep, once cancels are many): each bucket is emptied at
    // its deadline and nothing fires. Where each node waits when it is cancelled depends on the threads: one handed
    // over while the worker was already parked until 10 ms (a later deadline does not wake it) is still in the hand-off
    // queue, and the 10 ms wake-up drops it there with the 10 ms bucket's four. So at 10 ms at least those four are
    // gone and the rest wait; at 12 ms all ten are.
    @Test
    void cancel_tasksInSeveralBuckets_eachBucketEmptiedWhenReached_nothingFires() {
        timer = builder().build();
        List<TimerFuture> futures = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            futures.add(timer.schedule(recordFire(), 10 + i % 3, TimeUnit.MILLISECONDS));
        }
        clock.awaitSettled();
        futures.forEach(f -> assertTrue(f.cancel()));
        // The cancels do not wake the worker: it still waits for the first (cancelled) deadline.
        assertEquals(TimeUnit.MILLISECONDS.toNanos(10), workerParkedUntil());
        clock.advance(Duration.ofMillis(10));
        long dropped = timer.stats().cancelled();
        assertTrue(dropped >= 4, "the 10 ms bucket emptied: " + dropped);
        assertEquals(10 - dropped, timer.stats().pending(), "the others wait for their buckets");
        clock.advance(Duration.ofMillis(2));
        assertEquals(Long.MAX_VALUE, workerParkedUntil(), "nothing left to wait for");
        assertEquals(10, timer.stats().cancelled());
        assertEquals(0, timer.stats().pending());
        clock.advance(Duration.ofMillis(20));
        assertEquals(List.of(), fireTimes);
    }

    // Mirrors Kafka TimerTaskListTest#testAll (re-adding an existing task does not change the task count). Kafka moves
    // the task to the new list; Tickwheel refuses a node that is already scheduled, here or in another timer.
    @Test
    void schedule_nodeAlreadyScheduled_throwsAndTheNodeStillFiresOnce() {
        timer = builder().build();
        WheelTimeout node = new WheelTimeout(recordFire());
        timer.schedule(node, 10 * MS);
        assertThrows(IllegalStateException.class, () -> timer.schedule(node, 20 * MS));
        try (HashedWheelTimer other = HashedWheelTimer.builder().ticker(clock).build()) {
            assertThrows(IllegalStateException.class, () -> other.schedule(node, 20 * MS));
        }
        assertEquals(1, timer.stats().scheduled());
        clock.advance(Duration.ofMillis(10));
        clock.advance(Duration.ofMillis(10));
        assertEquals(List.of(10 * MS), fireTimes);
    }

    // ---- pending counts

    // Mirrors Netty HashedWheelTimerTest#reportPendingTimeouts and
    // #testNewTimeoutShouldStopThrowingRejectedExecutionExceptionWhenExistingTimeoutIsCancelled / ...IsExecuted: the
    // count drops when a timeout runs and when a cancelled one is dropped. Unlike Netty, a cancelled node already in
    // the wheel stays counted until the worker reaches its bucket (or sweeps): the cancel does not touch the worker.
    // The worker takes the three into the wheel before the cancels (awaitSettled), so the counts do not depend on
    // whether the cancels beat the hand-off; a node cancelled while still in the hand-off queue is dropped as the
    // worker takes it, which the cancel tests elsewhere cover.
    @Test
    void pending_dropsWhenATimeoutRunsAndWhenItsCancelledNodeIsDropped() {
        timer = builder().build();
        TimerFuture t1 = timer.schedule(recordFire(), 100, TimeUnit.MINUTES);
        TimerFuture t2 = timer.schedule(recordFire(), 100, TimeUnit.MINUTES);
        timer.schedule(recordFire(), 90, TimeUnit.MILLISECONDS);
        assertEquals(3, timer.stats().pending());
        clock.awaitSettled();
        assertTrue(t1.cancel());
        assertTrue(t2.cancel());
        clock.awaitSettled();
        assertEquals(3, timer.stats().pending(), "cancelled nodes still in the wheel until their bucket is reached");
        clock.advance(Duration.ofMillis(90));
        assertEquals(2, timer.stats().pending());
        assertEquals(new TimerStats(3, 1, 0, 0, 0, 2), timer.stats());
        clock.advance(Duration.ofMinutes(100));
        assertEquals(new TimerStats(3, 1, 2, 0, 0, 0), timer.stats());
        assertEquals(List.of(90 * MS), fireTimes);
    }

    // ---- executors and rejected executions

    // Mirrors Netty HashedWheelTimerTest#testExecutionOnTaskExecutor.
    @Test
    void expire_withATaskExecutor_handsTheTimeoutToIt() {
        List<Runnable> executed = new CopyOnWriteArrayList<>();
        Executor executor = command -> {
            executed.add(command);
            command.run();
        };
        timer = builder().executor(executor).build();
        TimerFuture future = timer.schedule(recordFire(), 10, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(10));
        assertEquals(1, executed.size());
        assertSame(future, executed.get(0));
        assertEquals(List.of(10 * MS), fireTimes);
    }

    // Mirrors Netty HashedWheelTimerTest#testRejectedExecutionExceptionWhenTooManyTimeoutsAreAddedBackToBack in
    // Tickwheel's terms: the rejection comes from the executor, and the timeout is deferred a tick, not dropped.
    @Test
    void expire_executorRejects_defersByOneTickAndCounts() {
        AtomicInteger rejectionsLeft = new AtomicInteger(2);
        List<Runnable> accepted = new ArrayList<>();
        Executor executor = task -> {
            if (rejectionsLeft.getAndDecrement() > 0) {
                throw new RejectedExecutionException("queue full");
            }
            accepted.add(task);
        };
        timer = builder().executor(executor).build();
        timer.schedule(recordFire(), 5, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(5));
        assertEquals(0, accepted.size());
        assertEquals(1, timer.stats().deferred());
        clock.advance(Duration.ofMillis(1));
        assertEquals(0, accepted.size());
        assertEquals(2, timer.stats().deferred());
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, accepted.size());
        assertEquals(List.of(), fireTimes, "the worker must not run the task itself");
        accepted.get(0).run();
        assertEquals(1, fireTimes.size());
    }

    // ---- many timeouts, one bucket; many delays

    // Mirrors Netty HashedWheelTimerTest#testExecutionOnTime: 100 000 timeouts of 125 ms on 200 ms ticks. Netty allows
    // up to 2 * (tick + delay); on the manual clock every one must run exactly at 125 ms.
    @Test
    void schedule_100kTimeoutsWithOneDelay_allRunExactlyAtIt() {
        timer = builder().tickDuration(200, TimeUnit.MILLISECONDS).build();
        int count = 100_000;
        AtomicInteger onTime = new AtomicInteger();
        AtomicInteger offTime = new AtomicInteger();
        for (int i = 0; i < count; i++) {
            timer.schedule(() -> (clock.read() == 125 * MS ? onTime : offTime).incrementAndGet(),
                    125, TimeUnit.MILLISECONDS);
        }
        clock.advanceNanos(125 * MS - 1);
        assertEquals(0, onTime.get() + offTime.get(), "none early");
        clock.advanceNanos(1);
        assertEquals(count, onTime.get());
        assertEquals(0, offTime.get());
    }

    // Mirrors Kafka TimerTest#testTaskExpiration: delays 0-4 ms, 10-99 ms twice each, 100-499 ms; every task runs once,
    // and (stepping the clock 1 ms at a time) each exactly at its deadline.
    @Test
    void schedule_tasksOfManyDelaysAndDuplicates_eachRunsOnceAtItsDeadline() {
        timer = builder().build();
        List<Integer> delaysMs = new ArrayList<>();
        for (int d = 0; d < 500; d++) {
            if (d < 5 || d >= 100) {
                delaysMs.add(d);
            } else if (d >= 10) {
                delaysMs.add(d);
                delaysMs.add(d);
            }
        }
        Map<Integer, List<Long>> ranAtByDelay = new ConcurrentHashMap<>();
        for (int d : delaysMs) {
            timer.schedule(() -> ranAtByDelay.computeIfAbsent(d, k -> new CopyOnWriteArrayList<>()).add(clock.read()),
                    d, TimeUnit.MILLISECONDS);
        }
        for (int t = 0; t < 500; t++) {
            if (t > 0) {
                clock.advance(Duration.ofMillis(1));
            } else {
                clock.awaitSettled();
            }
            int due = t;
            long expectedRuns = delaysMs.stream().filter(d -> d <= due).count();
            assertEquals(expectedRuns, ranAtByDelay.values().stream().mapToInt(List::size).sum(), "runs by " + t);
            List<Long> atT = ranAtByDelay.getOrDefault(t, List.of());
            assertEquals(delaysMs.stream().filter(d -> d == due).count(), atT.size(), "runs of delay " + t);
            assertTrue(atT.stream().allMatch(at -> at == due * MS), "delay " + t + " ran at " + atT);
        }
    }

    // Mirrors Kafka TimerTest#testAlreadyExpiredTask (and MockTimer#add, which runs a delay <= 0 at once): negative
    // delays run at the worker's next pass, without the clock moving.
    @Test
    void schedule_alreadyExpiredDelays_runAtTheNextPass() {
        timer = builder().build();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        for (int i = -5; i < 0; i++) {
            int id = i;
            timer.schedule(() -> ran.add(id), i, TimeUnit.MILLISECONDS);
        }
        clock.awaitSettled();
        assertEquals(Set.of(-5, -4, -3, -2, -1), new HashSet<>(ran));
        assertEquals(5, ran.size());
    }

    // ---- overflow and clock edges

    // Mirrors Netty HashedWheelTimerTest#testOverflow (a delay of Long.MAX_VALUE ms): Netty clamps the deadline,
    // Tickwheel refuses it with a message that names the value.
    @Test
    void schedule_deadlineWouldOverflow_throwsNamingTheValue() {
        timer = builder().build();
        clock.advanceNanos(10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> timer.schedule(recordFire(), Long.MAX_VALUE, TimeUnit.NANOSECONDS));
        assertTrue(e.getMessage().contains(String.valueOf(Long.MAX_VALUE)), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> timer.schedule(recordFire(), Long.MAX_VALUE, TimeUnit.DAYS));
        assertEquals(0, timer.stats().scheduled());
    }

    // Mirrors Netty HashedWheelTimerTest#testOverflow (the longest delay does not fire early) and Kafka
    // TimerTest#testAlreadyExpiredTask (a delay of 0 runs at once), on clocks that start at the edges of the long
    // range: every delay from 0 to the largest accepted one fires exactly at its deadline, however the ticker wraps.
    @ParameterizedTest(name = "clock starts at {0}")
    @ValueSource(longs = {0, Long.MIN_VALUE, Long.MAX_VALUE - 5 * MS, -1})
    void schedule_delaysFromZeroToTheLargest_eachFiresExactlyAtItsDeadline(long origin) {
        ManualClock edge = new ManualClock(origin);
        Map<Long, Long> firedAtByDelay = new ConcurrentHashMap<>();
        timer = HashedWheelTimer.builder().ticker(edge).ticksPerWheel(8).build();
        long[] delays = {0, 1, MS - 1, MS, 5 * MS / 2, 24 * MS + MS / 2, TimeUnit.HOURS.toNanos(1), Long.MAX_VALUE};
        for (long delay : delays) {
            timer.schedule(() -> firedAtByDelay.put(delay, edge.read() - origin), delay, TimeUnit.NANOSECONDS);
        }
        long now = 0;
        for (long delay : delays) {
            if (delay > now) {
                edge.advanceNanos(delay - 1 - now);
                assertFalse(firedAtByDelay.containsKey(delay), "delay " + delay + " fired early");
                edge.advanceNanos(1);
                now = delay;
            } else {
                edge.awaitSettled();
            }
            assertEquals(delay, firedAtByDelay.get(delay), "delay " + delay);
        }
        assertEquals(delays.length, firedAtByDelay.size());
    }
}
