package dev.tickwheel.bench.peer;

/**
 * What every benchmark drives: schedule a task under a unique ID, cancel it by that ID.
 *
 * <p>A plain timer answers through handles kept in an array indexed by ID (allocated at construction, so the
 * memory harness does not charge it to the timer); an instance service answers through its own ID map.
 *
 * <p>Thread-safe as far as the peer underneath is: {@link #schedule} and {@link #cancel} may be called from several
 * threads for distinct IDs.
 */
public interface Contender extends AutoCloseable {

    /**
     * Schedules {@code task} to run once after {@code delayMs}.
     *
     * @param id a unique ID in {@code [0, capacity)} of the contender
     */
    void schedule(long id, long delayMs, Runnable task);

    /** Cancels the task scheduled under {@code id}; whether the peer reported success. */
    boolean cancel(long id);

    /** Stops the peer's threads. */
    @Override
    void close();
}
