package dev.tickwheel.bench.peer;

import java.util.concurrent.TimeUnit;
import tech.powerjob.server.common.timewheel.HashedWheelTimer;
import tech.powerjob.server.common.timewheel.TimerFuture;
import tech.powerjob.server.common.timewheel.TimerTask;

/**
 * PowerJob's {@code HashedWheelTimer} (powerjob-server-common 5.1.1): tick and slots as given, and
 * {@code processThreads} task threads (0 runs tasks on its indicator thread).
 */
final class PowerJobTimer implements HandleTimer {

    private final HashedWheelTimer timer;

    PowerJobTimer(long tickMs, int slots, int processThreads) {
        this.timer = new HashedWheelTimer(tickMs, slots, processThreads);
    }

    @Override
    public Object schedule(long delayMs, Runnable task) {
        TimerTask powerJobTask = task instanceof TimerTask t ? t : task::run;
        return timer.schedule(powerJobTask, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean cancel(Object handle) {
        return ((TimerFuture) handle).cancel();
    }

    HashedWheelTimer timer() {
        return timer;
    }

    @Override
    public void close() {
        stop(timer);
    }

    /**
     * PowerJob 5.1.1's {@code stop()} sets its indicator's stop flag and then calls {@code shutdown()} on a task pool
     * that is null when the wheel has no task threads; the indicator has stopped by then, so the NPE is ignored.
     */
    static void stop(HashedWheelTimer timer) {
        try {
            timer.stop();
        } catch (NullPointerException e) {
            // see above
        }
    }
}
