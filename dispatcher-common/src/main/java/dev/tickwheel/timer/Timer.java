package dev.tickwheel.timer;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs tasks once after a delay.
 *
 * <p>Thread-safe: {@link #schedule} may be called from any number of threads at once.
 */
public interface Timer extends AutoCloseable {

    /**
     * Schedules {@code task} to run once, no earlier than {@code delay} from now.
     *
     * @param delay a delay; zero or negative means "due now" (runs at the next pass of the timer's worker)
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalArgumentException if the delay is so large that the deadline would overflow
     * @throws java.util.concurrent.RejectedExecutionException if the timer has been stopped
     */
    TimerFuture schedule(Runnable task, long delay, TimeUnit unit);

    /**
     * Stops the timer. It will never run a task that it had not handed to execution by then.
     *
     * @return the timeouts that were still waiting, left in that state (not cancelled) for the caller to run or cancel;
     *         empty if already stopped
     */
    List<TimerFuture> stop();

    /** Same as {@link #stop()}, discarding the result. */
    @Override
    default void close() {
        stop();
    }
}
