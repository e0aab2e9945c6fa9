package dev.tickwheel.bench.peer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A plain timer made cancellable by unique ID the way PowerJob does it: a {@code ConcurrentHashMap<Long, handle>}
 * (boxed keys), filled after scheduling and emptied by the task when it fires or by {@link #cancel}.
 *
 * <p>Thread-safe. Caveat (shared with PowerJob's CARGO): a task that fires before {@code put} leaves a stale entry;
 * with the benchmarks' delays (at least 1 s wherever memory or cancellation is measured) it does not happen.
 */
final class BoxedMapContender implements Contender {

    private final HandleTimer timer;
    private final ConcurrentHashMap<Long, Object> cargo = new ConcurrentHashMap<>();

    BoxedMapContender(HandleTimer timer) {
        this.timer = timer;
    }

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
        Long key = id;
        Object handle = timer.schedule(delayMs, () -> {
            cargo.remove(key);
            task.run();
        });
        cargo.put(key, handle);
    }

    @Override
    public boolean cancel(long id) {
        Object handle = cargo.remove(id);
        return handle != null && timer.cancel(handle);
    }

    @Override
    public void close() {
        timer.close();
    }
}
