package dev.tickwheel.openapi.check;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition that another process or thread will make true, failing with a description after a bound. */
final class Poll {

    private Poll() {
    }

    static void until(Supplier<String> what, Duration bound, BooleanSupplier condition) {
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new AssertionError("not within " + bound + ": " + what.get());
            }
            LockSupport.parkNanos(10_000_000); // poll every 10 ms; the bound, not this, is the timeout
        }
    }
}
