package dev.tickwheel.timer;

/**
 * A handle to one scheduled task.
 *
 * <p>A task is in exactly one of three states: waiting, started or cancelled. It leaves "waiting" exactly once, by a
 * compare-and-set: either {@link #cancel()} wins and the task never runs, or the timer starts it and every later
 * {@code cancel()} returns {@code false}.
 *
 * <p>Thread-safe.
 */
public interface TimerFuture {

    /** The task this handle runs. */
    Runnable task();

    /** The deadline, in the nanoseconds of the owning timer's ticker (compare with subtraction, it may wrap). */
    long deadlineNanos();

    /**
     * Cancels the task if it is still waiting.
     *
     * @return {@code true} iff this call cancelled it; the task will then never run
     */
    boolean cancel();

    /** Whether {@link #cancel()} has won. */
    boolean isCancelled();

    /** Whether the task has started (it may still be running, or have finished or thrown). */
    boolean isStarted();

    /** Whether the task is still waiting: neither started nor cancelled. */
    default boolean isPending() {
        return !isCancelled() && !isStarted();
    }
}
