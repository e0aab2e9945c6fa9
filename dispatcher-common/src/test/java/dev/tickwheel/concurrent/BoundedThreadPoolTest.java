package dev.tickwheel.concurrent;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoundedThreadPoolTest {

    @Test
    void execute_threadsAndQueueFull_rejectsAtOnce() throws InterruptedException {
        ThreadPoolExecutor pool = BoundedThreadPool.create("dispatch", 1, 2);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                running.countDown();
                awaitQuietly(release);
            });
            assertTrue(running.await(10, TimeUnit.SECONDS));
            pool.execute(() -> { });
            pool.execute(() -> { });

            assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
            assertEquals(2, pool.getQueue().size());
        } finally {
            release.countDown();
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void create_configuresNamedNonDaemonThreadsAndABoundedQueue() throws InterruptedException {
        ThreadPoolExecutor pool = BoundedThreadPool.create("dispatch", 3, 16);
        AtomicReference<Thread> worker = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                worker.set(Thread.currentThread());
                ran.countDown();
            });
            assertTrue(ran.await(10, TimeUnit.SECONDS));

            assertEquals("tickwheel-dispatch-1", worker.get().getName());
            assertFalse(worker.get().isDaemon());
            assertEquals(3, pool.getCorePoolSize());
            assertEquals(3, pool.getMaximumPoolSize());
            assertInstanceOf(ArrayBlockingQueue.class, pool.getQueue());
            assertEquals(16, pool.getQueue().remainingCapacity());
            assertInstanceOf(ThreadPoolExecutor.AbortPolicy.class, pool.getRejectedExecutionHandler());
            assertTrue(pool.allowsCoreThreadTimeOut());
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void create_badSizes_throwNamingTheValue() {
        assertEquals("threads must be in 1..1024, got 0", assertThrows(IllegalArgumentException.class,
                () -> BoundedThreadPool.create("dispatch", 0, 10)).getMessage());
        assertEquals("threads must be in 1..1024, got 1025", assertThrows(IllegalArgumentException.class,
                () -> BoundedThreadPool.create("dispatch", 1025, 10)).getMessage());
        assertEquals("queueCapacity must be in 1..1048576, got 0", assertThrows(IllegalArgumentException.class,
                () -> BoundedThreadPool.create("dispatch", 4, 0)).getMessage());
        assertEquals("queueCapacity must be in 1..1048576, got 2147483647", assertThrows(IllegalArgumentException.class,
                () -> BoundedThreadPool.create("dispatch", 4, Integer.MAX_VALUE)).getMessage());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
