package dev.tickwheel.server;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition that real threads will make true, failing with a description after a bound. */
public final class Await {

    private Await() {
    }

    public static void until(String what, Duration bound, BooleanSupplier condition) {
        until(() -> what, bound, condition);
    }

    public static void until(Supplier<String> what, Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + bound + ": " + what.get());
            }
            LockSupport.parkNanos(1_000_000); // poll every millisecond; the bound, not this, is the timeout
        }
    }
}
