package dev.tickwheel.time;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Triggers at {@code start + k * period} for every {@code k >= 0}, computed from {@code start} each time, so
 * the series never drifts: a late or slow instance never shifts the ones after it.
 *
 * <p>Bounds: {@code period} in {@code [MIN_PERIOD, MAX_PERIOD]} = [1 s, 366 days]. Below one second a loader
 * planning 30 s ahead would write tens of thousands of instances per pass; above a leap year the job is
 * better written as a cron. {@code start} lies in the supported range.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: wall-clock changes (DST, zones) do not apply; a period of one day is 86 400 s of elapsed time,
 * not "same local time tomorrow". Use a cron for local times.
 *
 * @param start  the first trigger time and the anchor of the series
 * @param period the distance between triggers
 */
public record FixedRateSchedule(Instant start, Duration period) implements PlannedExpression {

    /** The shortest period accepted: 1 s. */
    public static final Duration MIN_PERIOD = Duration.ofSeconds(1);
    /** The longest period accepted: 366 days. */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);

    /**
     * @throws InvalidTimeExpressionException if {@code start} is outside the supported range (field {@code at})
     *                                        or {@code period} is outside its bounds (field {@code periodMs})
     */
    public FixedRateSchedule {
        SupportedRange.checkInstant(ScheduleSpec.FIELD_AT, start);
        SupportedRange.checkDuration(ScheduleSpec.FIELD_PERIOD_MS, period, MIN_PERIOD, MAX_PERIOD);
    }

    @Override
    public ScheduleType type() {
        return ScheduleType.FIXED_RATE;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        if (after.isBefore(start)) {
            return Optional.of(start);
        }
        if (SupportedRange.atOrPastEnd(after)) {
            return Optional.empty();
        }
        // Both instants lie in [1970, 2100): at most ~4.1e18 ns apart, inside a long (9.2e18).
        long sinceStartNanos = Duration.between(start, after).toNanos();
        long periodNanos = period.toNanos();
        long k = sinceStartNanos / periodNanos + 1;
        // k * periodNanos <= sinceStartNanos + periodNanos: still inside a long.
        Instant next = start.plusNanos(k * periodNanos);
        return next.isBefore(LATEST_SUPPORTED) ? Optional.of(next) : Optional.empty();
    }
}
