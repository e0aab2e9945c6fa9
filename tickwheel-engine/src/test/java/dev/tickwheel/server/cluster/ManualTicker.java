package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;

/**
 * A ticker that moves only when a test advances it; it may start anywhere, {@link Long#MAX_VALUE} included, and wraps
 * like {@link System#nanoTime()}.
 *
 * <p>Thread-safe: the value is volatile because the lease thread reads it in the tests that start one.
 */
final class ManualTicker extends Ticker {

    private volatile long nowNanos;

    ManualTicker(long startNanos) {
        this.nowNanos = startNanos;
    }

    void advance(Duration duration) {
        nowNanos += duration.toNanos(); // wraps on purpose
    }

    @Override
    public long read() {
        return nowNanos;
    }
}
