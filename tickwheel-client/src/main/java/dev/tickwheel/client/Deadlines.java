package dev.tickwheel.client;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client's one timer thread ({@code tickwheel-client-deadline-<n>}, a daemon): every attempt's whole-answer
 * deadline, which cancels the exchange when it fires, and the back-off before an async retry.
 *
 * <p>Nearly every deadline is cancelled (the answer comes first), so cancelled tasks leave the queue at once
 * ({@code removeOnCancelPolicy}) rather than piling up for the request time-out. A schedule and a cancel each take
 * the queue's lock and O(log n) for n calls in flight: about a microsecond, small beside an HTTP exchange (the
 * engine's webhook transport, with thousands of calls in flight, uses a hashed wheel instead).
 *
 * <p>Thread-safe. Caveats: a task must be quick (one thread runs them all); a deadline fires at or after its time,
 * never before.
 */
final class Deadlines implements AutoCloseable {

    private static final AtomicInteger INSTANCES = new AtomicInteger(); // numbers the thread names across clients

    private final ScheduledThreadPoolExecutor timer;

    Deadlines() {
        String name = "tickwheel-client-deadline-" + INSTANCES.incrementAndGet();
        timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code task} once {@code delayMs} have passed; cancel the returned future if it is no longer needed. */
    ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return timer.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    /** Ends the thread; tasks still waiting are dropped. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
