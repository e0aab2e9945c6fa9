package dev.tickwheel.bench.peer;

import dev.tickwheel.timer.HashedWheelTimer;
import dev.tickwheel.timer.TimerFuture;
import java.util.concurrent.TimeUnit;

/** Tickwheel's {@link HashedWheelTimer} with its defaults (1 ms tick, 4096 buckets), tasks run on its worker. */
final class TickwheelTimer implements HandleTimer {

    private final HashedWheelTimer timer = HashedWheelTimer.builder()
            .tickDuration(1, TimeUnit.MILLISECONDS)
            .ticksPerWheel(4096)
            .build();

    TickwheelTimer() {
        timer.start();
    }

    @Override
    public Object schedule(long delayMs, Runnable task) {
        return timer.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean cancel(Object handle) {
        return ((TimerFuture) handle).cancel();
    }

    @Override
    public void close() {
        timer.stop();
    }
}
