package dev.tickwheel.concurrent;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Runs one periodic task inside a catch-all, so that a throw never reaches the
 * {@link java.util.concurrent.ScheduledThreadPoolExecutor}, which would cancel every later run without a
 * word. Counts runs and failures and hands each throwable to the listener.
 *
 * <p>Thread-safe: the executor runs one instance at most once at a time, and readers see the counters
 * through atomics.
 */
final class GuardedPeriodicTask implements Runnable {

    private final String name;
    private final Runnable task;
    private final BiConsumer<String, Throwable> failureListener;
    /** Read by stats() on other threads. */
    private final AtomicLong runs = new AtomicLong();
    /** Read by stats() on other threads. */
    private final AtomicLong failures = new AtomicLong();
    /** Set by the registering thread right after scheduling; read by other registrations of the same name. */
    private volatile ScheduledFuture<?> future;

    GuardedPeriodicTask(String name, Runnable task, BiConsumer<String, Throwable> failureListener) {
        this.name = name;
        this.task = task;
        this.failureListener = failureListener;
    }

    @Override
    public void run() {
        try {
            task.run();
        } catch (Throwable failure) { // Errors too: the schedule must outlive any single run.
            failures.incrementAndGet();
            if (causedByInterrupt(failure)) {
                Thread.currentThread().interrupt(); // the task lost the flag when it threw; give it back
            }
            report(failure);
        } finally {
            runs.incrementAndGet();
        }
    }

    private void report(Throwable failure) {
        try {
            failureListener.accept(name, failure);
        } catch (Throwable listenerFailure) {
            // A broken listener must not cancel the schedule either; common does not log, so hand it to the
            // thread's uncaught-exception handler (by default, stderr) and keep going.
            listenerFailure.addSuppressed(failure);
            Thread current = Thread.currentThread();
            current.getUncaughtExceptionHandler().uncaughtException(current, listenerFailure);
        }
    }

    private static boolean causedByInterrupt(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    void attach(ScheduledFuture<?> scheduled) {
        this.future = scheduled;
    }

    /** Whether a newer task may take this name: the schedule was cancelled or has ended. */
    boolean isFinished() {
        ScheduledFuture<?> scheduled = future;
        return scheduled != null && scheduled.isDone();
    }

    PeriodicTaskStats stats() {
        return new PeriodicTaskStats(name, runs.get(), failures.get());
    }
}
