package dev.tickwheel.client;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Polls a read until its value passes a check, or fails after a bound. Each poll is a call to the server, which paces
 * the loop; there is no sleep.
 *
 * <p>Thread-safe (stateless).
 */
final class Await {

    private Await() {
    }

    static <T> T until(Supplier<T> read, Predicate<T> done, Duration bound, String what) {
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        T value = read.get();
        while (!done.test(value)) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new AssertionError(what + " not reached within " + bound + "; last value " + value);
            }
            value = read.get();
        }
        return value;
    }
}
