package dev.tickwheel.time;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The next instance is due {@code delay} after the previous instance completed: {@code nextAfter(completion)}
 * returns {@code completion + delay}. The series cannot be planned ahead, so this is not a
 * {@link PlannedExpression}; the dispatcher asks for the next trigger when an instance completes.
 *
 * <p>Bounds: {@code delay} in {@code [MIN_DELAY, MAX_DELAY]} = [1 ms, 366 days]. A zero delay would run the
 * job back to back and make the next trigger equal to the completion, not after it.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: the first instance of a fixed-delay job has no previous completion; the caller chooses it
 * (typically "now + delay" when the job is created).
 *
 * @param delay the pause between one instance's completion and the next instance's trigger
 */
public record FixedDelaySchedule(Duration delay) implements TimeExpression {

    /** The shortest delay accepted: 1 ms. */
    public static final Duration MIN_DELAY = Duration.ofMillis(1);
    /** The longest delay accepted: 366 days. */
    public static final Duration MAX_DELAY = Duration.ofDays(366);

    /** @throws InvalidTimeExpressionException if {@code delay} is outside its bounds (field {@code delayMs}) */
    public FixedDelaySchedule {
        SupportedRange.checkDuration(ScheduleSpec.FIELD_DELAY_MS, delay, MIN_DELAY, MAX_DELAY);
    }

    @Override
    public ScheduleType type() {
        return ScheduleType.FIXED_DELAY;
    }

    /**
     * @param previousCompletion when the previous instance completed
     * @return {@code previousCompletion + delay}, or empty if that is past the supported range
     */
    @Override
    public Optional<Instant> nextAfter(Instant previousCompletion) {
        if (SupportedRange.atOrPastEnd(previousCompletion)) {
            return Optional.empty(); // also keeps Instant.MAX + delay from overflowing
        }
        Instant next = previousCompletion.isBefore(EARLIEST_SUPPORTED)
                ? EARLIEST_SUPPORTED.plus(delay)
                : previousCompletion.plus(delay);
        return next.isBefore(LATEST_SUPPORTED) ? Optional.of(next) : Optional.empty();
    }
}
