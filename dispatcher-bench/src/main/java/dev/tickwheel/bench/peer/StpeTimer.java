package dev.tickwheel.bench.peer;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The JDK's {@link ScheduledThreadPoolExecutor}: one thread, {@code setRemoveOnCancelPolicy(true)}. */
final class StpeTimer implements HandleTimer {

    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
        Thread thread = new Thread(r, "stpe-timer");
        thread.setDaemon(true);
        return thread;
    });

    StpeTimer() {
        executor.setRemoveOnCancelPolicy(true);
        executor.prestartAllCoreThreads();
    }

    @Override
    public Object schedule(long delayMs, Runnable task) {
        return executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean cancel(Object handle) {
        return ((ScheduledFuture<?>) handle).cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
