package dev.tickwheel.timer;

import com.google.common.base.Ticker;

/**
 * How a timer's worker thread waits for its next deadline, and how other threads wake it.
 *
 * <p>The default parks with {@link java.util.concurrent.locks.LockSupport} against the timer's ticker. A ticker that
 * also implements this interface (a manual clock in tests) replaces it, so that a test can move time and know when the
 * worker has caught up, with no sleeping.
 *
 * <p>Implementations must be thread-safe and must have permit semantics: an {@link #unpark} that happens before the
 * matching park makes that park return at once.
 */
public interface WorkerParker {

    /**
     * Parks the calling worker thread until the ticker reaches {@code deadlineNanos}, until {@link #unpark}, or
     * spuriously. Returns at once if the deadline has passed.
     */
    void parkUntil(long deadlineNanos);

    /** Parks the calling worker thread until {@link #unpark}, or spuriously. */
    void parkIndefinitely();

    /** Wakes {@code worker} if it is parked, or makes its next park return at once. */
    void unpark(Thread worker);

    /** Called once, from the thread that starts the timer, before {@code worker} runs. */
    default void workerStarted(Thread worker) {
    }

    /** Called by {@code worker} as its last action. */
    default void workerStopped(Thread worker) {
    }

    /**
     * The parker a worker reading {@code ticker} uses: the ticker itself if it is a parker (a test's manual clock),
     * else one that parks with {@link java.util.concurrent.locks.LockSupport}, measuring time on the ticker.
     */
    static WorkerParker forTicker(Ticker ticker) {
        return ticker instanceof WorkerParker parker ? parker : new SystemParker(ticker);
    }
}
