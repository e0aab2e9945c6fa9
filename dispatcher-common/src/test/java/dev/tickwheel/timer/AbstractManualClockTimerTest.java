package dev.tickwheel.timer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;

/**
 * Tests of a {@link HashedWheelTimer} on a {@link ManualClock}: no sleeping, every instant observed exactly. Each test
 * gets a clock at 0, a builder (1 ms ticks, 8 buckets) whose worker thread is remembered, a record of the clock
 * readings at which recording tasks ran, and its timer stopped afterwards.
 */
abstract class AbstractManualClockTimerTest {

    static final long MS = 1_000_000;

    final ManualClock clock = new ManualClock();
    final AtomicReference<Thread> workerThread = new AtomicReference<>();
    final List<Long> fireTimes = new CopyOnWriteArrayList<>();
    HashedWheelTimer timer;

    HashedWheelTimer.Builder builder() {
        return HashedWheelTimer.builder()
                .ticker(clock)
                .tickDuration(1, TimeUnit.MILLISECONDS)
                .ticksPerWheel(8)
                .threadFactory(r -> {
                    Thread t = new Thread(r, "test-wheel");
                    t.setDaemon(true);
                    workerThread.set(t);
                    return t;
                });
    }

    /** A task that records the clock reading at which it runs. */
    Runnable recordFire() {
        return () -> fireTimes.add(clock.read());
    }

    /** Waits until the worker is parked and returns the deadline it is parked until ({@code Long.MAX_VALUE}: none). */
    long workerParkedUntil() {
        clock.awaitSettled();
        return clock.parkedUntil(workerThread.get());
    }

    @AfterEach
    void stopTimer() {
        if (timer != null) {
            timer.stop();
        }
    }
}
