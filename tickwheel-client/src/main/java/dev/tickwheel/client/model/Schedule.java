package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A job's schedule on the wire: {@code {"type": "CRON", "expression": "0/5 * * * * ?", "zone": "UTC"}}. Each type
 * uses some fields and leaves the others null; the factories below set exactly those. The server checks the values
 * (a bad cron expression is a {@link dev.tickwheel.client.ValidationException} naming {@code schedule.expression}).
 *
 * <p>Immutable.
 *
 * @param type       the kind of schedule
 * @param expression CRON: Quartz syntax with seconds
 * @param zone       CRON: time-zone id (the server's default UTC when null)
 * @param periodMs   FIXED_RATE: the period in milliseconds
 * @param delayMs    FIXED_DELAY: the delay after each run ends, in milliseconds
 * @param at         ONE_SHOT: the instant; FIXED_RATE: the first trigger (optional)
 * @param jitterMs   CRON and FIXED_RATE: each instance is due up to this many ms after its trigger time
 * @param spread     with jitterMs: one offset per job instead of one per trigger
 * @param startAt    CRON and FIXED_RATE: no trigger time before this
 * @param endAt      CRON and FIXED_RATE: no trigger time after this
 * @param maxRuns    CRON and FIXED_RATE: at most this many instances from the schedule
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record Schedule(ScheduleType type, String expression, String zone, Long periodMs, Long delayMs, Instant at,
        Long jitterMs, Boolean spread, Instant startAt, Instant endAt, Integer maxRuns) {

    public Schedule {
        Objects.requireNonNull(type, "type");
    }

    /** A schedule without window or jitter. */
    public Schedule(ScheduleType type, String expression, String zone, Long periodMs, Long delayMs, Instant at) {
        this(type, expression, zone, periodMs, delayMs, at, null, null, null, null, null);
    }

    /** This schedule with each instance due up to {@code jitter} after its trigger time (never before it). */
    public Schedule withJitter(Duration jitter, boolean spreadPerJob) {
        return new Schedule(type, expression, zone, periodMs, delayMs, at, jitter.toMillis(),
                spreadPerJob ? Boolean.TRUE : null, startAt, endAt, maxRuns);
    }

    /** This schedule with no trigger time before {@code start} or after {@code end} (either may be null). */
    public Schedule withWindow(Instant start, Instant end) {
        return new Schedule(type, expression, zone, periodMs, delayMs, at, jitterMs, spread, start, end, maxRuns);
    }

    /** This schedule with at most {@code runs} instances. */
    public Schedule withMaxRuns(int runs) {
        return new Schedule(type, expression, zone, periodMs, delayMs, at, jitterMs, spread, startAt, endAt, runs);
    }

    /** A Quartz cron expression with seconds ({@code "0 0 2 * * ?"}) in {@code zone} (null: UTC). */
    public static Schedule cron(String expression, String zone) {
        return new Schedule(ScheduleType.CRON, Objects.requireNonNull(expression, "expression"), zone, null, null,
                null);
    }

    /** Every {@code period}, from now. */
    public static Schedule fixedRate(Duration period) {
        return new Schedule(ScheduleType.FIXED_RATE, null, null, period.toMillis(), null, null);
    }

    /** Every {@code period}, first at {@code firstAt}. */
    public static Schedule fixedRate(Duration period, Instant firstAt) {
        return new Schedule(ScheduleType.FIXED_RATE, null, null, period.toMillis(), null,
                Objects.requireNonNull(firstAt, "firstAt"));
    }

    /** {@code delay} after each run ends. */
    public static Schedule fixedDelay(Duration delay) {
        return new Schedule(ScheduleType.FIXED_DELAY, null, null, null, delay.toMillis(), null);
    }

    /** Once, at {@code at}. */
    public static Schedule oneShot(Instant at) {
        return new Schedule(ScheduleType.ONE_SHOT, null, null, null, null, Objects.requireNonNull(at, "at"));
    }

    /** No schedule: instances only when asked ({@code run}). */
    public static Schedule api() {
        return new Schedule(ScheduleType.API, null, null, null, null, null);
    }
}
