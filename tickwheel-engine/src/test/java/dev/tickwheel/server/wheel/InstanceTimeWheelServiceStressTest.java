package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tickwheel.server.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Many threads scheduling and cancelling at once on real time, with a shortened configuration so that both wheels and
 * the hand-off between them are exercised within seconds.
 *
 * <p>The assertions are about ordering and counting, not about how late a task runs: every task whose cancel did not
 * return {@code true} runs exactly once and never before its deadline; every task whose cancel returned {@code true}
 * never runs; nothing is left pending.
 */
class InstanceTimeWheelServiceStressTest {

    private static final int THREADS = 8;
    private static final int OPS_PER_THREAD = 125_000; // 10^6 operations in all

    private static InstanceTimeWheelService shortService() {
        return InstanceTimeWheelService.builder()
                .preciseTick(Duration.ofMillis(1))
                .preciseSlots(256)
                .coarseTick(Duration.ofMillis(100))
                .coarseSlots(8)
                .longDelayThreshold(Duration.ofMillis(500))
                .dispatchThreads(4)
                .dispatchQueueCapacity(8192)
                .build();
    }

    @Test
    void scheduleAndCancel_8ThreadsMillionOps_exactlyOnceNeverEarlyAndCancelHonoured() throws Exception {
        int ids = THREADS * OPS_PER_THREAD;
        Ledger ledger = new Ledger(ids);
        int[] scheduledPerThread = new int[THREADS];
        int[] cancelWinsPerThread = new int[THREADS];

        try (InstanceTimeWheelService service = shortService()) {
            runTogether(THREADS, "stress-", (thread, random) -> {
                int nextOwnId = thread * OPS_PER_THREAD;
                for (int op = 0; op < OPS_PER_THREAD; op++) {
                    if (random.nextInt(10) < 6) {
                        int id = nextOwnId++;
                        long delayMs = switch (random.nextInt(3)) {
                            case 0 -> random.nextInt(10);     // due now or within a few ticks
                            case 1 -> random.nextInt(500);    // precise wheel
                            default -> 500 + random.nextInt(2500); // coarse wheel, then hand-off
                        };
                        ledger.schedule(service, id, delayMs);
                        scheduledPerThread[thread]++;
                    } else {
                        // Any thread's ID, scheduled or not, pending or already run.
                        int id = random.nextInt(Math.max(1, nextOwnId + 1 + random.nextInt(ids - nextOwnId)));
                        if (ledger.cancel(service, id)) {
                            cancelWinsPerThread[thread]++;
                        }
                    }
                }
            });
            int totalScheduled = 0;
            int totalCancelled = 0;
            for (int t = 0; t < THREADS; t++) {
                totalScheduled += scheduledPerThread[t];
                totalCancelled += cancelWinsPerThread[t];
            }
            int expectedRuns = totalScheduled - totalCancelled;
            assertTrue(ledger.ran.tryAcquire(expectedRuns, 60, TimeUnit.SECONDS),
                    "only " + ledger.ran.availablePermits() + " of " + expectedRuns + " tasks ran within 60 s");

            assertEquals(0, service.pendingCount(), "pendingCount");
            assertEquals(0, service.preciseWheelStats().pending(), "precise wheel pending");
            assertEquals(0, service.coarseWheelStats().pending(), "coarse wheel pending");

            ledger.assertEachRanOnceUnlessCancelled();
            assertTrue(totalScheduled > 500_000 && totalCancelled > 10_000,
                    "the mix exercised both paths: scheduled=" + totalScheduled + " cancelled=" + totalCancelled);
        }
    }

    /**
     * Instances due at once overflow a small dispatch queue, so the precise wheel keeps refusing and retrying
     * (deferring) them while producers schedule more and cancel some of the deferred ones: every instance still runs
     * exactly once unless its cancel won, a cancelled one never runs, and every slot is given back. Why it is safe: a
     * refused dispatch is taken back before the wheel keeps the slot ({@code Dispatch.abandon}, a compare-and-set
     * against the run), so the slot has exactly one holder, the wheel's deferred list, until a retry is accepted; the
     * list is read ahead of each submit, because an accepted dispatch may release the slot at once.
     */
    @Test
    void saturatedDispatchQueue_4ThreadsDeferAndCancel_exactlyOnceAndEverySlotGivenBack() throws Exception {
        int producers = 4;
        int perThread = 50_000;
        int ids = producers * perThread;
        Ledger ledger = new Ledger(ids);
        int[] cancelWinsPerThread = new int[producers];

        try (InstanceTimeWheelService service = InstanceTimeWheelService.builder()
                .dispatchThreads(2)
                .dispatchQueueCapacity(16)
                .build()) {
            runTogether(producers, "saturating-", (thread, random) -> {
                for (int i = 0; i < perThread; i++) {
                    int id = thread * perThread + i;
                    long delayMs = random.nextInt(4); // due now or within a few ticks: all at once
                    ledger.schedule(service, id, delayMs);
                    if (i >= 64 && random.nextInt(5) == 0) {
                        // One of this thread's recent instances: most still wait, many in the deferred list.
                        int victim = id - random.nextInt(64);
                        if (ledger.cancel(service, victim)) {
                            cancelWinsPerThread[thread]++;
                        }
                    }
                }
            });
            int cancelled = ledger.assertSettled(service, cancelWinsPerThread);
            assertTrue(service.preciseWheelStats().deferred() > 1_000,
                    "the dispatch queue overflowed, so the deferred path ran: " + service.preciseWheelStats());
            assertTrue(cancelled > 1_000, "cancels won against waiting and deferred instances: " + cancelled);
        }
    }

    /**
     * A long dispatch lead (20 ms) keeps thousands of instances in the dispatch executor's delay queue while producers
     * schedule more and cancel recent ones, most of them waiting there: every instance runs exactly once and never
     * before its deadline unless its cancel won, and every slot is given back. Why it is safe: an instance in the
     * executor is still WAITING; the dispatch, at the deadline, starts it only by winning the compare-and-set against a
     * cancel, and releases the slot either way. The executor's delay is what is left to the deadline, read on the same
     * nano clock, so it never runs a dispatch early.
     */
    @Test
    void longDispatchLead_4ThreadsCancelWhileHeldInExecutor_exactlyOnceNeverEarly() throws Exception {
        int producers = 4;
        int perThread = 50_000;
        int ids = producers * perThread;
        Ledger ledger = new Ledger(ids);
        int[] cancelWinsPerThread = new int[producers];
        AtomicInteger deepestQueue = new AtomicInteger();

        try (InstanceTimeWheelService service = InstanceTimeWheelService.builder()
                .dispatchThreads(2)
                .dispatchLead(Duration.ofMillis(20))
                .build()) {
            runTogether(producers, "leading-", (thread, random) -> {
                for (int i = 0; i < perThread; i++) {
                    int id = thread * perThread + i;
                    ledger.schedule(service, id, random.nextInt(40));
                    if (i >= 256 && random.nextInt(4) == 0) {
                        int victim = id - random.nextInt(256);
                        if (ledger.cancel(service, victim)) {
                            cancelWinsPerThread[thread]++;
                        }
                    }
                    if ((i & 255) == 0) {
                        deepestQueue.accumulateAndGet(service.dispatchQueueDepth(), Math::max);
                    }
                }
            });
            int cancelled = ledger.assertSettled(service, cancelWinsPerThread);
            assertEquals(0, service.dispatchQueueDepth(), "dispatches still counted as queued");
            assertTrue(deepestQueue.get() > 1_000,
                    "instances waited out the lead in the executor: deepest queue " + deepestQueue.get());
            assertTrue(cancelled > 10_000, "cancels won against waiting instances: " + cancelled);
        }
    }

    /** What happened to each ID of a stress run: scheduled, cancels won, runs, and when it ran against its deadline. */
    private static final class Ledger {
        final AtomicIntegerArray scheduled;
        final AtomicIntegerArray cancelWins;
        final AtomicIntegerArray runs;
        final long[] notBeforeNanos;
        final long[] ranAtNanos;
        final Semaphore ran = new Semaphore(0);
        final int ids;

        Ledger(int ids) {
            this.ids = ids;
            scheduled = new AtomicIntegerArray(ids);
            cancelWins = new AtomicIntegerArray(ids);
            runs = new AtomicIntegerArray(ids);
            notBeforeNanos = new long[ids];
            ranAtNanos = new long[ids];
        }

        /** Schedules {@code id} with a task that records when it ran and counts its runs. */
        void schedule(InstanceTimeWheelService service, int id, long delayMs) {
            notBeforeNanos[id] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
            scheduled.set(id, 1);
            service.schedule(id, delayMs, () -> {
                ranAtNanos[id] = System.nanoTime();
                runs.incrementAndGet(id);
                ran.release();
            });
        }

        /** Cancels {@code id}; a win is counted against it. */
        boolean cancel(InstanceTimeWheelService service, int id) {
            if (!service.cancel(id)) {
                return false;
            }
            cancelWins.incrementAndGet(id);
            return true;
        }

        /**
         * Waits for every instance of {@code ids} whose cancel did not win to run, then checks each ID's record, that
         * nothing is pending and that every slot is given back (cancelled ones when the wheel reaches or sweeps them).
         *
         * @return the cancels that won
         */
        int assertSettled(InstanceTimeWheelService service, int[] cancelWinsPerThread) throws InterruptedException {
            int cancelled = Arrays.stream(cancelWinsPerThread).sum();
            int expectedRuns = ids - cancelled;
            assertTrue(ran.tryAcquire(expectedRuns, 60, TimeUnit.SECONDS),
                    "only " + ran.availablePermits() + " of " + expectedRuns + " tasks ran within 60 s; precise wheel "
                            + service.preciseWheelStats() + ", held " + service.heldCount());
            assertEachRanOnceUnlessCancelled();
            assertEquals(0, service.pendingCount(), "pendingCount");
            Await.until(() -> "every slot given back, " + service.heldCount() + " held", Duration.ofSeconds(30),
                    () -> service.heldCount() == 0);
            return cancelled;
        }

        /** Every scheduled instance ran exactly once, never early, unless its cancel won, and then it never ran. */
        void assertEachRanOnceUnlessCancelled() {
            int violations = 0;
            StringBuilder examples = new StringBuilder();
            for (int id = 0; id < ids; id++) {
                String problem = null;
                if (cancelWins.get(id) > 1) {
                    problem = "cancel returned true " + cancelWins.get(id) + " times";
                } else if (scheduled.get(id) == 0 && (runs.get(id) != 0 || cancelWins.get(id) != 0)) {
                    problem = "never scheduled but runs=" + runs.get(id) + " cancelWins=" + cancelWins.get(id);
                } else if (cancelWins.get(id) == 1 && runs.get(id) != 0) {
                    problem = "cancel returned true but the task ran";
                } else if (scheduled.get(id) == 1 && cancelWins.get(id) == 0 && runs.get(id) != 1) {
                    problem = "ran " + runs.get(id) + " times";
                } else if (runs.get(id) == 1 && ranAtNanos[id] - notBeforeNanos[id] < 0) {
                    problem = "ran " + (notBeforeNanos[id] - ranAtNanos[id]) + " ns early";
                }
                if (problem != null && violations++ < 5) {
                    examples.append("\n  id ").append(id).append(": ").append(problem);
                }
            }
            if (violations > 0) {
                fail(violations + " violations" + examples);
            }
        }
    }

    /** One thread's part of a stress run: {@code thread} is its number, {@code random} its own generator. */
    @FunctionalInterface
    private interface Part {
        void run(int thread, ThreadLocalRandom random) throws Exception;
    }

    /** Runs {@code part} on {@code threads} threads released together; fails if any of them threw. */
    private static void runTogether(int threads, String name, Part part) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    part.run(thread, ThreadLocalRandom.current());
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + t);
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a scheduling thread failed", failure.get());
        }
    }

}
