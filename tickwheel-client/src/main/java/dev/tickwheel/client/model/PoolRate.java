package dev.tickwheel.client.model;

import java.time.Duration;

/**
 * How fast a pool's calls may start: at most {@code permits} in any {@code perMs} milliseconds, spread evenly (no
 * burst).
 *
 * <p>Immutable.
 *
 * @param permits 1..1 000 000
 * @param perMs   1..86 400 000 (a day)
 */
public record PoolRate(int permits, long perMs) {

    /** At most {@code permits} starts in any {@code period}. */
    public static PoolRate of(int permits, Duration period) {
        return new PoolRate(permits, period.toMillis());
    }
}
