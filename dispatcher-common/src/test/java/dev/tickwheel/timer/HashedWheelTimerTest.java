package dev.tickwheel.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Behaviour of {@link HashedWheelTimer} that is its own: exact deadlines inside a tick, parking, hand-over, and the
 * regressions of issue 13. What the peers' suites check is in {@link HashedWheelTimerConformanceTest}.
 */
class HashedWheelTimerTest extends AbstractManualClockTimerTest {

    @Test
    void schedule_deadlineInsideTick_firesAtDeadlineNotBeforeNotAtTickEnd() {
        timer = builder().build();
        timer.schedule(recordFire(), 2_500_000, TimeUnit.NANOSECONDS);
        clock.advanceNanos(2_499_999);
        assertEquals(List.of(), fireTimes);
        clock.advanceNanos(1);
        assertEquals(List.of(2_500_000L), fireTimes);
    }

    @Test
    void schedule_severalRevolutionsAhead_firesOnlyAtItsRound() {
        timer = builder().build(); // 8 buckets of 1 ms: 20.5 ms is two revolutions and a half ahead
        timer.schedule(recordFire(), 20_500_000, TimeUnit.NANOSECONDS);
        for (int i = 0; i < 20; i++) {
            clock.advanceNanos(MS);
        }
        assertEquals(List.of(), fireTimes);
        clock.advanceNanos(MS);
        assertEquals(List.of(21 * MS), fireTimes);
    }

    @Test
    void schedule_nonPositiveDelay_runsOnWorkerAtNextPass() {
        timer = builder().build();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        timer.schedule(() -> ranOn.set(Thread.currentThread()), -5, TimeUnit.MILLISECONDS);
        clock.awaitSettled();
        assertSame(workerThread.get(), ranOn.get());
        assertNotEquals(Thread.currentThread(), ranOn.get());
    }

    @Test
    void schedule_whileWorkerParkedFarAhead_isNotDelayedByARevolution() {
        timer = builder().build();
        timer.schedule(recordFire(), 1, TimeUnit.HOURS);
        clock.awaitSettled();
        assertEquals(TimeUnit.HOURS.toNanos(1), workerParkedUntil());
        // Half an hour passes without the worker waking: its wheel has not processed any of those ticks.
        clock.advance(Duration.ofMinutes(30));
        long added = clock.read();
        timer.schedule(recordFire(), 300_000, TimeUnit.NANOSECONDS); // in the tick being passed
        clock.advanceNanos(299_999);
        assertEquals(List.of(), fireTimes);
        clock.advanceNanos(1);
        assertEquals(List.of(added + 300_000), fireTimes);
    }

    @Test
    void accept_deadlineAlreadyPassed_firesAtNextPass() {
        timer = builder().build();
        clock.advance(Duration.ofMillis(50));
        WheelTimeout late = new WheelTimeout(recordFire());
        late.deadlineNanos = clock.read() - 30 * MS; // expired by another timer that ran late
        timer.accept(late);
        clock.awaitSettled();
        assertEquals(List.of(50 * MS), fireTimes);
    }

    @Test
    void worker_idleWithFarTimers_parksUntilEarliestDeadline() {
        timer = builder().build();
        timer.start();
        assertEquals(Long.MAX_VALUE, workerParkedUntil());
        timer.schedule(recordFire(), 3, TimeUnit.HOURS);
        timer.schedule(recordFire(), 2, TimeUnit.HOURS);
        clock.awaitSettled();
        assertEquals(TimeUnit.HOURS.toNanos(2), workerParkedUntil());
    }

    @Test
    void cancel_beforeDeadline_neverRuns_keptWithoutWakingTheWorkerUntilItsBucketIsReached() {
        timer = builder().build();
        TimerFuture future = timer.schedule(recordFire(), 1, TimeUnit.HOURS);
        clock.awaitSettled();
        assertTrue(future.cancel());
        assertFalse(future.cancel());
        clock.awaitSettled();
        // No wake-up per cancel: the worker still sleeps towards the cancelled deadline, holding the node.
        assertEquals(TimeUnit.HOURS.toNanos(1), workerParkedUntil());
        assertEquals(1, timer.stats().pending());
        // A pass for a sooner timeout leaves it linked: one cancel is far from a sweep.
        timer.schedule(recordFire(), 5, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(5));
        assertEquals(0, timer.stats().cancelled());
        assertEquals(1, timer.stats().pending(), "the cancelled node, still linked");
        // Its bucket is reached: dropped there, not run.
        clock.advance(Duration.ofHours(2));
        assertEquals(List.of(TimeUnit.MILLISECONDS.toNanos(5)), fireTimes, "the cancelled one never ran");
        assertEquals(1, timer.stats().cancelled());
        assertEquals(0, timer.stats().pending());
        assertTrue(future.isCancelled());
        assertFalse(future.isStarted());
    }

    @Test
    void cancel_aBurstOnAParkedWorker_wakesItToSweep_soTheCancelledNodesPinnedStayBelowCancelsPerWake() {
        timer = builder().build();
        int count = 3 * HashedWheelTimer.CANCELS_PER_WAKE + 5;
        List<TimerFuture> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(timer.schedule(recordFire(), 1 + i % 50, TimeUnit.HOURS));
        }
        clock.awaitSettled();
        assertEquals(TimeUnit.HOURS.toNanos(1), workerParkedUntil());
        for (TimerFuture future : futures) {
            assertTrue(future.cancel());
        }
        clock.awaitSettled();
        // Every CANCELS_PER_WAKE-th cancel woke the parked worker; it swept once the cancels since the last sweep were
        // at least half of what it held. Parked again, it holds fewer cancelled nodes than CANCELS_PER_WAKE (all it
        // holds is cancelled here, and a sweep would be due with CANCELS_PER_WAKE of them).
        TimerStats parked = timer.stats();
        assertTrue(parked.pending() < HashedWheelTimer.CANCELS_PER_WAKE, parked.toString());
        assertEquals(count, parked.cancelled() + parked.pending(), parked.toString());
        clock.advance(Duration.ofHours(60));
        assertEquals(List.of(), fireTimes);
        assertEquals(count, timer.stats().cancelled());
        assertEquals(0, timer.stats().pending());
    }

    @Test
    void cancel_justBelowHalfOfWhatTheWheelHolds_noSweep_theNextCancelMakesHalfAndSweeps() {
        timer = builder().build();
        int count = 4 * HashedWheelTimer.CANCELS_PER_WAKE;
        List<TimerFuture> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(timer.schedule(recordFire(), 1 + i % 50, TimeUnit.HOURS));
        }
        // A timeout due now wakes the worker, which takes every node handed over (those due after its wake-up time
        // did not wake it) and links it: a sweep compares the cancels with what the wheel holds.
        timer.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        clock.awaitSettled();
        int cancels = count / 2 - 1; // one short of half: never a sweep
        for (int i = 0; i < cancels; i++) {
            assertTrue(futures.get(i).cancel());
        }
        clock.awaitSettled();
        assertEquals(0, timer.stats().cancelled(), "no sweep below half");
        assertEquals(count, timer.stats().pending());
        // The 2 * CANCELS_PER_WAKE-th cancel: half of what the wheel holds, and a wake-up, which sweeps.
        assertTrue(futures.get(cancels).cancel());
        clock.awaitSettled();
        assertEquals(cancels + 1, timer.stats().cancelled(), "one sweep dropped every cancelled node");
        assertEquals(count - cancels - 1, timer.stats().pending());
        clock.advance(Duration.ofHours(60));
        assertEquals(count - cancels - 1, fireTimes.size(), "every live timeout ran, no cancelled one");
    }

    /** A node that counts how often a timer let go of it while cancelled ({@link WheelTimeout#onDropped()}). */
    private static final class CountingTimeout extends WheelTimeout {
        final AtomicInteger dropped = new AtomicInteger();

        CountingTimeout() {
            super(() -> { });
        }

        @Override
        protected void onDropped() {
            dropped.incrementAndGet();
        }
    }

    /**
     * A cancelled node is let go of exactly once wherever the timer holds it: at its bucket, in a sweep, in the worker's
     * queues (deferred by a full executor), and in the executor (its run finds it cancelled); a live node never is.
     * What a service keyed by the node (the CARGO index) relies on to release its entry.
     */
    @Test
    void onDropped_calledOnceForEachCancelledNode_whereverTheTimerHeldIt_neverForALiveOne() {
        List<Runnable> handedToExecutor = new CopyOnWriteArrayList<>();
        AtomicInteger rejectNext = new AtomicInteger();
        timer = builder().executor(task -> {
            if (rejectNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new RejectedExecutionException("full");
            }
            handedToExecutor.add(task);
        }).build();
        List<CountingTimeout> cancelled = new ArrayList<>();
        // At their bucket: cancelled an hour out, dropped when the clock reaches them.
        for (int i = 0; i < 10; i++) {
            CountingTimeout node = timer.schedule(new CountingTimeout(), TimeUnit.HOURS.toNanos(1) + i * MS);
            cancelled.add(node);
        }
        clock.awaitSettled();
        cancelled.forEach(node -> assertTrue(node.cancel()));
        // In a sweep: enough cancels to make one.
        List<CountingTimeout> swept = new ArrayList<>();
        for (int i = 0; i < 2 * HashedWheelTimer.CANCELS_PER_WAKE; i++) {
            swept.add(timer.schedule(new CountingTimeout(), TimeUnit.HOURS.toNanos(2) + i));
        }
        timer.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        clock.awaitSettled();
        swept.forEach(node -> assertTrue(node.cancel()));
        clock.awaitSettled();
        cancelled.addAll(swept);
        // Deferred: the executor refuses it once, it is cancelled before the retry.
        rejectNext.set(1);
        CountingTimeout deferred = timer.schedule(new CountingTimeout(), MS);
        clock.advance(Duration.ofMillis(1));
        assertTrue(deferred.cancel());
        cancelled.add(deferred);
        // In the executor: handed over, then cancelled, then run.
        CountingTimeout inExecutor = timer.schedule(new CountingTimeout(), MS);
        clock.advance(Duration.ofMillis(5));
        assertTrue(handedToExecutor.contains(inExecutor), "handed to the executor");
        assertTrue(inExecutor.cancel());
        cancelled.add(inExecutor);
        CountingTimeout live = timer.schedule(new CountingTimeout(), MS);
        clock.advance(Duration.ofHours(3));
        handedToExecutor.forEach(Runnable::run);
        handedToExecutor.forEach(Runnable::run); // a second run changes nothing

        assertTrue(live.isStarted());
        assertEquals(0, live.dropped.get(), "a live node is never dropped");
        assertEquals(2, inExecutor.dropped.get(), "run twice after its cancel: let go of at each run (a second call is"
                + " tolerated by design)");
        for (CountingTimeout node : cancelled) {
            if (node != inExecutor) {
                assertEquals(1, node.dropped.get(), "dropped once: " + node);
            }
        }
        assertEquals(0, timer.stats().pending());
    }

    @Test
    void cancel_whileDeferred_neverRuns() {
        AtomicInteger submitted = new AtomicInteger();
        timer = builder().executor(task -> {
            submitted.incrementAndGet();
            throw new RejectedExecutionException("always full");
        }).build();
        TimerFuture future = timer.schedule(recordFire(), 1, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(1));
        assertTrue(future.cancel());
        clock.advance(Duration.ofMillis(5));
        assertEquals(1, submitted.get(), "a cancelled deferred timeout is not offered again");
        assertEquals(0, timer.stats().pending());
    }

    @Test
    void run_taskThrowsWithoutExecutor_workerSurvivesAndReports() {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        timer = builder().failureHandler((t, e) -> failures.add(e)).build();
        timer.schedule(() -> {
            throw new IllegalStateException("boom");
        }, 1, TimeUnit.MILLISECONDS);
        timer.schedule(recordFire(), 2, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(2));
        assertEquals(1, failures.size());
        assertEquals("boom", failures.get(0).getMessage());
        assertEquals(List.of(2 * MS), fireTimes);
        assertEquals(1, timer.stats().failed());
    }

    @Test
    void schedule_burstLargerThanTransferBound_allFire() {
        timer = builder().maxTransfersPerPass(3).build();
        for (int i = 0; i < 100; i++) {
            timer.schedule(recordFire(), i % 4, TimeUnit.MILLISECONDS);
        }
        clock.advance(Duration.ofMillis(3));
        assertEquals(100, fireTimes.size());
    }

    @Test
    void builder_invalidValues_throwNamingTheValue() {
        HashedWheelTimer.Builder b = HashedWheelTimer.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.ticksPerWheel(0)).getMessage().contains("0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.tickDuration(10, TimeUnit.NANOSECONDS))
                .getMessage().contains("10 ns"));
        assertThrows(IllegalArgumentException.class, () -> b.executor(Runnable::run).expiryHandler(t -> { }).build());
    }

    @Test
    void ticksPerWheel_roundsUpToPowerOfTwo() {
        timer = builder().ticksPerWheel(5).build();
        // 5 rounds up to 8: a timer 8.5 ms ahead shares bucket 0 with the first tick but must not fire in round 0.
        timer.schedule(recordFire(), 8_500_000, TimeUnit.NANOSECONDS);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of(), fireTimes);
        clock.advance(Duration.ofMillis(8));
        assertEquals(List.of(9 * MS), fireTimes);
    }

    // Issue 13, defect 1: an executor failure other than a rejection killed the worker and every later timeout.
    @Test
    void expire_executorThrowsOtherThanRejection_workerSurvivesReportsAndRetriesNextTick() {
        AtomicInteger failuresLeft = new AtomicInteger(1);
        List<Runnable> accepted = new CopyOnWriteArrayList<>();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        timer = builder().executor(task -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("executor bug");
            }
            accepted.add(task);
        }).failureHandler((t, e) -> reported.add(e)).build();
        TimerFuture first = timer.schedule(recordFire(), 1, TimeUnit.MILLISECONDS);
        TimerFuture second = timer.schedule(recordFire(), 5, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(1));
        assertTrue(workerThread.get().isAlive(), "worker survived the executor's failure");
        assertEquals(List.of("executor bug"), reported.stream().map(Throwable::getMessage).toList());
        assertTrue(first.isPending(), "not lost: still waiting, to be retried");
        assertEquals(List.of(), accepted);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of(first), accepted, "retried a tick later");
        clock.advance(Duration.ofMillis(3));
        assertEquals(List.of(first, second), accepted);
        assertEquals(1, timer.stats().failed());
        assertEquals(0, timer.stats().pending());
    }

    // Issue 13, defect 2: stop() between the lazy start's state change and the worker thread's start returned nothing
    // and the timeouts accepted in that window were lost.
    @Test
    void stop_racingLazyStart_returnsTimeoutsAcceptedBeforeTheWorkerRan() throws Exception {
        GatedStart gate = new GatedStart(null);
        timer = builder().threadFactory(gate).build();
        Thread starter = gate.startTimer(timer);
        TimerFuture accepted = timer.schedule(recordFire(), 1, TimeUnit.HOURS);
        AtomicReference<List<TimerFuture>> unprocessed = new AtomicReference<>();
        Thread stopper = new Thread(() -> unprocessed.set(timer.stop()), "stopper");
        stopper.start();
        while (!timer.isStopped()) {
            Thread.onSpinWait();
        }
        gate.release.countDown();
        starter.join();
        stopper.join();
        assertEquals(List.of(accepted), unprocessed.get());
        assertTrue(accepted.isPending());
        assertFalse(workerThread.get().isAlive());
    }

    @Test
    void start_workerThreadCannotBeStarted_throwsAndCancelsWhatWasAcceptedMeanwhile() throws Exception {
        GatedStart gate = new GatedStart(new IllegalStateException("no threads left"));
        timer = builder().threadFactory(gate).build();
        Thread starter = gate.startTimer(timer);
        TimerFuture accepted = timer.schedule(recordFire(), 1, TimeUnit.SECONDS);
        gate.release.countDown();
        starter.join();
        assertSame(gate.failure, gate.startFailure.get());
        assertTrue(timer.isStopped());
        assertTrue(accepted.isCancelled(), "nothing could ever fire it");
        assertEquals(List.of(), timer.stop(), "returns at once: no worker to wait for");
        assertThrows(RejectedExecutionException.class, () -> timer.schedule(recordFire(), 1, TimeUnit.SECONDS));
    }

    @Test
    // A hang guard on its own thread (stop() keeps waiting when interrupted): before the fix, stop() waited forever.
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void stop_workerFailsWhileExiting_stillReturns() {
        ExitFailingClock exitFails = new ExitFailingClock();
        timer = HashedWheelTimer.builder().ticker(exitFails).build();
        timer.start();
        exitFails.clock.awaitSettled();
        assertEquals(List.of(), timer.stop());
        assertTrue(timer.isStopped());
    }

    // Issue 13, defect 3 was a cancel issued mid-pass whose node waited for the cancelled deadline. Since issue 26 that
    // is the design (a cancel does not touch the wheel; the node is dropped at its bucket, or by a sweep once cancels
    // are many): the cancel wins at once, the task never runs, and the node is gone after its deadline.
    @Test
    void cancel_whileWorkerRunsAPass_winsAtOnce_andTheNodeIsDroppedAtItsBucket() {
        timer = builder().build();
        TimerFuture far = timer.schedule(recordFire(), 1, TimeUnit.HOURS);
        AtomicBoolean cancelWon = new AtomicBoolean();
        timer.schedule(() -> cancelWon.set(far.cancel()), 1, TimeUnit.MILLISECONDS); // runs on the worker, mid-pass
        clock.advance(Duration.ofMillis(1));
        assertTrue(cancelWon.get());
        assertTrue(far.isCancelled());
        assertEquals(1, timer.stats().pending(), "kept until its bucket: one cancel is far from a sweep");
        clock.advance(Duration.ofHours(1));
        assertEquals(Long.MAX_VALUE, workerParkedUntil(), "nothing left to wait for");
        assertEquals(1, timer.stats().cancelled());
        assertEquals(0, timer.stats().pending());
        assertEquals(List.of(), fireTimes, "the cancelled task never ran");
    }

    // Issue 13, defect 4: the javadoc promised IllegalStateException for a node that is no longer waiting.
    @Test
    void schedule_nodeAlreadyCancelledOrStarted_throwsAndSchedulesNothing() {
        timer = builder().build();
        WheelTimeout cancelled = new WheelTimeout(recordFire());
        assertTrue(cancelled.cancel());
        WheelTimeout started = new WheelTimeout(() -> { });
        started.run();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> timer.schedule(cancelled, MS));
        assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> timer.schedule(started, MS));
        assertTrue(e.getMessage().contains("started"), e.getMessage());
        assertEquals(0, timer.stats().scheduled());
    }

    // Issue 13, defect 5: an interrupt left behind by one task run on the worker was seen by the next one.
    @ParameterizedTest(name = "direct executor: {0}")
    @ValueSource(booleans = {false, true})
    void run_taskLeavesInterruptFlagSetOnWorker_nextTaskStartsUninterrupted(boolean directExecutor) {
        HashedWheelTimer.Builder b = builder();
        timer = directExecutor ? b.executor(Runnable::run).build() : b.build();
        List<Boolean> interruptedOnEntry = new CopyOnWriteArrayList<>();
        Runnable task = () -> {
            interruptedOnEntry.add(Thread.currentThread().isInterrupted());
            Thread.currentThread().interrupt();
        };
        timer.schedule(task, 1, TimeUnit.MILLISECONDS);
        timer.schedule(task, 1, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of(false, false), interruptedOnEntry);
    }

    // Issue 13, defect 6: at now = origin + Long.MAX_VALUE an empty wheel's "no deadline" looked due and the worker
    // ran passes without parking.
    @Test
    void worker_passAtTheOverflowEdge_parksInsteadOfSpinning() {
        timer = builder().build();
        timer.start();
        clock.advanceNanos(Long.MAX_VALUE); // the idle worker sleeps through it
        timer.schedule(recordFire(), 0, TimeUnit.NANOSECONDS);
        clock.awaitSettled(); // fails after 10 s if the worker never parks
        assertEquals(List.of(Long.MAX_VALUE), fireTimes);
        assertEquals(Long.MAX_VALUE, workerParkedUntil());
    }

    @Test
    void schedule_largestDelay_firesExactlyAtTheOverflowEdge() {
        timer = builder().build();
        timer.schedule(recordFire(), Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        clock.advanceNanos(Long.MAX_VALUE - 1);
        assertEquals(List.of(), fireTimes);
        clock.advanceNanos(1);
        assertEquals(List.of(Long.MAX_VALUE), fireTimes);
        assertEquals(Long.MAX_VALUE, workerParkedUntil());
    }

    @Test
    void expire_executorRejectsAtTheOverflowEdge_retriesATickLaterWithoutSpinning() {
        AtomicInteger attempts = new AtomicInteger();
        timer = builder().executor(task -> {
            attempts.incrementAndGet();
            throw new RejectedExecutionException("full");
        }).build();
        timer.start();
        clock.advanceNanos(Long.MAX_VALUE);
        timer.schedule(recordFire(), 0, TimeUnit.NANOSECONDS);
        clock.awaitSettled(); // fails after 10 s if the worker never parks
        assertEquals(1, attempts.get());
        clock.advance(Duration.ofMillis(1));
        assertEquals(2, attempts.get());
    }

    @Test
    void worker_tickerPassesTheEndOfItsRange_firesWhatIsPendingAndAcceptsOnlyDueNow() {
        timer = builder().build();
        timer.schedule(recordFire(), Long.MAX_VALUE - 5, TimeUnit.NANOSECONDS);
        clock.advanceNanos(Long.MAX_VALUE - 10);
        clock.advanceNanos(20); // past origin + Long.MAX_VALUE: the ticker's distance from the origin wraps
        assertEquals(List.of(Long.MIN_VALUE + 9), fireTimes, "fired at the jump, not lost");
        assertEquals(Long.MAX_VALUE, workerParkedUntil());
        assertThrows(IllegalArgumentException.class, () -> timer.schedule(recordFire(), 1, TimeUnit.NANOSECONDS));
        timer.schedule(recordFire(), 0, TimeUnit.NANOSECONDS);
        clock.awaitSettled();
        assertEquals(List.of(Long.MIN_VALUE + 9, Long.MIN_VALUE + 9), fireTimes);
    }

    /** A {@link ManualClock} whose {@code workerStopped} throws after doing its job: the worker's last step fails. */
    private static final class ExitFailingClock extends Ticker implements WorkerParker {
        final ManualClock clock = new ManualClock();

        @Override
        public long read() {
            return clock.read();
        }

        @Override
        public void parkUntil(long deadlineNanos) {
            clock.parkUntil(deadlineNanos);
        }

        @Override
        public void parkIndefinitely() {
            clock.parkIndefinitely();
        }

        @Override
        public void unpark(Thread worker) {
            clock.unpark(worker);
        }

        @Override
        public void workerStarted(Thread worker) {
            clock.workerStarted(worker);
        }

        @Override
        public void workerStopped(Thread worker) {
            clock.workerStopped(worker);
            throw new IllegalStateException("parker failed");
        }
    }

    /**
     * Makes worker threads whose {@code start()} waits at a gate, so that a test can act while the timer counts as
     * started but its worker does not exist yet; then starts the thread or, if given a failure, throws it.
     */
    private final class GatedStart implements ThreadFactory {
        final CountDownLatch starting = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Throwable> startFailure = new AtomicReference<>();
        final RuntimeException failure;

        GatedStart(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "test-wheel") {
                @Override
                public synchronized void start() {
                    starting.countDown();
                    awaitQuietly(release);
                    if (failure != null) {
                        throw failure;
                    }
                    super.start();
                }
            };
            t.setDaemon(true);
            workerThread.set(t);
            return t;
        }

        /** Calls {@code timer.start()} on a new thread and returns that thread once it waits at the gate. */
        Thread startTimer(HashedWheelTimer timer) throws InterruptedException {
            Thread starter = new Thread(() -> {
                try {
                    timer.start();
                } catch (Throwable t) {
                    startFailure.set(t);
                }
            }, "starter");
            starter.start();
            starting.await();
            return starter;
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
