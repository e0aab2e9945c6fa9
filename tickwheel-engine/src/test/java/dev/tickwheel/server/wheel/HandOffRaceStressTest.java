package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.timer.ManualClock;
import dev.tickwheel.timer.TimerFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Cancels aimed at the moment the coarse wheel hands instances to the precise wheel: at least 10^5 races, none may
 * break the contract "cancel returns true iff the task never runs", and none may report false for an instance that
 * has not started.
 */
class HandOffRaceStressTest {

    /**
     * Manual time: 100 000 instances share one deadline; the clock jumps to the hand-off instant while two threads
     * cancel all of them. No task can start (the deadline has not come), so every cancel must win, and afterwards
     * neither wheel may hold anything.
     */
    @Test
    void cancel_racingHandOffOnManualClock_alwaysWinsAndNothingRuns() throws Exception {
        int instances = 100_000;
        ManualClock clock = new ManualClock();
        AtomicInteger runs = new AtomicInteger();
        try (InstanceTimeWheelService service = InstanceTimeWheelService.builder()
                .ticker(clock)
                .dispatchExecutor(Runnable::run)
                .coarseTick(Duration.ofMillis(10))
                .longDelayThreshold(Duration.ofMillis(50))
                .build()) {
            for (int id = 0; id < instances; id++) {
                service.schedule(id, 80, runs::incrementAndGet);
            }
            clock.awaitSettled();
            clock.advance(Duration.ofMillis(29)); // hand-off due at 30 ms
            AtomicInteger lost = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> cancellers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int first = t;
                Thread canceller = new Thread(() -> {
                    awaitQuietly(go);
                    for (int id = first; id < instances; id += 2) {
                        if (id >= instances * 9 / 10) {
                            // The last tenth after the hand-off has begun: whatever the race did (a fast cancel can
                            // finish the first nine tenths before the coarse worker moves anything), some cancels
                            // land on nodes the precise wheel holds or is taking over.
                            awaitHandOffBegun(service);
                        }
                        if (!service.cancel(id)) {
                            lost.incrementAndGet();
                        }
                    }
                });
                cancellers.add(canceller);
                canceller.start();
            }
            go.countDown();
            clock.advance(Duration.ofMillis(1)); // the coarse worker hands everything over while cancels run
            for (Thread canceller : cancellers) {
                canceller.join();
            }
            assertEquals(0, lost.get(), "cancel returned false for instances that had not started");
            clock.advance(Duration.ofMillis(100));
            assertEquals(0, runs.get(), "a cancelled instance ran");
            assertEquals(0, service.pendingCount());
            assertEquals(0, service.preciseWheelStats().pending(), "precise wheel released everything");
            assertEquals(0, service.coarseWheelStats().pending(), "coarse wheel released everything");
            assertTrue(service.preciseWheelStats().scheduled() > 0, "some cancels did land after the hand-off");
        }
    }

    /**
     * Real time: 100 batches of 1 000 instances due 40 ms out with a 20 ms threshold; cancels are spread over the
     * 2 ms around the hand-off instant. On a loaded machine a canceller can be descheduled past the deadline, so a
     * cancel may legitimately lose; the check is that the two outcomes are consistent for every instance.
     */
    @Test
    void cancel_aroundRealHandOff_outcomeMatchesWhatRan() throws Exception {
        int batches = 100;
        int perBatch = 1_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(batches * perBatch);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(batches * perBatch);
        try (InstanceTimeWheelService service = InstanceTimeWheelService.builder()
                .preciseSlots(256)
                .coarseTick(Duration.ofMillis(5))
                .coarseSlots(8)
                .longDelayThreshold(Duration.ofMillis(20))
                .dispatchThreads(2)
                .build()) {
            for (int batch = 0; batch < batches; batch++) {
                int base = batch * perBatch;
                long scheduledAt = System.nanoTime();
                for (int i = 0; i < perBatch; i++) {
                    int id = base + i;
                    service.schedule(id, 40, () -> runs.incrementAndGet(id));
                }
                long handOffAt = scheduledAt + TimeUnit.MILLISECONDS.toNanos(20);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread[] cancellers = new Thread[2];
                for (int t = 0; t < 2; t++) {
                    int first = t;
                    cancellers[t] = new Thread(() -> {
                        try {
                            for (int i = first; i < perBatch; i += 2) {
                                // From 1 ms before to 1 ms after the hand-off, in ID order.
                                long aim = handOffAt - 1_000_000 + 2_000_000L * i / perBatch;
                                while (System.nanoTime() < aim) {
                                    Thread.onSpinWait();
                                }
                                if (service.cancel(base + i)) {
                                    cancelled.incrementAndGet(base + i);
                                }
                            }
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    });
                    cancellers[t].start();
                }
                for (Thread canceller : cancellers) {
                    canceller.join();
                }
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
            }
            // Wait for the last batch's survivors: every instance either started or was cancelled.
            for (int id = 0; id < batches * perBatch; id++) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (service.isPending(id) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertTrue(!service.isPending(id), "still pending after 30 s: " + id);
            }
            service.close();
        }
        int violations = 0;
        int cancelWins = 0;
        for (int id = 0; id < batches * perBatch; id++) {
            cancelWins += cancelled.get(id);
            boolean consistent = cancelled.get(id) == 1 ? runs.get(id) == 0 : runs.get(id) == 1;
            if (!consistent) {
                violations++;
            }
        }
        assertEquals(0, violations, "instances whose cancel outcome disagrees with whether they ran");
        assertTrue(cancelWins > batches * perBatch / 2, "most cancels landed before the deadline: " + cancelWins);
    }

    private static void awaitHandOffBegun(InstanceTimeWheelService service) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (service.preciseWheelStats().scheduled() == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no hand-off 30 s after the clock reached it");
            }
            Thread.onSpinWait();
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
