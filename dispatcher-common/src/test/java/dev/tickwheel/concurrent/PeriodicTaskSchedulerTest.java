package dev.tickwheel.concurrent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives real schedules with a 1 ms period and waits for events (latches with a generous timeout), never for
 * a fixed time.
 */
class PeriodicTaskSchedulerTest {

    private static final Duration ONE_MS = Duration.ofMillis(1);
    private static final long AWAIT_SECONDS = 10;

    private final List<String> failedNames = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final PeriodicTaskScheduler scheduler = new PeriodicTaskScheduler("loader", 2,
            (name, failure) -> {
                failedNames.add(name);
                failures.add(failure);
            }, Duration.ofSeconds(5));

    @AfterEach
    void closeScheduler() {
        scheduler.close();
    }

    @Test
    void scheduleAtFixedRate_taskThrowsEveryRun_keepsRunningOnSchedule() throws InterruptedException {
        CountDownLatch twentyRuns = new CountDownLatch(20);
        RuntimeException boom = new IllegalStateException("store unavailable");

        scheduler.scheduleAtFixedRate("job-loader", () -> {
            twentyRuns.countDown();
            throw boom;
        }, Duration.ZERO, ONE_MS);

        assertTrue(twentyRuns.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the schedule died after a throw");
        PeriodicTaskStats stats = scheduler.stats("job-loader").orElseThrow();
        assertTrue(stats.failures() >= 19, "failures " + stats.failures());
        assertTrue(failures.size() >= 19, "listener saw " + failures.size());
        failures.forEach(failure -> assertSame(boom, failure));
        failedNames.forEach(name -> assertEquals("job-loader", name));
    }

    @Test
    void runOnce_onOneThread_neverOverlapsThePeriodicTask_andReportsItsFailure() throws InterruptedException {
        CountDownLatch brokenReported = new CountDownLatch(1);
        try (PeriodicTaskScheduler single = new PeriodicTaskScheduler("loader", 1, (name, t) -> {
            if (name.equals("broken")) {
                brokenReported.countDown();
            }
        }, Duration.ofSeconds(5))) {
            AtomicInteger running = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            CountDownLatch onceRuns = new CountDownLatch(50);
            Runnable guarded = () -> {
                if (running.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                running.decrementAndGet();
            };
            single.scheduleAtFixedRate("pass", guarded, Duration.ZERO, Duration.ofMillis(1));
            for (int i = 0; i < 50; i++) {
                single.runOnce("recovery", () -> {
                    guarded.run();
                    onceRuns.countDown();
                });
            }
            single.runOnce("broken", () -> {
                throw new IllegalStateException("boom");
            });
            assertTrue(onceRuns.await(AWAIT_SECONDS, TimeUnit.SECONDS));
            assertTrue(brokenReported.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the one-off failure was reported");
            assertEquals(0, overlaps.get());
        }
    }

    @Test
    void runOnceAfter_runsOnceNotBeforeItsDelay_reportsItsFailure_negativeDelayRefused() throws InterruptedException {
        CountDownLatch brokenReported = new CountDownLatch(1);
        try (PeriodicTaskScheduler single = new PeriodicTaskScheduler("loader", 1, (name, t) -> {
            if (name.equals("broken")) {
                brokenReported.countDown();
            }
        }, Duration.ofSeconds(5))) {
            CountDownLatch ran = new CountDownLatch(1);
            AtomicInteger runs = new AtomicInteger();
            long askedAt = System.nanoTime();
            AtomicLong ranAfterNanos = new AtomicLong();
            single.runOnceAfter("settle", () -> {
                ranAfterNanos.set(System.nanoTime() - askedAt);
                runs.incrementAndGet();
                ran.countDown();
            }, Duration.ofMillis(30));
            single.runOnceAfter("broken", () -> {
                throw new IllegalStateException("boom");
            }, Duration.ZERO);
            assertTrue(ran.await(AWAIT_SECONDS, TimeUnit.SECONDS));
            assertTrue(brokenReported.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the delayed failure was reported");
            // The executor's own promise (never before the delay), not a timing measurement of this machine.
            assertTrue(ranAfterNanos.get() >= TimeUnit.MILLISECONDS.toNanos(30), ranAfterNanos.get() + " ns");
            assertEquals(1, runs.get());
            assertThrows(IllegalArgumentException.class,
                    () -> single.runOnceAfter("negative", () -> { }, Duration.ofMillis(-1)));
        }
    }

    @Test
    void jdkScheduledExecutor_taskThrows_stopsForGood() throws InterruptedException {
        // The trap this class exists for, shown on the bare JDK executor.
        ScheduledThreadPoolExecutor bare = new ScheduledThreadPoolExecutor(1);
        AtomicInteger runs = new AtomicInteger();
        try {
            ScheduledFuture<?> future = bare.scheduleAtFixedRate(() -> {
                runs.incrementAndGet();
                throw new IllegalStateException("once");
            }, 0, 1, TimeUnit.MILLISECONDS);

            assertThrows(ExecutionException.class, () -> future.get(AWAIT_SECONDS, TimeUnit.SECONDS));
            assertTrue(future.isDone());
            assertEquals(1, runs.get());
        } finally {
            bare.shutdownNow();
            assertTrue(bare.awaitTermination(AWAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    @Test
    void scheduleAtFixedRate_taskThrowsError_keepsRunning() throws InterruptedException {
        CountDownLatch tenRuns = new CountDownLatch(10);

        scheduler.scheduleAtFixedRate("error-task", () -> {
            tenRuns.countDown();
            throw new AssertionError("an Error, not an Exception");
        }, Duration.ZERO, ONE_MS);

        assertTrue(tenRuns.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the schedule died after an Error");
        assertTrue(failures.stream().allMatch(AssertionError.class::isInstance));
        assertTrue(scheduler.stats("error-task").orElseThrow().failures() >= 9);
    }

    @Test
    void scheduleAtFixedRate_taskFailsEveryOtherRun_countsRunsAndFailuresSeparately() throws InterruptedException {
        AtomicInteger run = new AtomicInteger();
        CountDownLatch tenRuns = new CountDownLatch(10);

        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate("flaky", () -> {
            int n = run.incrementAndGet();
            tenRuns.countDown();
            if (n % 2 == 0) {
                throw new IllegalStateException("run " + n);
            }
        }, Duration.ZERO, ONE_MS);
        assertTrue(tenRuns.await(AWAIT_SECONDS, TimeUnit.SECONDS));
        future.cancel(false);
        // Wait for a run that was under way when cancel() returned: counters settle once runs == attempts.
        awaitRunsEqualAttempts("flaky", run);

        PeriodicTaskStats stats = scheduler.stats("flaky").orElseThrow();
        assertEquals(run.get(), stats.runs());
        assertEquals(run.get() / 2, stats.failures());
    }

    @Test
    void scheduleAtFixedRate_listenerThrows_scheduleStaysAlive() throws InterruptedException {
        CountDownLatch fiveRuns = new CountDownLatch(5);
        try (PeriodicTaskScheduler brokenListener = new PeriodicTaskScheduler("loader", 1,
                (name, failure) -> {
                    throw new IllegalStateException("listener bug");
                }, Duration.ofSeconds(5))) {
            Thread.UncaughtExceptionHandler quiet = (thread, failure) -> { };
            brokenListener.scheduleAtFixedRate("task", () -> {
                Thread.currentThread().setUncaughtExceptionHandler(quiet); // keep the test output clean
                fiveRuns.countDown();
                throw new IllegalStateException("task bug");
            }, Duration.ZERO, ONE_MS);

            assertTrue(fiveRuns.await(AWAIT_SECONDS, TimeUnit.SECONDS), "a throwing listener killed the schedule");
        }
    }

    @Test
    void scheduleAtFixedRate_runsOnNamedDaemonThreads() throws InterruptedException {
        AtomicReference<Thread> runner = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);

        scheduler.scheduleAtFixedRate("names", () -> {
            runner.set(Thread.currentThread());
            ran.countDown();
        }, Duration.ZERO, Duration.ofHours(1));

        assertTrue(ran.await(AWAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(runner.get().getName().matches("tickwheel-loader-\\d+"), runner.get().getName());
        assertTrue(runner.get().isDaemon());
    }

    @Test
    void scheduleAtFixedRate_nameInUse_throwsUntilCancelled() {
        ScheduledFuture<?> first = scheduler.scheduleAtFixedRate("unique", () -> { }, Duration.ofHours(1), ONE_MS);

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate("unique", () -> { }, Duration.ofHours(1), ONE_MS));
        first.cancel(false);
        ScheduledFuture<?> second = scheduler.scheduleAtFixedRate("unique", () -> { }, Duration.ofHours(1), ONE_MS);

        assertEquals("task name 'unique' is already scheduled; cancel it first", failure.getMessage());
        assertFalse(second.isDone());
    }

    @Test
    void scheduleAtFixedRate_badArguments_throwNamingTheValue() {
        IllegalArgumentException zeroPeriod = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate("t", () -> { }, Duration.ZERO, Duration.ZERO));
        IllegalArgumentException negativeDelay = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate("t", () -> { }, Duration.ofMillis(-1), ONE_MS));
        IllegalArgumentException hugePeriod = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate("t", () -> { }, Duration.ZERO, Duration.ofDays(1_000_000)));
        IllegalArgumentException blankName = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate(" ", () -> { }, Duration.ZERO, ONE_MS));

        assertEquals("period must be in (PT0S, PT8784H], got PT0S", zeroPeriod.getMessage());
        assertEquals("initialDelay must be in [PT0S, PT8784H], got PT-0.001S", negativeDelay.getMessage());
        assertEquals("period must be in (PT0S, PT8784H], got PT24000000H", hugePeriod.getMessage());
        assertEquals("name must not be blank, got ' '", blankName.getMessage());
        assertTrue(scheduler.stats("t").isEmpty());
        assertTrue(scheduler.stats(" ").isEmpty());
    }

    @Test
    void constructor_zeroThreads_throwsNamingValue() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> new PeriodicTaskScheduler("loader", 0, (name, t) -> { }, Duration.ZERO));

        assertEquals("threads must be at least 1, got 0", failure.getMessage());
    }

    @Test
    void close_thenSchedule_rejectsAndFreesTheName() {
        scheduler.close();

        assertThrows(RejectedExecutionException.class,
                () -> scheduler.scheduleAtFixedRate("late", () -> { }, Duration.ZERO, ONE_MS));
        assertTrue(scheduler.stats("late").isEmpty());
    }

    @Test
    void close_taskBlockedPastTimeout_interruptsItAndReturns() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        PeriodicTaskScheduler shortTimeout = new PeriodicTaskScheduler("loader", 1, (n, t) -> { }, ONE_MS);
        shortTimeout.scheduleAtFixedRate("stuck", () -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
            }
        }, Duration.ZERO, Duration.ofHours(1));
        assertTrue(started.await(AWAIT_SECONDS, TimeUnit.SECONDS));

        shortTimeout.close();

        assertTrue(interrupted.await(AWAIT_SECONDS, TimeUnit.SECONDS), "close() did not interrupt the stuck task");
    }

    @Test
    void close_callerInterrupted_interruptsTasksAndKeepsCallersFlag() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        scheduler.scheduleAtFixedRate("stuck", () -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
            }
        }, Duration.ZERO, Duration.ofHours(1));
        assertTrue(started.await(AWAIT_SECONDS, TimeUnit.SECONDS));

        Thread.currentThread().interrupt();
        scheduler.close();

        assertTrue(Thread.interrupted(), "close() swallowed the caller's interrupt");
        assertTrue(interrupted.await(AWAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void scheduleAtFixedRate_taskThrowsAfterInterrupt_keepsTheInterruptFlagForThePool() throws InterruptedException {
        CountDownLatch reported = new CountDownLatch(1);
        AtomicReference<Boolean> flagInListener = new AtomicReference<>();
        try (PeriodicTaskScheduler probing = new PeriodicTaskScheduler("loader", 1, (name, failure) -> {
            flagInListener.set(Thread.currentThread().isInterrupted());
            reported.countDown();
        }, Duration.ofSeconds(5))) {
            probing.scheduleAtFixedRate("wrapped-interrupt", () -> {
                throw new IllegalStateException("wrapped", new InterruptedException("from a blocking call"));
            }, Duration.ZERO, Duration.ofHours(1));

            assertTrue(reported.await(AWAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(Boolean.TRUE, flagInListener.get());
        }
    }

    private void awaitRunsEqualAttempts(String name, AtomicInteger attempts) throws InterruptedException {
        CountDownLatch settled = new CountDownLatch(1);
        // Poll on the scheduler's own thread, an event-driven check rather than a sleep in the test thread.
        ScheduledFuture<?> probe = scheduler.scheduleAtFixedRate(name + "-probe", () -> {
            if (scheduler.stats(name).orElseThrow().runs() == attempts.get()) {
                settled.countDown();
            }
        }, Duration.ZERO, ONE_MS);
        try {
            assertTrue(settled.await(AWAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            probe.cancel(false);
        }
    }
}
