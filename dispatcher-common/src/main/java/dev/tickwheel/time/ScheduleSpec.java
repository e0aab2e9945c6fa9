package dev.tickwheel.time;

import java.time.Instant;
import java.util.Objects;

/**
 * A schedule as raw fields, the shape it has on the wire and in the store. Nothing is validated here;
 * {@link TimeExpressionParser} turns a spec into a {@link TimeExpression} or says which field is wrong, and
 * {@link #of(TimeExpression)} turns an expression back into the fields to store.
 *
 * <table>
 *   <caption>Which fields each type uses (every other field must be null)</caption>
 *   <tr><th>type</th><th>fields</th></tr>
 *   <tr><td>CRON</td><td>expression (required), zoneId (optional, default UTC)</td></tr>
 *   <tr><td>FIXED_RATE</td><td>periodMs (required), at = the first trigger and anchor (optional, default now)</td></tr>
 *   <tr><td>FIXED_DELAY</td><td>delayMs (required)</td></tr>
 *   <tr><td>ONE_SHOT</td><td>at (required)</td></tr>
 *   <tr><td>API</td><td>none</td></tr>
 * </table>
 *
 * <p>Every type but API may also carry a window and jitter: {@code startAt} and {@code endAt} bound the trigger
 * times, {@code maxRuns} the number of instances the schedule creates, and {@code jitterMs} delays each instance by a
 * stable amount (see the engine's {@code ScheduleWindow}). Null means none.
 *
 * <p>Immutable.
 *
 * @param type       the schedule type; required
 * @param expression Quartz cron expression, CRON only
 * @param zoneId     zone id such as {@code Europe/Berlin}, CRON only
 * @param periodMs   period in milliseconds, FIXED_RATE only
 * @param delayMs    delay after completion in milliseconds, FIXED_DELAY only
 * @param at         trigger instant (ONE_SHOT) or first trigger (FIXED_RATE)
 * @param jitterMs   each instance fires up to this many milliseconds after its trigger time, or null
 * @param spread     true: the jitter is one offset per job (jobs on one expression fan out over the window); null
 *                   (false is taken as null): one per trigger
 * @param startAt    no trigger time before this, or null
 * @param endAt      no trigger time after this, or null
 * @param maxRuns    at most this many instances from the schedule, or null
 * @param calendar   the name of a calendar whose excluded days get no instance, or null (on the wire, the job's
 *                   {@code calendar} field)
 */
public record ScheduleSpec(ScheduleType type, String expression, String zoneId, Long periodMs, Long delayMs,
                           Instant at, Long jitterMs, Boolean spread, Instant startAt, Instant endAt,
                           Integer maxRuns, String calendar) {

    public ScheduleSpec {
        // One form for "no spread": a spec read back from the store equals the one written.
        spread = Boolean.TRUE.equals(spread) ? Boolean.TRUE : null;
    }

    /** A spec without window or jitter. */
    public ScheduleSpec(ScheduleType type, String expression, String zoneId, Long periodMs, Long delayMs, Instant at) {
        this(type, expression, zoneId, periodMs, delayMs, at, null, null, null, null, null, null);
    }

    /** Wire name of {@link #type()}. */
    public static final String FIELD_TYPE = "type";
    /** Wire name of {@link #expression()}. */
    public static final String FIELD_EXPRESSION = "expression";
    /** Wire name of {@link #zoneId()}. */
    public static final String FIELD_ZONE_ID = "zoneId";
    /** Wire name of {@link #periodMs()}. */
    public static final String FIELD_PERIOD_MS = "periodMs";
    /** Wire name of {@link #delayMs()}. */
    public static final String FIELD_DELAY_MS = "delayMs";
    /** Wire name of {@link #at()}. */
    public static final String FIELD_AT = "at";
    /** Wire name of {@link #jitterMs()}. */
    public static final String FIELD_JITTER_MS = "jitterMs";
    /** Wire name of {@link #spread()}. */
    public static final String FIELD_SPREAD = "spread";
    /** Wire name of {@link #startAt()}. */
    public static final String FIELD_START_AT = "startAt";
    /** Wire name of {@link #endAt()}. */
    public static final String FIELD_END_AT = "endAt";
    /** Wire name of {@link #maxRuns()}. */
    public static final String FIELD_MAX_RUNS = "maxRuns";

    /** A CRON spec. */
    public static ScheduleSpec cron(String expression, String zoneId) {
        return new ScheduleSpec(ScheduleType.CRON, expression, zoneId, null, null, null);
    }

    /** A FIXED_RATE spec; {@code start} may be null (the parser's clock decides). */
    public static ScheduleSpec fixedRate(long periodMs, Instant start) {
        return new ScheduleSpec(ScheduleType.FIXED_RATE, null, null, periodMs, null, start);
    }

    /** A FIXED_DELAY spec. */
    public static ScheduleSpec fixedDelay(long delayMs) {
        return new ScheduleSpec(ScheduleType.FIXED_DELAY, null, null, null, delayMs, null);
    }

    /** A ONE_SHOT spec. */
    public static ScheduleSpec oneShot(Instant at) {
        return new ScheduleSpec(ScheduleType.ONE_SHOT, null, null, null, null, at);
    }

    /** An API spec. */
    public static ScheduleSpec api() {
        return new ScheduleSpec(ScheduleType.API, null, null, null, null, null);
    }

    /** Whether any of the window and jitter fields is set. */
    public boolean hasWindow() {
        return jitterMs != null || spread != null || startAt != null || endAt != null || maxRuns != null;
    }

    /** This spec with the window and jitter fields of {@code other}. */
    public ScheduleSpec withWindowOf(ScheduleSpec other) {
        return withWindow(other.jitterMs, other.spread, other.startAt, other.endAt, other.maxRuns)
                .withCalendar(other.calendar);
    }

    /** This spec skipping the excluded days of calendar {@code name} (null: none). */
    public ScheduleSpec withCalendar(String name) {
        return new ScheduleSpec(type, expression, zoneId, periodMs, delayMs, at, jitterMs, spread, startAt, endAt,
                maxRuns, name);
    }

    /** This spec with a window and jitter. */
    public ScheduleSpec withWindow(Long newJitterMs, Boolean newSpread, Instant newStartAt, Instant newEndAt,
            Integer newMaxRuns) {
        return new ScheduleSpec(type, expression, zoneId, periodMs, delayMs, at, newJitterMs, newSpread, newStartAt,
                newEndAt, newMaxRuns, calendar);
    }

    /**
     * The fields that represent {@code expression}, without window or jitter; parsing them again gives an equal
     * expression
     * (durations are stored in whole milliseconds).
     */
    public static ScheduleSpec of(TimeExpression expression) {
        Objects.requireNonNull(expression, "expression");
        if (expression instanceof CronSchedule cron) {
            return cron(cron.expression(), cron.zone().getId());
        } else if (expression instanceof FixedRateSchedule rate) {
            return fixedRate(rate.period().toMillis(), rate.start());
        } else if (expression instanceof FixedDelaySchedule delay) {
            return fixedDelay(delay.delay().toMillis());
        } else if (expression instanceof OneShotSchedule oneShot) {
            return oneShot(oneShot.at());
        }
        return api();
    }
}
