package dev.tickwheel.time;

import java.time.Duration;
import java.time.Instant;

/**
 * Range checks shared by the schedule records: instants inside the supported range, durations inside their
 * bounds. Package-private; every failure is an {@link InvalidTimeExpressionException} naming the wire field.
 *
 * <p>Stateless; thread-safe.
 */
final class SupportedRange {

    private SupportedRange() {
    }

    /** Rejects an instant outside {@code [EARLIEST_SUPPORTED, LATEST_SUPPORTED)}. */
    static Instant checkInstant(String field, Instant value) {
        if (value == null) {
            throw new InvalidTimeExpressionException(field, field + " is required");
        }
        if (value.isBefore(TimeExpression.EARLIEST_SUPPORTED) || !value.isBefore(TimeExpression.LATEST_SUPPORTED)) {
            throw new InvalidTimeExpressionException(field, field + " must be in [" + TimeExpression.EARLIEST_SUPPORTED
                    + ", " + TimeExpression.LATEST_SUPPORTED + "), got " + value);
        }
        return value;
    }

    /** Rejects a duration outside {@code [min, max]}, stating the value in milliseconds as on the wire. */
    static Duration checkDuration(String field, Duration value, Duration min, Duration max) {
        if (value == null) {
            throw new InvalidTimeExpressionException(field, field + " is required");
        }
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidTimeExpressionException(field, field + " must be between " + min.toMillis() + " and "
                    + max.toMillis() + " ms (" + min + " to " + max + "), got " + describeMs(value));
        }
        return value;
    }

    /** Milliseconds if they represent the value exactly, else the ISO form (a sub-millisecond duration). */
    private static String describeMs(Duration value) {
        try {
            return Duration.ofMillis(value.toMillis()).equals(value) ? Long.toString(value.toMillis()) : value.toString();
        } catch (ArithmeticException tooLarge) {
            return value.toString();
        }
    }

    /** Whether a query instant is at or past the end of the supported range, so that no trigger follows it. */
    static boolean atOrPastEnd(Instant after) {
        return !after.isBefore(TimeExpression.LATEST_SUPPORTED);
    }

    /** Whether an instant lies before the end of the supported range. */
    static boolean beforeEnd(Instant instant) {
        return instant.isBefore(TimeExpression.LATEST_SUPPORTED);
    }
}
