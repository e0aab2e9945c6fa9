package dev.tickwheel.timer;

import com.google.common.base.Ticker;
import java.util.concurrent.locks.LockSupport;

/**
 * Parks with {@link LockSupport}, measuring the remaining time on a ticker.
 *
 * <p>Immutable; thread-safe.
 */
final class SystemParker implements WorkerParker {

    private final Ticker ticker;

    SystemParker(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public void parkUntil(long deadlineNanos) {
        long remainingNanos = deadlineNanos - ticker.read();
        if (remainingNanos > 0) {
            LockSupport.parkNanos(this, remainingNanos);
        }
    }

    @Override
    public void parkIndefinitely() {
        LockSupport.park(this);
    }

    @Override
    public void unpark(Thread worker) {
        LockSupport.unpark(worker);
    }
}
