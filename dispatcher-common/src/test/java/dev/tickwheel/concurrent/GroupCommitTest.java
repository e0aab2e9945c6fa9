package dev.tickwheel.concurrent;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GroupCommit}: each caller gets its own item's result, and only after its batch was written; a failed write
 * fails its batch only; and close returns as soon as the writes in progress are done (every writer thread must get its
 * own stop marker: a writer that drained a second one once left the other waiting for close's whole wait).
 */
class GroupCommitTest {

    /** close()'s wait: a working close returns long before it. */
    private static final long CLOSE_WAIT_SECONDS = 4;
    private static final long BOUND_SECONDS = 10;
    /**
     * Rounds of the race below. Whether the idle writer wakes before or after the second marker is queued is up to
     * the scheduler (about half the rounds each way here, on 2 cores); ten rounds make a miss of the bug unlikely,
     * and cost a working close a few milliseconds each.
     */
    private static final int ROUNDS = 10;

    /**
     * One writer is busy with a batch and the other idle when close() queues its two stop markers. The idle writer
     * wakes on the first marker; the bug: if the second is queued by then, it drains it along with the first
     * ({@code queue.drainTo(taken, maxBatch - 1)} in {@code run()}) and stops, so the busy writer, once its batch is
     * written, finds no marker left and blocks in {@code queue.take()} until close() has waited its whole wait and
     * interrupts it. Two idle writers race the same way. In the server this is {@code JobService.close()} and
     * {@code InstanceService.close()} (two writers each) taking their full 10 s on a graceful stop: SIGTERM of an idle
     * server process measured at 0.4 s, 10 s or 20 s, depending on how each close's race went.
     */
    @Test
    void close_oneWriterBusyOneIdle_returnsOnceTheBusyBatchIsWritten_notAfterTheWholeWait() throws Exception {
        for (int round = 1; round <= ROUNDS; round++) {
            long tookMs = closeWithOneWriterBusy("group-commit-close-test-" + round);
            assertTrue(tookMs < TimeUnit.SECONDS.toMillis(CLOSE_WAIT_SECONDS) / 2, "round " + round + ": close() took "
                    + tookMs + " ms: the busy writer found no stop marker after its batch (the idle one had taken"
                    + " both) and waited in queue.take() until close() gave up and interrupted it");
        }
    }

    /**
     * Many threads submit at once, each waiting for its result: every item gets its own result (the writer doubles
     * it), batches hold several items (the point of group commit), and no batch exceeds maxBatch. Safe because each
     * pending item carries its own future and a writer completes exactly the futures of the items it took; the queue
     * hands each item to one writer only.
     */
    @Test
    void submit_manyThreads_eachGetsItsOwnResultAndBatchesForm() throws Exception {
        int threads = 16;
        int perThread = 2_000;
        List<Integer> batchSizes = new java.util.concurrent.CopyOnWriteArrayList<>();
        GroupCommit<Integer, Integer> commits = new GroupCommit<>("group-commit-stress", 2, 64, items -> {
            batchSizes.add(items.size());
            LockSupport.parkNanos(200_000); // a commit takes time: callers queue up behind it
            return items.stream().map(i -> i * 2).toList();
        });
        try {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<Integer>> wrong = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                wrong.add(pool.submit(() -> {
                    int mismatches = 0;
                    for (int i = base; i < base + perThread; i++) {
                        if (commits.submit(i).get(BOUND_SECONDS, TimeUnit.SECONDS) != i * 2) {
                            mismatches++;
                        }
                    }
                    return mismatches;
                }));
            }
            for (java.util.concurrent.Future<Integer> w : wrong) {
                assertEquals(0, w.get(60, TimeUnit.SECONDS), "every caller got its own item's result");
            }
            pool.shutdown();
        } finally {
            commits.close();
        }
        assertEquals(threads * perThread, batchSizes.stream().mapToInt(Integer::intValue).sum(), "each item once");
        assertTrue(batchSizes.stream().allMatch(n -> n <= 64), "no batch above maxBatch");
        assertTrue(batchSizes.stream().anyMatch(n -> n > 1), "concurrent items shared writes: " + batchSizes.size()
                + " writes for " + threads * perThread + " items");
    }

    @Test
    void submit_writerThrows_failsThatBatchOnlyAndTheWriterGoesOn() throws Exception {
        GroupCommit<Integer, Integer> commits = new GroupCommit<>("group-commit-fail", 1, 10, items -> {
            if (items.contains(13)) {
                throw new IllegalStateException("store down for 13");
            }
            return items;
        });
        try {
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> commits.submit(13).get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals("store down for 13", failed.getCause().getMessage());
            assertEquals(14, commits.submit(14).get(BOUND_SECONDS, TimeUnit.SECONDS), "the writer lives on");
        } finally {
            commits.close();
        }
    }

    @Test
    void submit_writerReturnsTheWrongCount_failsTheBatchNamingIt() {
        GroupCommit<Integer, Integer> commits = new GroupCommit<>("group-commit-count", 1, 10, items -> List.of());
        try {
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> commits.submit(1).get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertTrue(failed.getCause().getMessage().contains("0 results for 1 items"), failed.getCause().getMessage());
        } finally {
            commits.close();
        }
    }

    /**
     * A caller that gave up while its item was still queued (the writer busy with an earlier batch) cancelled its
     * future: the item is never written, and the items queued with it are.
     */
    @Test
    void submit_callerCancelledWhileQueued_itemIsNotWritten() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        GroupCommit<Integer, Integer> commits = new GroupCommit<>("group-commit-cancel", 1, 10, items -> {
            entered.countDown();
            awaitUninterruptibly(release);
            written.addAll(items);
            return items;
        });
        try {
            CompletableFuture<Integer> first = commits.submit(1);
            assertTrue(entered.await(BOUND_SECONDS, TimeUnit.SECONDS), "the writer never took the first item");
            CompletableFuture<Integer> abandoned = commits.submit(2);
            CompletableFuture<Integer> kept = commits.submit(3);
            assertTrue(abandoned.cancel(false));
            release.countDown();

            assertEquals(1, first.get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(3, kept.get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(List.of(1, 3), written, "the cancelled item was dropped, its neighbour written");
        } finally {
            commits.close();
        }
    }

    @Test
    void submit_afterClose_failsAtOnce() {
        GroupCommit<Integer, Integer> commits = new GroupCommit<>("group-commit-closed", 2, 10, items -> items);
        commits.close();
        java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> commits.submit(1).get(1, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof IllegalStateException, failed.toString());
        assertEquals(0, liveWriters("group-commit-closed"), "the writers stopped");
    }

    /** Returns how long close() took. */
    private static long closeWithOneWriterBusy(String role) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        GroupCommit<Integer, Integer> commits = new GroupCommit<>(role, 2, 100, items -> {
            entered.countDown();
            awaitUninterruptibly(release);
            return items;
        });
        CompletableFuture<Integer> busy = commits.submit(1);
        assertTrue(entered.await(BOUND_SECONDS, TimeUnit.SECONDS), "the first writer never took the item");

        // Let the busy writer go on only once the idle one has stopped (it stops on the first marker it takes).
        AtomicReference<Throwable> helperFailure = new AtomicReference<>();
        Thread releaser = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
                while (liveWriters(role) > 1) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("the idle writer did not stop after close(): " + liveWriters(role)
                                + " writers alive");
                    }
                    LockSupport.parkNanos(1_000_000);
                }
            } catch (Throwable t) {
                helperFailure.set(t);
            } finally {
                release.countDown();
            }
        }, "group-commit-test-releaser");
        releaser.start();

        long start = System.nanoTime();
        commits.close(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        releaser.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

        assertEquals(null, helperFailure.get());
        assertEquals(1, busy.get(BOUND_SECONDS, TimeUnit.SECONDS), "the batch in progress is written");
        return tookMs;
    }

    private static int liveWriters(String role) {
        List<Thread> writers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("tickwheel-" + role + "-") && t.isAlive()).toList();
        return writers.size();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
