package dev.tickwheel.time;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A time expression whose trigger series depends on nothing but the clock (cron, fixed rate, one-shot), so
 * that a loader can plan every instance due in a window ahead of time.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: the series is strictly increasing, so no trigger is listed twice, but a window may hold more
 * triggers than the caller can take: {@link #triggersIn} stops at {@code maxCount}, and the caller continues
 * from the last trigger it received.
 */
public sealed interface PlannedExpression extends TimeExpression
        permits CronSchedule, FixedRateSchedule, OneShotSchedule {

    /**
     * Every trigger time in {@code (fromExclusive, toInclusive]}, in increasing order, at most {@code maxCount}.
     *
     * <p>A loader that runs every 15 s and plans 30 s ahead calls
     * {@code triggersIn(lastPlanned, now.plusSeconds(30), cap)}; a cron every 2 s yields 15 triggers.
     *
     * @param fromExclusive start of the window, excluded
     * @param toInclusive   end of the window, included; not before {@code fromExclusive}
     * @param maxCount      at most this many triggers, at least 1
     * @return the triggers, possibly empty; exactly {@code maxCount} long when the window was cut short
     * @throws IllegalArgumentException if {@code maxCount < 1} or the window is reversed
     */
    default List<Instant> triggersIn(Instant fromExclusive, Instant toInclusive, int maxCount) {
        checkWindow(fromExclusive, toInclusive, maxCount);
        List<Instant> triggers = new ArrayList<>(Math.min(maxCount, 64));
        Optional<Instant> next = nextAfter(fromExclusive);
        while (next.isPresent() && !next.get().isAfter(toInclusive) && triggers.size() < maxCount) {
            triggers.add(next.get());
            next = nextAfter(next.get());
        }
        return List.copyOf(triggers);
    }

    /** Validates the arguments of {@link #triggersIn}; shared with the implementations that override it. */
    static void checkWindow(Instant fromExclusive, Instant toInclusive, int maxCount) {
        Objects.requireNonNull(fromExclusive, "fromExclusive");
        Objects.requireNonNull(toInclusive, "toInclusive");
        if (maxCount < 1) {
            throw new IllegalArgumentException("maxCount must be at least 1, got " + maxCount);
        }
        if (toInclusive.isBefore(fromExclusive)) {
            throw new IllegalArgumentException(
                    "toInclusive " + toInclusive + " is before fromExclusive " + fromExclusive);
        }
    }
}
