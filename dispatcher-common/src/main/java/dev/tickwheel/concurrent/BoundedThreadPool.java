package dev.tickwheel.concurrent;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Builds the bounded pool that runs dispatch work off the wheel's tick thread: a fixed number of named
 * threads, an {@link ArrayBlockingQueue} of fixed capacity, and {@link ThreadPoolExecutor.AbortPolicy}, so a
 * full pool throws {@link RejectedExecutionException} at once instead of blocking the caller or dropping work
 * silently. The timing wheel catches it and defers the work to a later tick.
 *
 * <p>The pool is a plain {@link ThreadPoolExecutor}; its threads are named {@code tickwheel-<role>-<n>}, are
 * not daemon threads (an in-flight dispatch finishes on JVM shutdown if the owner waits for it) and retire
 * after {@link #KEEP_ALIVE_SECONDS} idle, so an idle pool holds no threads.
 *
 * <p>Thread-safe (the factory is stateless; the pool is a JDK executor).
 *
 * <p>Caveats: the queue is allocated whole at creation ({@code queueCapacity} references); the owner must
 * shut the pool down.
 */
public final class BoundedThreadPool {

    /** The most threads a pool may have: 1 024. */
    public static final int MAX_THREADS = 1_024;
    /** The largest queue a pool may have: 1 048 576 tasks (8 MiB of references). */
    public static final int MAX_QUEUE_CAPACITY = 1 << 20;
    /** How long an idle thread lives: 60 s, longer than the 15 s loader period so steady load keeps them. */
    public static final long KEEP_ALIVE_SECONDS = 60;

    private BoundedThreadPool() {
    }

    /**
     * @param role          the thread-name role, e.g. {@code dispatch}
     * @param threads       the number of threads, 1..1024
     * @param queueCapacity how many tasks wait when every thread is busy, 1..1048576
     * @return a new pool that rejects with {@link RejectedExecutionException} when threads and queue are full
     * @throws IllegalArgumentException naming the bad value
     */
    public static ThreadPoolExecutor create(String role, int threads, int queueCapacity) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads must be in 1.." + MAX_THREADS + ", got " + threads);
        }
        if (queueCapacity < 1 || queueCapacity > MAX_QUEUE_CAPACITY) {
            throw new IllegalArgumentException(
                    "queueCapacity must be in 1.." + MAX_QUEUE_CAPACITY + ", got " + queueCapacity);
        }
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queueCapacity), new NamedThreadFactory(role, false),
                new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
