package dev.tickwheel.bench.peer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import tech.powerjob.server.common.timewheel.HashedWheelTimer;
import tech.powerjob.server.common.timewheel.TimerFuture;

/**
 * PowerJob's two-tier composition rebuilt as an object from two of its own wheels: a precise wheel (1 ms × 4096,
 * 4 × cores task threads) and a slow wheel (10 s × 12, tasks on its indicator), with a boxed
 * {@code ConcurrentHashMap<Long, TimerFuture>} CARGO. Routing follows PowerJob's {@code InstanceTimeWheelService}:
 * delays up to 60 s go to the precise wheel; longer ones to the slow wheel at {@code delay - 60 s}, which then removes
 * the CARGO entry and schedules the remaining delay ({@code currentTimeMillis}-based, as PowerJob does) on the precise
 * wheel.
 *
 * <p>Two deviations, both in PowerJob's favour for this benchmark and both noted in docs/benchmarks.md: every instance
 * goes into CARGO (PowerJob skips delays of 1 s or less, which then cannot be cancelled), and {@link #cancel} removes
 * the entry (PowerJob leaves cancelled entries in the map).
 *
 * <p>Thread-safe.
 */
final class PowerJobTwoTier implements Contender {

    static final long LONG_DELAY_THRESHOLD_MS = 60_000;

    private final HashedWheelTimer precise =
            new HashedWheelTimer(1, 4096, Runtime.getRuntime().availableProcessors() * 4);
    private final HashedWheelTimer slow = new HashedWheelTimer(10_000, 12, 0);
    private final Map<Long, TimerFuture> cargo = new ConcurrentHashMap<>();

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
        Long uniqueId = id;
        if (delayMs <= LONG_DELAY_THRESHOLD_MS) {
            realSchedule(uniqueId, delayMs, task);
            return;
        }
        long expectTriggerTimeMs = System.currentTimeMillis() + delayMs;
        TimerFuture longDelay = slow.schedule(() -> {
            cargo.remove(uniqueId);
            realSchedule(uniqueId, expectTriggerTimeMs - System.currentTimeMillis(), task);
        }, delayMs - LONG_DELAY_THRESHOLD_MS, TimeUnit.MILLISECONDS);
        cargo.put(uniqueId, longDelay);
    }

    private void realSchedule(Long uniqueId, long delayMs, Runnable task) {
        TimerFuture future = precise.schedule(() -> {
            cargo.remove(uniqueId);
            task.run();
        }, delayMs, TimeUnit.MILLISECONDS);
        cargo.put(uniqueId, future);
    }

    @Override
    public boolean cancel(long id) {
        TimerFuture future = cargo.remove(id);
        return future != null && future.cancel();
    }

    @Override
    public void close() {
        PowerJobTimer.stop(slow);
        precise.stop();
    }
}
