package dev.tickwheel.server.dispatch;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs synchronous handler calls on a thread pool, waking a pool thread only when no thread of its own is about to look
 * for the next call.
 *
 * <p><b>Why.</b> Handing each call to the pool on its own ({@code pool.execute(call)}) wakes a parked pool thread per
 * call. Under a dispatch burst, a profile found most of the handler threads' CPU in that wake-up and the park after
 * it: more than the handlers' own work. Here a <em>runner</em>, a task on the pool, takes call after call from one
 * queue and ends only when the queue is empty. A call handed over while some runner is searching (about to take
 * the next call) wakes nobody.
 *
 * <p><b>What it keeps.</b> A queued call never waits behind a running one: a runner that takes a call while more
 * wait and no other runner is searching starts another runner before it runs its own (the call may block for
 * seconds).
 *
 * <p><b>Why no call is stranded.</b> {@link #searching} counts the runners that will poll the queue again before
 * they run a call or end: a started runner until its first poll, and a runner between two calls. Every step below is a
 * sequentially consistent read or write ({@link ConcurrentLinkedQueue}, {@link AtomicInteger}). A caller puts its call
 * in the queue, then reads {@code searching}. If it reads 0, it starts a runner, which polls after the call is in.
 * Otherwise a runner R counted then does one of three things, each after that read:
 * <ul>
 *   <li>R has not polled yet: it polls, and sees the call.</li>
 *   <li>R polled and found nothing: it stops counting, then polls once more before it ends, and sees the call.</li>
 *   <li>R polled another call: it stops counting, then checks the queue. It sees this call waiting, so it starts a
 *       runner unless another runner counts as searching. In that case the same holds for that runner, later.
 *       The chain ends, because each link takes a call.</li>
 * </ul>
 * "Sees the call" means it takes it, or another runner already did.
 *
 * <p>The pool must have as many threads as calls may be in flight (the dispatcher admits at most that many): then a
 * runner waiting for a pool thread means every thread is a runner, and as a queued call is one of the calls in flight,
 * at least one of those runners runs no call, so it takes the queued call itself.
 *
 * <p>Thread-safe.
 */
final class CallRunners {

    private final ThreadPoolExecutor pool;
    private final Queue<FutureTask<?>> calls;
    private final AtomicInteger searching = new AtomicInteger();
    private volatile boolean stopped;

    /** @param pool runs the runners: as many threads as calls may be in flight, an unbounded queue */
    CallRunners(ThreadPoolExecutor pool) {
        this(pool, new ConcurrentLinkedQueue<>());
    }

    /** As the other constructor, with the queue given: a lock-free, linearizable one (tests step through its polls). */
    CallRunners(ThreadPoolExecutor pool, Queue<FutureTask<?>> calls) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.calls = Objects.requireNonNull(calls, "calls");
    }

    /**
     * Runs {@code call} on a pool thread.
     *
     * @throws RejectedExecutionException if the pool is shut down and the call was not taken
     */
    void execute(FutureTask<?> call) {
        if (pool.isShutdown()) {
            throw new RejectedExecutionException("the handler pool is shut down");
        }
        calls.offer(call);
        if (searching.get() == 0) {
            try {
                startRunner();
            } catch (RejectedExecutionException closed) {
                if (calls.remove(call)) { // not taken by a runner still going: it will never run
                    throw closed;
                }
            }
        }
    }

    /** With the pool's {@link ThreadPoolExecutor#shutdownNow}: runners end after their current call, take no other. */
    void stop() {
        stopped = true;
    }

    private void startRunner() {
        searching.incrementAndGet(); // before it exists: a caller that reads the count until its first poll is served
        try {
            pool.execute(this::runCalls);
        } catch (RejectedExecutionException closed) {
            searching.decrementAndGet();
            throw closed;
        }
    }

    private void runCalls() {
        while (true) {
            if (stopped) {
                searching.decrementAndGet();
                return;
            }
            FutureTask<?> call = calls.poll();
            searching.decrementAndGet();
            if (call == null) {
                call = calls.poll(); // handed over while this runner still counted: its caller started no runner
                if (call == null) {
                    return;
                }
            }
            if (searching.get() == 0 && !calls.isEmpty()) {
                try {
                    startRunner(); // the next call must not wait for this one
                } catch (RejectedExecutionException closed) {
                    // shut down: the runners still going take what is queued, one after another
                }
            }
            call.run(); // a FutureTask: never throws
            Thread.interrupted(); // a deadline's interrupt that landed as the call ended must not reach the next one
            searching.incrementAndGet();
        }
    }
}
