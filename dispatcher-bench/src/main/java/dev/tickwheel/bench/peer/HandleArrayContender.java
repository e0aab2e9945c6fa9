package dev.tickwheel.bench.peer;

/**
 * A plain timer cancelled through its handle: the handle of ID {@code i} sits in slot {@code i} of an array sized at
 * construction, so no map is involved and the array is not part of the memory measured per pending timer.
 *
 * <p>Thread-safe for distinct IDs (each slot has one writer before its reader, published through the timer or the
 * caller's own synchronization).
 */
final class HandleArrayContender implements Contender {

    private final HandleTimer timer;
    private final Object[] handles;

    HandleArrayContender(HandleTimer timer, int capacity) {
        this.timer = timer;
        this.handles = new Object[capacity];
    }

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
        handles[(int) id] = timer.schedule(delayMs, task);
    }

    @Override
    public boolean cancel(long id) {
        Object handle = handles[(int) id];
        handles[(int) id] = null;
        return handle != null && timer.cancel(handle);
    }

    @Override
    public void close() {
        timer.close();
    }
}
