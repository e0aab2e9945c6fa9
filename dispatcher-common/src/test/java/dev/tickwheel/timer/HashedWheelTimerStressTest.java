package dev.tickwheel.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many threads against one {@link HashedWheelTimer} on a {@link ManualClock}: the clock does not move unless a test
 * says so, so every outcome below is decided by thread interleaving alone, and the checks are exact.
 */
class HashedWheelTimerStressTest {

    private static final int THREADS = 8;

    private final ExecutorService threads = Executors.newFixedThreadPool(THREADS + 1);

    @AfterEach
    void shutdown() {
        threads.shutdownNow();
    }

    /**
     * Cancels from eight threads while a ninth keeps the worker awake with timeouts that are due at once, so that
     * sweeps run while cancels land (a node may be cancelled just before or just after a sweep visits its bucket). No
     * node may run, be lost or be counted twice: parked after each round, the worker holds fewer cancelled nodes than
     * {@link HashedWheelTimer#CANCELS_PER_WAKE} (it would sweep otherwise), and once every deadline has passed it has
     * dropped each cancelled node exactly once.
     */
    @Test
    void cancel_manyThreadsWhileWorkerSweeps_noneRunsNoneLostEachDroppedOnce() throws Exception {
        int perThread = 5_000;
        for (int round = 0; round < 10; round++) {
            ManualClock clock = new ManualClock();
            HashedWheelTimer timer = HashedWheelTimer.builder().ticker(clock).ticksPerWheel(64).build();
            try {
                AtomicBoolean cancelling = new AtomicBoolean(true);
                AtomicInteger ran = new AtomicInteger();
                Future<?> busy = threads.submit(() -> {
                    while (cancelling.get()) {
                        timer.schedule(Thread::onSpinWait, 0, TimeUnit.NANOSECONDS);
                    }
                });
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> cancellers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    cancellers.add(threads.submit(() -> {
                        List<TimerFuture> mine = new ArrayList<>(perThread);
                        for (int i = 0; i < perThread; i++) {
                            mine.add(timer.schedule(ran::incrementAndGet, 1 + i, TimeUnit.HOURS));
                        }
                        go.await();
                        for (TimerFuture future : mine) {
                            if (!future.cancel()) {
                                throw new AssertionError("cancel lost for a timeout hours away: " + future);
                            }
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> canceller : cancellers) {
                    canceller.get(60, TimeUnit.SECONDS);
                }
                cancelling.set(false);
                busy.get(60, TimeUnit.SECONDS);
                clock.awaitSettled();
                // A timeout due now wakes the worker once more: it takes what was handed over while it slept towards a
                // later deadline (dropping the cancelled ones) and sweeps if due. Parked again, it holds only cancelled
                // nodes, fewer than a sweep needs...
                timer.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
                clock.awaitSettled();
                TimerStats parked = timer.stats();
                assertTrue(parked.pending() < HashedWheelTimer.CANCELS_PER_WAKE, "round " + round + ": " + parked);
                assertTrue(parked.cancelled() > 0, "round " + round + ": nothing dropped: " + parked);
                // ...and drops each of them when its bucket is reached: every node dropped once, none run.
                clock.advance(Duration.ofHours(perThread + 1));
                TimerStats stats = timer.stats();
                assertEquals(0, stats.pending(), "round " + round + ": " + stats);
                assertEquals(THREADS * perThread, stats.cancelled(), "round " + round + ": " + stats);
                assertEquals(0, ran.get(), "round " + round + ": a cancelled task ran");
            } finally {
                timer.stop();
            }
        }
    }

    /**
     * Eight threads schedule the same node at once, 2 000 times over: exactly one call may succeed (the others throw
     * {@link IllegalStateException}), and the task runs once. Two successes would link the node twice.
     */
    @Test
    void schedule_sameNodeFromManyThreads_exactlyOneSucceedsAndItRunsOnce() throws Exception {
        ManualClock clock = new ManualClock();
        HashedWheelTimer timer = HashedWheelTimer.builder().ticker(clock).ticksPerWheel(64).build();
        try {
            for (int round = 0; round < 2_000; round++) {
                AtomicInteger runs = new AtomicInteger();
                WheelTimeout node = new WheelTimeout(runs::incrementAndGet);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    attempts.add(threads.submit(() -> {
                        go.await();
                        try {
                            timer.schedule(node, 1_000_000);
                            return true;
                        } catch (IllegalStateException expected) {
                            return false;
                        }
                    }));
                }
                go.countDown();
                int successes = 0;
                for (Future<Boolean> attempt : attempts) {
                    successes += attempt.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                clock.advanceNanos(1_000_000);
                assertEquals(1, successes, "round " + round);
                assertEquals(1, runs.get(), "round " + round);
            }
            assertEquals(0, timer.stats().pending());
        } finally {
            timer.stop();
        }
    }

    /**
     * Eight threads schedule while a ninth stops the timer, on a fresh timer that starts lazily, 300 times over, so
     * that the stop lands before, during and after the worker thread's start. The clock stands still, so nothing fires:
     * every timeout whose schedule call returned must come back from {@code stop()} still waiting, and none whose call
     * threw {@link RejectedExecutionException} may.
     */
    @Test
    void schedule_racingStopAndLazyStart_everyAcceptedTimeoutComesBackFromStop() throws Exception {
        int perThread = 50;
        for (int round = 0; round < 300; round++) {
            HashedWheelTimer timer = HashedWheelTimer.builder().ticker(new ManualClock()).ticksPerWheel(64).build();
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Map<TimerFuture, Boolean>>> producers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                producers.add(threads.submit(() -> {
                    Map<TimerFuture, Boolean> acceptedByNode = new HashMap<>();
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        WheelTimeout node = new WheelTimeout(() -> { });
                        try {
                            timer.schedule(node, TimeUnit.HOURS.toNanos(1));
                            acceptedByNode.put(node, true);
                        } catch (RejectedExecutionException e) {
                            acceptedByNode.put(node, false);
                        }
                    }
                    return acceptedByNode;
                }));
            }
            int spins = ThreadLocalRandom.current().nextInt(20_000);
            Future<List<TimerFuture>> stopper = threads.submit(() -> {
                go.await();
                for (int i = 0; i < spins; i++) {
                    Thread.onSpinWait();
                }
                return timer.stop();
            });
            go.countDown();
            Set<TimerFuture> returned = new HashSet<>(stopper.get(60, TimeUnit.SECONDS));
            for (Future<Map<TimerFuture, Boolean>> producer : producers) {
                for (Map.Entry<TimerFuture, Boolean> e : producer.get(60, TimeUnit.SECONDS).entrySet()) {
                    TimerFuture node = e.getKey();
                    boolean accepted = e.getValue();
                    boolean comesBackWaiting = returned.contains(node) && node.isPending();
                    assertEquals(accepted, comesBackWaiting, "round " + round + " (" + spins + " spins), "
                            + (accepted ? "accepted but lost: " : "rejected but returned: ") + node);
                }
            }
        }
    }
}
