package dev.tickwheel.server.cluster.process;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * A condition for {@link dev.tickwheel.server.Await#until} that is costly to evaluate (HTTP calls to the servers under
 * test): it is evaluated at most once per period and reads as false in between, so that waiting does not load the
 * machine whose timing the test measures. The first call evaluates it.
 *
 * <p>Not thread-safe: confined to the thread that waits.
 */
final class Throttled {

    private Throttled() {
    }

    static BooleanSupplier every(Duration period, BooleanSupplier condition) {
        long periodNanos = period.toNanos();
        long[] nextNanos = {System.nanoTime()};
        return () -> {
            long now = System.nanoTime();
            if (now - nextNanos[0] < 0) {
                return false;
            }
            nextNanos[0] = now + periodNanos;
            return condition.getAsBoolean();
        };
    }
}
