package dev.tickwheel.concurrent;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Runs named periodic tasks (the loaders, heartbeats, lease renewals) on a
 * {@link ScheduledThreadPoolExecutor} whose tasks can never die silently.
 *
 * <p>The JDK trap: when a task given to {@code scheduleAtFixedRate} throws, the executor cancels every later
 * run and keeps the throwable in a future nobody reads. Here each task runs inside a wrapper that catches any
 * {@link Throwable} (Errors included), counts it, hands it to the failure listener given at construction
 * (the server plugs in SLF4J; common does not log) and returns normally, so the next run happens on
 * schedule. Runs and failures are counted per task name, see {@link #stats(String)}.
 *
 * <p>Threads are named {@code tickwheel-<role>-<n>} and are daemon threads. Cancelled tasks leave the queue at
 * once ({@code setRemoveOnCancelPolicy(true)}); periodic tasks stop at {@link #close()}.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: a run that takes longer than the period delays the next one (the executor never overlaps runs
 * of one task); a task that never returns occupies a thread for good. A task name can be reused only after
 * its previous schedule was cancelled; the counters then start again from zero. Counters of a cancelled task
 * stay readable through {@link #stats(String)} until its name is reused, so use a fixed set of names, not one per job.
 */
public final class PeriodicTaskScheduler implements AutoCloseable {

    /** How long {@link #close()} waits for running tasks by default: 10 s. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** The longest delay, period or timeout accepted: 366 days (far below the 292 years that overflow nanos). */
    public static final Duration MAX_DURATION = Duration.ofDays(366);

    private final ScheduledThreadPoolExecutor executor;
    private final BiConsumer<String, Throwable> failureListener;
    private final Duration closeTimeout;
    /** Registrations come from any thread; compute() makes the name check and the insert one step. */
    private final ConcurrentMap<String, GuardedPeriodicTask> tasks = new ConcurrentHashMap<>();

    /**
     * @param role            the thread-name role, e.g. {@code loader}
     * @param threads         core threads of the executor, at least 1
     * @param failureListener receives (task name, throwable) for every failed run, on the task's thread
     * @param closeTimeout    how long {@link #close()} waits for running tasks before interrupting them
     * @throws IllegalArgumentException naming the bad value
     */
    public PeriodicTaskScheduler(String role, int threads, BiConsumer<String, Throwable> failureListener,
                                 Duration closeTimeout) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.failureListener = Objects.requireNonNull(failureListener, "failureListener");
        this.closeTimeout = requireNotNegative("closeTimeout", closeTimeout);
        this.executor = new ScheduledThreadPoolExecutor(threads, new NamedThreadFactory(role, true));
        executor.setRemoveOnCancelPolicy(true);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Runs {@code task} first after {@code initialDelay}, then every {@code period} measured from the start
     * of each run, whatever the task throws.
     *
     * @return the schedule's future; cancel it to stop the task
     * @throws IllegalArgumentException         if the name is blank or in use, or a duration is out of range
     * @throws RejectedExecutionException       if the scheduler is closed
     */
    public ScheduledFuture<?> scheduleAtFixedRate(String name, Runnable task, Duration initialDelay, Duration period) {
        requireNotNegative("initialDelay", initialDelay);
        requirePositive("period", period);
        GuardedPeriodicTask guarded = register(name, task);
        return attach(name, guarded, () -> executor.scheduleAtFixedRate(
                guarded, initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS));
    }

    /**
     * Runs {@code task} once, as soon as a thread is free, on the same threads as the periodic tasks: with one thread,
     * it never overlaps them. What it throws goes to the failure listener under {@code name}; nothing is counted.
     *
     * @throws RejectedExecutionException if the scheduler is closed
     */
    public void runOnce(String name, Runnable task) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(task, "task");
        executor.execute(() -> {
            try {
                task.run();
            } catch (Throwable failure) {
                failureListener.accept(name, failure);
            }
        });
    }

    /**
     * Runs {@code task} once after {@code delay}, on the same threads as the periodic tasks, as {@link #runOnce} does.
     *
     * @throws RejectedExecutionException if the scheduler is closed
     */
    public void runOnceAfter(String name, Runnable task, Duration delay) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(task, "task");
        requireNotNegative("delay", delay);
        executor.schedule(() -> {
            try {
                task.run();
            } catch (Throwable failure) {
                failureListener.accept(name, failure);
            }
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The counters of one task, if a task of that name was ever scheduled here. */
    public Optional<PeriodicTaskStats> stats(String name) {
        return Optional.ofNullable(tasks.get(name)).map(GuardedPeriodicTask::stats);
    }

    /**
     * Stops all schedules, waits up to the close timeout for running tasks, then interrupts them. If the
     * calling thread is interrupted while waiting, the tasks are interrupted at once and the caller's
     * interrupt flag is set again. Idempotent.
     */
    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(closeTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException interrupted) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private GuardedPeriodicTask register(String name, Runnable task) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(task, "task");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank, got '" + name + "'");
        }
        GuardedPeriodicTask guarded = new GuardedPeriodicTask(name, task, failureListener);
        tasks.compute(name, (key, existing) -> {
            if (existing != null && !existing.isFinished()) {
                throw new IllegalArgumentException("task name '" + name + "' is already scheduled; cancel it first");
            }
            return guarded;
        });
        return guarded;
    }

    private ScheduledFuture<?> attach(String name, GuardedPeriodicTask guarded,
                                      Supplier<ScheduledFuture<?>> schedule) {
        try {
            ScheduledFuture<?> future = schedule.get();
            guarded.attach(future);
            return future;
        } catch (RuntimeException rejected) {
            tasks.remove(name, guarded); // never scheduled: free the name
            throw rejected;
        }
    }

    private static Duration requireNotNegative(String field, Duration value) {
        Objects.requireNonNull(value, field);
        if (value.isNegative() || value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(field + " must be in [PT0S, " + MAX_DURATION + "], got " + value);
        }
        return value;
    }

    private static void requirePositive(String field, Duration value) {
        Objects.requireNonNull(value, field);
        if (value.isNegative() || value.isZero() || value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(field + " must be in (PT0S, " + MAX_DURATION + "], got " + value);
        }
    }
}
