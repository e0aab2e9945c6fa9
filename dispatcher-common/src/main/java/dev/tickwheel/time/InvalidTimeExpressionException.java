package dev.tickwheel.time;

import java.util.Objects;

/**
 * A schedule that cannot be accepted: a bad cron, an unknown zone, a period out of bounds, a field that does
 * not belong to the schedule type. The message is written for the person who sent the schedule and says which
 * field is wrong and why, so an HTTP layer can return it with the field's name, as Tickwheel's API does:
 * {@code {"error":"invalid_schedule","message":"field 'schedule.expression': cron field 'day-of-week': 8 is out of
 * range 1-7"}}.
 *
 * <p>Immutable.
 */
public final class InvalidTimeExpressionException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    /**
     * @param field   the wire name of the offending field, one of the {@code ScheduleSpec.FIELD_*} constants
     * @param message what is wrong, naming the field and the bad value
     */
    public InvalidTimeExpressionException(String field, String message) {
        super(message);
        this.field = Objects.requireNonNull(field, "field");
    }

    /**
     * @param field   the wire name of the offending field
     * @param message what is wrong, naming the field and the bad value
     * @param cause   the library failure that was rephrased
     */
    public InvalidTimeExpressionException(String field, String message, Throwable cause) {
        super(message, cause);
        this.field = Objects.requireNonNull(field, "field");
    }

    /**
     * The wire name of the offending field: {@code type}, {@code expression}, {@code zoneId}, {@code periodMs},
     * {@code delayMs} or {@code at}.
     */
    public String field() {
        return field;
    }
}
