package dev.tickwheel.time;

import com.cronutils.model.time.ExecutionTime;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Quartz cron expression (seconds, optional year) evaluated by cron-utils in an explicit time zone.
 *
 * <pre>
 * Daylight saving time, what we do (Europe/Berlin, 2026):
 *
 *   spring forward 03-29 02:00 -> 03:00   local 02:00..02:59 does not exist.
 *     "0 30 2 * * ?"   no trigger that day: 03-28 02:30+01, then 03-30 02:30+02.
 *     "0 0/15 * * * ?" 01:45+01 is followed by 03:00+02.
 *
 *   fall back 10-25 03:00 -> 02:00        local 02:00..02:59 happens twice (+02, then +01).
 *     "0 30 2 * * ?"   fires once, at the first 02:30 (00:30Z); the next trigger is 10-26 02:30+01.
 *     "0 0/15 * * * ?" fires in both passes: 02:00+02 .. 02:45+02, 02:00+01 .. 02:45+01, 03:00+01.
 *
 * These are cron-utils' results when it steps from one trigger to the next (the canonical series). Asked
 * from an arbitrary instant inside the repeated hour, cron-utils can answer with the second 02:30 although
 * the series already fired at the first; a loader that plans windows (t, t + 30 s] would then create the
 * daily instance twice. So for a query instant inside an overlap (both passes), nextAfter re-walks the
 * canonical series from just before the overlap: every answer is an element of the canonical series, the
 * series is strictly increasing, and no wall-clock time fires twice unless the series itself says so.
 * </pre>
 *
 * <p>Immutable; thread-safe (cron-utils' ExecutionTime holds only final, immutable state).
 *
 * <p>Caveats: a query inside an overlap costs one cron-utils step per trigger in the overlap (3 600 for a
 * cron every second, about 60 ms), once per query. An expression that can never fire (Feb 30, the sixth
 * Monday) is rejected when parsed; one whose last trigger is in the past (year 2020) is accepted and simply
 * has no next trigger.
 */
public final class CronSchedule implements PlannedExpression {

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime executionTime;

    private CronSchedule(String expression, ZoneId zone, ExecutionTime executionTime) {
        this.expression = expression;
        this.zone = zone;
        this.executionTime = executionTime;
    }

    /**
     * Parses and validates a cron expression.
     *
     * @param expression Quartz syntax with seconds, e.g. {@code "0/2 * * * * ?"}; whitespace is normalized
     * @param zone       the zone the expression is read in
     * @throws InvalidTimeExpressionException (field {@code expression}) if blank, malformed or never firing
     */
    public static CronSchedule parse(String expression, ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        if (expression == null || expression.isBlank()) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_EXPRESSION,
                    "expression is required for a CRON schedule and must not be blank");
        }
        String normalized = CronSyntax.normalize(expression);
        CronSchedule cron = new CronSchedule(normalized, zone, ExecutionTime.forCron(CronSyntax.parse(normalized)));
        if (cron.nextAfter(EARLIEST_SUPPORTED.minusNanos(1)).isEmpty()) {
            throw new InvalidTimeExpressionException(ScheduleSpec.FIELD_EXPRESSION, "cron expression '" + normalized
                    + "' never fires: no date between 1970 and 2099 matches it");
        }
        return cron;
    }

    /** The normalized expression (single spaces), as it should be stored. */
    public String expression() {
        return expression;
    }

    /** The zone the expression is read in. */
    public ZoneId zone() {
        return zone;
    }

    @Override
    public ScheduleType type() {
        return ScheduleType.CRON;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        if (SupportedRange.atOrPastEnd(after)) {
            return Optional.empty();
        }
        Instant from = after.isBefore(EARLIEST_SUPPORTED) ? EARLIEST_SUPPORTED.minusNanos(1) : after;
        Optional<Instant> overlapStart = overlapStartContaining(from);
        if (overlapStart.isEmpty()) {
            return step(from);
        }
        // Re-walk the canonical series from just before the overlap; see the class comment.
        Optional<Instant> next = step(overlapStart.get().minusNanos(1));
        while (next.isPresent() && !next.get().isAfter(from)) {
            next = step(next.get());
        }
        return next;
    }

    /** Steps trigger to trigger, so the whole window costs one cron-utils call per trigger. */
    @Override
    public List<Instant> triggersIn(Instant fromExclusive, Instant toInclusive, int maxCount) {
        PlannedExpression.checkWindow(fromExclusive, toInclusive, maxCount);
        List<Instant> triggers = new ArrayList<>(Math.min(maxCount, 64));
        Optional<Instant> next = nextAfter(fromExclusive);
        while (next.isPresent() && !next.get().isAfter(toInclusive) && triggers.size() < maxCount) {
            triggers.add(next.get());
            next = step(next.get());
        }
        return List.copyOf(triggers);
    }

    /** One cron-utils step, guarded so that a library bug can never move the series backwards. */
    private Optional<Instant> step(Instant from) {
        if (SupportedRange.atOrPastEnd(from)) {
            return Optional.empty();
        }
        Optional<Instant> next = executionTime.nextExecution(ZonedDateTime.ofInstant(from, zone))
                .map(ZonedDateTime::toInstant);
        if (next.isPresent() && !next.get().isAfter(from)) {
            throw new IllegalStateException("cron-utils returned " + next.get() + ", not after " + from
                    + ", for '" + expression + "' in " + zone);
        }
        return next.filter(SupportedRange::beforeEnd);
    }

    /**
     * If {@code instant} lies in a fall-back overlap, in either pass ({@code [T - d, T + d)} for a transition
     * at T that turns clocks back by d), the start of that overlap {@code T - d}.
     */
    private Optional<Instant> overlapStartContaining(Instant instant) {
        var rules = zone.getRules();
        if (rules.isFixedOffset()) {
            return Optional.empty();
        }
        for (ZoneOffsetTransition transition : new ZoneOffsetTransition[] {
                rules.nextTransition(instant), rules.previousTransition(instant.plusNanos(1))}) {
            if (transition != null && transition.isOverlap()) {
                Duration backBy = transition.getDuration().negated();
                Instant start = transition.getInstant().minus(backBy);
                Instant end = transition.getInstant().plus(backBy);
                if (!instant.isBefore(start) && instant.isBefore(end)) {
                    return Optional.of(start);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CronSchedule that && expression.equals(that.expression) && zone.equals(that.zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(expression, zone);
    }

    @Override
    public String toString() {
        return "CronSchedule[expression=" + expression + ", zone=" + zone + "]";
    }
}
