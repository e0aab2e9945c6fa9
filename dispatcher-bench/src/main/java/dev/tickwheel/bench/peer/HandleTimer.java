package dev.tickwheel.bench.peer;

/**
 * A plain timer reduced to its handle API: schedule returns a handle, cancel takes it.
 *
 * <p>Thread-safe as far as the peer is.
 */
interface HandleTimer extends AutoCloseable {

    Object schedule(long delayMs, Runnable task);

    boolean cancel(Object handle);

    @Override
    void close();
}
