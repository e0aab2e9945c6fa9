package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleType;
import java.time.Instant;
import java.util.Objects;

/**
 * The raw schedule of a job, exactly as it is stored: a type plus the fields that type uses.
 *
 * <p>Which fields a type uses: {@code CRON} uses {@code expression} and {@code zone}; {@code FIXED_RATE} uses
 * {@code periodMs} (and optionally {@code at} as the first trigger); {@code FIXED_DELAY} uses {@code delayMs};
 * {@code ONE_SHOT} uses {@code at}; {@code API} uses none. This record only checks that {@code type} is present:
 * parsing and validating the expression is the job of {@code dev.tickwheel.time}, so that the store can always
 * read back what it once wrote.
 *
 * <p>Immutable.
 *
 * @param type       how the job produces instances; never null
 * @param expression the cron expression (Quartz syntax with seconds), or null
 * @param zone       the time-zone id the cron expression is evaluated in, or null
 * @param periodMs   the period of a fixed-rate job in milliseconds, or null
 * @param delayMs    the delay of a fixed-delay job in milliseconds, or null
 * @param at         the instant of a one-shot job (or the start of a fixed-rate job), or null
 */
public record ScheduleSpec(
        ScheduleType type, String expression, String zone, Long periodMs, Long delayMs, Instant at) {

    public ScheduleSpec {
        Objects.requireNonNull(type, "type");
    }

    /** A cron schedule evaluated in {@code zone}. */
    public static ScheduleSpec cron(String expression, String zone) {
        return new ScheduleSpec(ScheduleType.CRON, expression, zone, null, null, null);
    }

    /** Instances at {@code start + k * periodMs}. */
    public static ScheduleSpec fixedRate(long periodMs, Instant start) {
        return new ScheduleSpec(ScheduleType.FIXED_RATE, null, null, periodMs, null, start);
    }

    /** The next instance {@code delayMs} after the previous one completed. */
    public static ScheduleSpec fixedDelay(long delayMs) {
        return new ScheduleSpec(ScheduleType.FIXED_DELAY, null, null, null, delayMs, null);
    }

    /** A single instance at {@code at}. */
    public static ScheduleSpec oneShot(Instant at) {
        return new ScheduleSpec(ScheduleType.ONE_SHOT, null, null, null, null, at);
    }

    /** No schedule: instances only on demand. */
    public static ScheduleSpec api() {
        return new ScheduleSpec(ScheduleType.API, null, null, null, null, null);
    }
}
