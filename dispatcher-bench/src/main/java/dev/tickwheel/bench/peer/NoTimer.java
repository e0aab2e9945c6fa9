package dev.tickwheel.bench.peer;

/** The idle baseline: no timer and no thread; scheduling does nothing. Stateless. */
final class NoTimer implements Contender {

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
    }

    @Override
    public boolean cancel(long id) {
        return false;
    }

    @Override
    public void close() {
    }
}
