package dev.tickwheel.timer;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A ticker that moves only when a test says so, and the waiting strategy of the timer workers that read it.
 *
 * <p>{@link #advance(Duration)} moves time and returns once every worker that uses this clock has caught up: each is
 * parked again with nothing left to do at the new time. A test therefore observes exactly what a worker does at a
 * given instant, with no sleeping and no timing margin. Waiting for the workers is bounded (10 s of real time) so
 * that a worker that never parks fails the test instead of hanging it.
 *
 * <p>Thread-safe: guarded by one lock.
 */
public final class ManualClock extends Ticker implements WorkerParker {

    private static final long SETTLE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Thread, Worker> workers = new LinkedHashMap<>();
    private long nowNanos;

    private static final class Worker {
        boolean parked;
        boolean indefinitely;
        long deadlineNanos;
        boolean permit;
    }

    public ManualClock() {
        this(0);
    }

    /** Starts the clock at an arbitrary reading (tests use values near the long range's edges). */
    public ManualClock(long startNanos) {
        this.nowNanos = startNanos;
    }

    @Override
    public long read() {
        lock.lock();
        try {
            return nowNanos;
        } finally {
            lock.unlock();
        }
    }

    /** Moves time forward and waits until every worker has caught up. */
    public void advance(Duration duration) {
        advanceNanos(duration.toNanos());
    }

    public void advanceNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("time cannot go backwards: " + nanos);
        }
        awaitSettled();
        lock.lock();
        try {
            nowNanos += nanos;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        awaitSettled();
    }

    /** Waits until every worker is parked with nothing due at the current time and no pending wake-up. */
    public void awaitSettled() {
        lock.lock();
        try {
            long remaining = SETTLE_TIMEOUT_NANOS;
            while (!settled()) {
                if (remaining <= 0) {
                    throw new AssertionError("timer workers did not settle within 10 s at t=" + nowNanos);
                }
                remaining = changed.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for timer workers", e);
        } finally {
            lock.unlock();
        }
    }

    private boolean settled() {
        for (Worker w : workers.values()) {
            boolean due = !w.indefinitely && nowNanos - w.deadlineNanos >= 0;
            if (!w.parked || w.permit || due) {
                return false;
            }
        }
        return true;
    }

    /** The deadline the given worker is parked until, or {@code Long.MAX_VALUE} if parked indefinitely. */
    public long parkedUntil(Thread worker) {
        lock.lock();
        try {
            Worker w = workers.get(worker);
            if (w == null || !w.parked) {
                throw new IllegalStateException("not parked: " + worker);
            }
            return w.indefinitely ? Long.MAX_VALUE : w.deadlineNanos;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void parkUntil(long deadlineNanos) {
        park(false, deadlineNanos);
    }

    @Override
    public void parkIndefinitely() {
        park(true, 0);
    }

    private void park(boolean indefinitely, long deadlineNanos) {
        lock.lock();
        try {
            Worker w = workers.computeIfAbsent(Thread.currentThread(), t -> new Worker());
            w.parked = true;
            w.indefinitely = indefinitely;
            w.deadlineNanos = deadlineNanos;
            changed.signalAll();
            while (!w.permit && (indefinitely || nowNanos - deadlineNanos < 0)) {
                changed.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Worker w = workers.get(Thread.currentThread());
            if (w != null) {
                w.permit = false;
                w.parked = false;
            }
            changed.signalAll();
            lock.unlock();
        }
    }

    @Override
    public void unpark(Thread worker) {
        lock.lock();
        try {
            // A worker that has stopped is forgotten: stop() keeps unparking until the thread is gone.
            Worker w = workers.get(worker);
            if (w != null) {
                w.permit = true;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void workerStarted(Thread worker) {
        lock.lock();
        try {
            workers.computeIfAbsent(worker, t -> new Worker());
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void workerStopped(Thread worker) {
        lock.lock();
        try {
            workers.remove(worker);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
