package dev.tickwheel.time;

import java.time.Instant;
import java.util.Optional;

/**
 * When a job's instances are due: one immutable value per {@link ScheduleType}.
 *
 * <table>
 *   <caption>What {@link #nextAfter(Instant)} means for each kind</caption>
 *   <tr><th>kind</th><th>{@code after} is</th><th>returns</th></tr>
 *   <tr><td>{@link CronSchedule}</td><td>any instant</td><td>the first cron match strictly after it</td></tr>
 *   <tr><td>{@link FixedRateSchedule}</td><td>any instant</td><td>the first {@code start + k * period} strictly after it</td></tr>
 *   <tr><td>{@link OneShotSchedule}</td><td>any instant</td><td>{@code at} if {@code after < at}, else empty</td></tr>
 *   <tr><td>{@link FixedDelaySchedule}</td><td>the previous instance's completion</td><td>{@code completion + delay}</td></tr>
 *   <tr><td>{@link ApiSchedule}</td><td>ignored</td><td>always empty</td></tr>
 * </table>
 *
 * <p>The first three are {@link PlannedExpression}s: their whole trigger series is known in advance, so a
 * loader can list every trigger in a window with {@link PlannedExpression#triggersIn}. A fixed-delay job's next
 * trigger exists only once its previous instance has completed.
 *
 * <p>Every trigger time lies in {@code [EARLIEST_SUPPORTED, LATEST_SUPPORTED)}, the year range of Quartz cron
 * (1970–2099). Inputs outside it are rejected by the constructors; query instants outside it are clamped, so
 * {@code nextAfter(Instant.MAX)} is simply empty.
 *
 * <p>Immutable; all implementations are thread-safe.
 *
 * <p>Caveats: trigger times have the precision of their inputs (cron: whole seconds; fixed rate and delay:
 * milliseconds as parsed from the wire, nanoseconds if built in code).
 */
public sealed interface TimeExpression
        permits PlannedExpression, FixedDelaySchedule, ApiSchedule {

    /** The first supported trigger time, 1970-01-01T00:00:00Z (inclusive). */
    Instant EARLIEST_SUPPORTED = Instant.parse("1970-01-01T00:00:00Z");

    /** The end of the supported range, 2100-01-01T00:00:00Z (exclusive): Quartz cron years stop at 2099. */
    Instant LATEST_SUPPORTED = Instant.parse("2100-01-01T00:00:00Z");

    /** The schedule type this expression implements. */
    ScheduleType type();

    /**
     * The next trigger time; see the class table for what {@code after} means per kind.
     *
     * @param after the reference instant, any value (clamped to the supported range)
     * @return the next trigger strictly after {@code after}, or empty if there is none in the supported range
     */
    Optional<Instant> nextAfter(Instant after);
}
