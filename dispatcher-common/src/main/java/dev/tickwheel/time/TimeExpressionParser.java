package dev.tickwheel.time;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Builds a {@link TimeExpression} from raw {@link ScheduleSpec} fields as they arrive from the API or the
 * store, validating every field. Each failure is an {@link InvalidTimeExpressionException} whose
 * {@code field()} is the wire name and whose message names the field and the bad value.
 *
 * <p>Rules: the fields a type uses are listed on {@link ScheduleSpec}; a field another type uses is rejected
 * rather than ignored, so a client that sends {@code periodMs} with a cron learns that it had no effect.
 * Bounds are the ones of the records: period 1 s to 366 days, delay 1 ms to 366 days, instants in
 * [1970, 2100).
 *
 * <p>Thread-safe (immutable; the clock is read once per FIXED_RATE spec without a start).
 *
 * <p>Caveats: a FIXED_RATE spec without {@code at} is anchored at the clock's current millisecond; store the
 * result's {@link ScheduleSpec#of} so that the anchor survives restarts, or the series would shift.
 */
public final class TimeExpressionParser {

    private final Clock clock;

    /** @param clock the source of "now" for FIXED_RATE specs that do not give a start */
    public TimeExpressionParser(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Reads a schedule type by name, case-insensitively.
     *
     * @throws InvalidTimeExpressionException (field {@code type}) if missing or unknown
     */
    public static ScheduleType parseType(String rawType) {
        if (rawType == null || rawType.isBlank()) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_TYPE,
                    "type is required, one of " + Arrays.toString(ScheduleType.values()));
        }
        try {
            return ScheduleType.valueOf(rawType.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_TYPE, "type '" + rawType
                    + "' is unknown, expected one of " + Arrays.toString(ScheduleType.values()), unknown);
        }
    }

    /**
     * @param spec the raw fields
     * @return the validated expression
     * @throws InvalidTimeExpressionException naming the first field at fault
     */
    public TimeExpression parse(ScheduleSpec spec) {
        Objects.requireNonNull(spec, "spec");
        if (spec.type() == null) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_TYPE,
                    "type is required, one of " + Arrays.toString(ScheduleType.values()));
        }
        switch (spec.type()) {
            case CRON:
                rejectUnused(spec, Set.of(ScheduleSpec.FIELD_EXPRESSION, ScheduleSpec.FIELD_ZONE_ID));
                return CronSchedule.parse(spec.expression(), zone(spec.zoneId()));
            case FIXED_RATE:
                rejectUnused(spec, Set.of(ScheduleSpec.FIELD_PERIOD_MS, ScheduleSpec.FIELD_AT));
                Instant start = spec.at() != null ? spec.at() : clock.instant().truncatedTo(ChronoUnit.MILLIS);
                return new FixedRateSchedule(start, millis(ScheduleSpec.FIELD_PERIOD_MS, spec.periodMs()));
            case FIXED_DELAY:
                rejectUnused(spec, Set.of(ScheduleSpec.FIELD_DELAY_MS));
                return new FixedDelaySchedule(millis(ScheduleSpec.FIELD_DELAY_MS, spec.delayMs()));
            case ONE_SHOT:
                rejectUnused(spec, Set.of(ScheduleSpec.FIELD_AT));
                if (spec.at() == null) {
                    throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_AT,
                            "at is required for a ONE_SHOT schedule");
                }
                return new OneShotSchedule(spec.at());
            case API:
                rejectUnused(spec, Set.of());
                return new ApiSchedule();
            default:
                throw new IllegalStateException("schedule type without a parser: " + spec.type());
        }
    }

    private static ZoneId zone(String zoneId) {
        if (zoneId == null || zoneId.isBlank()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(zoneId.trim());
        } catch (DateTimeException unknown) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_ZONE_ID, "zoneId '" + zoneId
                    + "' is not a known time zone (expected a region such as Europe/Berlin, or an offset such as +02:00)",
                    unknown);
        }
    }

    private static Duration millis(String field, Long valueMs) {
        if (valueMs == null) {
            throw new InvalidTimeExpressionException(field, field + " is required");
        }
        return Duration.ofMillis(valueMs);
    }

    /** Rejects each non-null field that the spec's type does not use. */
    private static void rejectUnused(ScheduleSpec spec, Set<String> used) {
        rejectIf(used, ScheduleSpec.FIELD_EXPRESSION, spec.expression(), spec.type());
        rejectIf(used, ScheduleSpec.FIELD_ZONE_ID, spec.zoneId(), spec.type());
        rejectIf(used, ScheduleSpec.FIELD_PERIOD_MS, spec.periodMs(), spec.type());
        rejectIf(used, ScheduleSpec.FIELD_DELAY_MS, spec.delayMs(), spec.type());
        rejectIf(used, ScheduleSpec.FIELD_AT, spec.at(), spec.type());
    }

    private static void rejectIf(Set<String> used, String field, Object value, ScheduleType type) {
        if (value != null && !used.contains(field)) {
            throw new InvalidTimeExpressionException(field,
                    field + " does not apply to a " + type + " schedule and must be omitted, got " + value);
        }
    }
}
