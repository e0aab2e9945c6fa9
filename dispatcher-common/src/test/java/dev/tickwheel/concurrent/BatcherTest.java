package dev.tickwheel.concurrent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Batcher}: batch sizes, hand-over exactly once and in order, failures, close and the batch thread itself.
 * Every wait is on a latch or a condition with a bound that a passing run never reaches.
 */
class BatcherTest {

    /** How long any one wait may take before the test fails; never reached when the batcher works. */
    private static final long BOUND_SECONDS = 10;

    @Test
    void add_loneItem_isHandedOverWithoutWaitingForMore() throws InterruptedException {
        List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch handedOver = new CountDownLatch(1);
        try (Batcher<Integer> batcher = new Batcher<>("test-batch", 100, batch -> {
            batches.add(List.copyOf(batch));
            handedOver.countDown();
        }, BatcherTest::failOnFailure)) {
            batcher.add(42);

            assertTrue(handedOver.await(BOUND_SECONDS, TimeUnit.SECONDS), "a lone item waited for company");
            assertEquals(List.of(List.of(42)), batches);
        }
    }

    @Test
    void add_itemsQueuedWhileTheConsumerIsBusy_areHandedOverInBatchesOfAtMostMaxBatch() throws InterruptedException {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());
        List<Integer> items = Collections.synchronizedList(new ArrayList<>());
        try (Batcher<Integer> batcher = new Batcher<>("test-batch", 64, batch -> {
            sizes.add(batch.size());
            items.addAll(batch);
            if (batch.contains(0)) {
                firstEntered.countDown();
                awaitUninterruptibly(releaseFirst);
            }
        }, BatcherTest::failOnFailure)) {
            batcher.add(0);
            assertTrue(firstEntered.await(BOUND_SECONDS, TimeUnit.SECONDS));
            for (int i = 1; i <= 1_000; i++) {
                batcher.add(i);
            }
            assertEquals(1_000, batcher.queued());

            releaseFirst.countDown();
            assertTrue(batcher.close(BOUND_SECONDS, TimeUnit.SECONDS).isEmpty());
        }

        // The first item alone, then the 1 000 queued behind the busy consumer in full batches: 15 × 64 + 40.
        List<Integer> expected = new ArrayList<>(List.of(1));
        expected.addAll(Collections.nCopies(15, 64));
        expected.add(40);
        assertEquals(expected, sizes);
        assertEquals(IntStream.rangeClosed(0, 1_000).boxed().toList(), items);
    }

    @Test
    void add_8ProducersOf100000ItemsEach_everyItemIsHandedOverExactlyOnceInEachProducersOrder() throws Exception {
        int producers = 8;
        int perProducer = 100_000;
        int maxBatch = 256;
        // Only the batch thread writes these; close() joins it, which makes the writes visible here.
        List<Long> handedOver = new ArrayList<>(producers * perProducer);
        int[] largestBatch = new int[1];
        Batcher<Long> batcher = new Batcher<>("test-batch", maxBatch, batch -> {
            largestBatch[0] = Math.max(largestBatch[0], batch.size());
            handedOver.addAll(batch);
        }, BatcherTest::failOnFailure);
        CyclicBarrier start = new CyclicBarrier(producers);
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long producer = p;
            running.add(CompletableFuture.runAsync(() -> {
                awaitBarrier(start);
                for (long seq = 0; seq < perProducer; seq++) {
                    batcher.add(producer << 32 | seq);
                }
            }, runnable -> new Thread(runnable, "tickwheel-test-producer-" + producer).start()));
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertEquals(List.of(), batcher.close(60, TimeUnit.SECONDS));

        assertEquals(producers * perProducer, handedOver.size());
        assertTrue(largestBatch[0] <= maxBatch, "a batch of " + largestBatch[0] + " > maxBatch " + maxBatch);
        long[] next = new long[producers];
        for (long item : handedOver) {
            int producer = (int) (item >>> 32);
            long seq = item & 0xFFFF_FFFFL;
            // Each producer's items arrive in the order it added them, none missing and none twice.
            assertEquals(next[producer], seq, "producer " + producer);
            next[producer]++;
        }
    }

    static List<Throwable> consumerFailures() {
        return List.of(new IllegalStateException("consumer failed"), new AssertionError("consumer failed"),
                new StackOverflowError("consumer failed"));
    }

    @ParameterizedTest
    @MethodSource("consumerFailures")
    void consumer_throws_onFailureGetsThatBatchAndLaterItemsAreHandedOver(Throwable thrown) throws Exception {
        AtomicReference<List<String>> failedBatch = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch failed = new CountDownLatch(1);
        List<String> handedOver = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch laterHandedOver = new CountDownLatch(1);
        try (Batcher<String> batcher = new Batcher<>("test-batch", 10, batch -> {
            if (batch.contains("bad")) {
                throwUnchecked(thrown);
            }
            handedOver.addAll(batch);
            laterHandedOver.countDown();
        }, (batch, t) -> {
            failedBatch.set(batch);
            failure.set(t);
            failed.countDown();
        })) {
            batcher.add("bad");
            assertTrue(failed.await(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(List.of("bad"), failedBatch.get());
            assertSame(thrown, failure.get());

            batcher.add("good");
            assertTrue(laterHandedOver.await(BOUND_SECONDS, TimeUnit.SECONDS), "the batch thread died");
            assertEquals(List.of("good"), handedOver);
        }
    }

    @Test
    void close_itemsQueued_handsThemAllOverBeforeReturningAndReturnsNothing() throws Exception {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Integer> handedOver = Collections.synchronizedList(new ArrayList<>());
        Batcher<Integer> batcher = new Batcher<>("test-batch", 7, batch -> {
            if (batch.contains(0)) {
                firstEntered.countDown();
                awaitUninterruptibly(releaseFirst);
            }
            handedOver.addAll(batch);
        }, BatcherTest::failOnFailure);
        batcher.add(0);
        assertTrue(firstEntered.await(BOUND_SECONDS, TimeUnit.SECONDS));
        for (int i = 1; i <= 100; i++) {
            batcher.add(i);
        }
        CompletableFuture<List<Integer>> closing = new CompletableFuture<>();
        Thread closer = new Thread(() -> closing.complete(batcher.close(BOUND_SECONDS, TimeUnit.SECONDS)),
                "tickwheel-test-closer");
        closer.start();
        // close() has stopped accepting items once it is waiting for the batch thread.
        awaitUntil("the closer waits for the batch thread", () -> closer.getState() == Thread.State.TIMED_WAITING);
        assertThrows(IllegalStateException.class, () -> batcher.add(101));

        releaseFirst.countDown();

        assertEquals(List.of(), closing.get(BOUND_SECONDS * 2, TimeUnit.SECONDS));
        assertEquals(IntStream.rangeClosed(0, 100).boxed().toList(), handedOver);
        assertEquals(0, batcher.queued());
    }

    @Test
    void close_consumerStuckPastTheWait_returnsTheItemsNeverHandedOverAndTheThreadEnds() throws Exception {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicReference<Thread> batchThread = new AtomicReference<>();
        List<Integer> handedOver = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        Batcher<Integer> batcher = new Batcher<>("test-batch", 10, batch -> {
            handedOver.addAll(batch);
            batchThread.set(Thread.currentThread());
            firstEntered.countDown();
            try {
                never.await(); // a consumer that honours interrupts
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }, (batch, failure) -> failures.add(failure));
        batcher.add(0);
        assertTrue(firstEntered.await(BOUND_SECONDS, TimeUnit.SECONDS));
        for (int i = 1; i <= 20; i++) {
            batcher.add(i);
        }

        // The consumer never returns by itself, so this wait runs out on any machine.
        List<Integer> left = batcher.close(20, TimeUnit.MILLISECONDS);

        assertEquals(IntStream.rangeClosed(1, 20).boxed().toList(), left);
        batchThread.get().join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertFalse(batchThread.get().isAlive(), "the batch thread outlived close");
        assertEquals(List.of(0), handedOver);
        assertEquals(1, failures.size());
        assertEquals(0, batcher.queued());
    }

    @Test
    void close_consumerClearsTheInterrupt_theThreadStillEndsAndHandsOverNothingClosedReturned() throws Exception {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch closeReturned = new CountDownLatch(1);
        AtomicReference<Thread> batchThread = new AtomicReference<>();
        List<Integer> handedOver = Collections.synchronizedList(new ArrayList<>());
        Batcher<Integer> batcher = new Batcher<>("test-batch", 10, batch -> {
            handedOver.addAll(batch);
            batchThread.set(Thread.currentThread());
            firstEntered.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                // Catching InterruptedException clears the flag; many libraries do so and throw something else.
                throw new IllegalStateException("interrupted", e);
            }
        }, (batch, failure) -> awaitUninterruptibly(closeReturned)); // runs on only after close has returned
        batcher.add(0);
        assertTrue(firstEntered.await(BOUND_SECONDS, TimeUnit.SECONDS));
        for (int i = 1; i <= 20; i++) {
            batcher.add(i);
        }

        List<Integer> left = batcher.close(20, TimeUnit.MILLISECONDS);
        closeReturned.countDown();

        assertEquals(IntStream.rangeClosed(1, 20).boxed().toList(), left);
        batchThread.get().join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertFalse(batchThread.get().isAlive(), "the batch thread is stuck after close gave up on it");
        assertEquals(List.of(0), handedOver, "items returned by close must not be handed over too");
    }

    @Test
    void onFailure_throwsToo_theBatchThreadSurvivesAndLaterItemsAreHandedOver() throws InterruptedException {
        CountDownLatch laterHandedOver = new CountDownLatch(1);
        AtomicInteger onFailureCalls = new AtomicInteger();
        AtomicReference<Thread> batchThread = new AtomicReference<>();
        List<Throwable> uncaught = Collections.synchronizedList(new ArrayList<>());
        try (Batcher<String> batcher = new Batcher<>("test-batch", 10, batch -> {
            batchThread.set(Thread.currentThread());
            Thread.currentThread().setUncaughtExceptionHandler((thread, t) -> uncaught.add(t));
            if (batch.contains("bad")) {
                throw new IllegalStateException("consumer failed");
            }
            laterHandedOver.countDown();
        }, (batch, failure) -> {
            onFailureCalls.incrementAndGet();
            throw new IllegalArgumentException("onFailure failed too");
        })) {
            batcher.add("bad");
            awaitUntil("onFailure ran", () -> onFailureCalls.get() == 1);
            batcher.add("good");

            assertTrue(laterHandedOver.await(BOUND_SECONDS, TimeUnit.SECONDS), "the batch thread died");
            assertTrue(batchThread.get().isAlive());
            // What onFailure threw is reported to the thread's handler, not lost.
            assertEquals(1, uncaught.size());
            assertTrue(uncaught.get(0) instanceof IllegalArgumentException, uncaught.toString());
        }
    }

    @Test
    void add_afterClose_throwsIllegalStateException() {
        Batcher<String> batcher = new Batcher<>("test-batch", 10, batch -> { }, BatcherTest::failOnFailure);
        batcher.close(BOUND_SECONDS, TimeUnit.SECONDS);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> batcher.add("late"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void close_twice_theSecondCallReturnsNothingAndDoesNotThrow() throws InterruptedException {
        CountDownLatch handedOver = new CountDownLatch(3);
        Batcher<String> batcher = new Batcher<>("test-batch", 10,
                batch -> batch.forEach(item -> handedOver.countDown()), BatcherTest::failOnFailure);
        batcher.add("a");
        batcher.add("b");
        batcher.add("c");

        assertEquals(List.of(), batcher.close(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of(), batcher.close(BOUND_SECONDS, TimeUnit.SECONDS));
        batcher.close();
        assertTrue(handedOver.await(0, TimeUnit.SECONDS));
        assertEquals(0, batcher.queued());
    }

    @Test
    void idle_theBatchThreadIsBlockedWithoutATimeoutNotPolling() throws InterruptedException {
        AtomicReference<Thread> batchThread = new AtomicReference<>();
        CountDownLatch handedOver = new CountDownLatch(1);
        try (Batcher<String> batcher = new Batcher<>("test-batch", 10, batch -> {
            batchThread.set(Thread.currentThread());
            handedOver.countDown();
        }, BatcherTest::failOnFailure)) {
            batcher.add("wake up");
            assertTrue(handedOver.await(BOUND_SECONDS, TimeUnit.SECONDS));

            // A polling loop would show TIMED_WAITING (poll with a timeout, or a sleep) or RUNNABLE.
            awaitUntil(() -> "idle batch thread is " + batchThread.get().getState(),
                    () -> batchThread.get().getState() == Thread.State.WAITING);
        }
    }

    @Test
    void constructor_startsOneDaemonThreadNamedTickwheelRole1() throws InterruptedException {
        AtomicReference<Thread> batchThread = new AtomicReference<>();
        CountDownLatch handedOver = new CountDownLatch(1);
        try (Batcher<String> batcher = new Batcher<>("claim", 10, batch -> {
            batchThread.set(Thread.currentThread());
            handedOver.countDown();
        }, BatcherTest::failOnFailure)) {
            batcher.add("x");
            assertTrue(handedOver.await(BOUND_SECONDS, TimeUnit.SECONDS));

            assertEquals("tickwheel-claim-1", batchThread.get().getName());
            assertTrue(batchThread.get().isDaemon(), "a batch thread must not keep the JVM alive");
        }
    }

    @Test
    void constructor_maxBatchBelow1_throwsNamingTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Batcher<String>("test-batch", 0, batch -> { }, BatcherTest::failOnFailure));
        assertTrue(e.getMessage().contains("maxBatch") && e.getMessage().contains("0"), e.getMessage());
    }

    /**
     * An add that returns normally was accepted, so close must either hand the item over or return it, however the
     * add and close interleave: none may vanish. Many rounds; in each, producers are adding (at most 20 000 items
     * each, to bound the round on a busy machine) when close is called.
     */
    @Test
    void add_racingClose_everyAcceptedItemIsHandedOverOrReturnedExactlyOnce() throws Exception {
        int producers = 4;
        int mostPerProducer = 20_000;
        for (int round = 0; round < 100; round++) {
            ConcurrentLinkedQueue<Long> handedOver = new ConcurrentLinkedQueue<>();
            Batcher<Long> batcher = new Batcher<>("test-batch", 32, handedOver::addAll, BatcherTest::failOnFailure);
            CountDownLatch producing = new CountDownLatch(producers);
            List<CompletableFuture<List<Long>>> accepted = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                long producer = p;
                CompletableFuture<List<Long>> mine = new CompletableFuture<>();
                accepted.add(mine);
                new Thread(() -> {
                    List<Long> ok = new ArrayList<>();
                    try {
                        for (long seq = 0; seq < mostPerProducer; seq++) {
                            batcher.add(producer << 32 | seq);
                            ok.add(producer << 32 | seq);
                            if (seq == 1_000) {
                                producing.countDown();
                            }
                        }
                    } catch (IllegalStateException closed) {
                        // refused from now on
                    } catch (Throwable t) {
                        mine.completeExceptionally(t);
                    }
                    producing.countDown(); // in case close came before the 1 000th item
                    mine.complete(ok);
                }, "tickwheel-test-producer-" + p).start();
            }
            assertTrue(producing.await(BOUND_SECONDS, TimeUnit.SECONDS));

            List<Long> left = batcher.close(BOUND_SECONDS, TimeUnit.SECONDS);

            Set<Long> seen = new HashSet<>();
            for (Long item : handedOver) {
                assertTrue(seen.add(item), "handed over twice: " + item);
            }
            for (Long item : left) {
                assertTrue(seen.add(item), "returned by close and also handed over: " + item);
            }
            for (CompletableFuture<List<Long>> mine : accepted) {
                for (Long item : mine.get(BOUND_SECONDS, TimeUnit.SECONDS)) {
                    if (!seen.contains(item)) {
                        fail("round " + round + ": item " + item + " was accepted but neither handed over nor"
                                + " returned by close");
                    }
                }
            }
        }
    }

    private static void failOnFailure(List<?> batch, Throwable failure) {
        throw new AssertionError("unexpected failure of batch " + batch, failure);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!latch.await(BOUND_SECONDS * 3, TimeUnit.SECONDS)) {
                        throw new AssertionError("latch never opened");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitUntil(String what, BooleanSupplier condition) {
        awaitUntil(() -> what, condition);
    }

    private static void awaitUntil(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + BOUND_SECONDS + " s: " + what.get());
            }
            LockSupport.parkNanos(1_000_000); // the bound, not this pause, is the timeout
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }
}
