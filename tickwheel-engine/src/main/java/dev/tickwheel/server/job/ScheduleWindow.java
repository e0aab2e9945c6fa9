package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.ScheduleType;
import java.time.Instant;

/**
 * The window and jitter of a CRON or FIXED_RATE schedule ({@link ScheduleSpec#jitterMs()}, {@code spread},
 * {@code startAt}, {@code endAt}, {@code maxRuns}): which trigger times get an instance, and how late after its trigger
 * time each instance fires.
 *
 * <ul>
 *   <li>Trigger times before {@code startAt} or after {@code endAt} get no instance and are not misfires: they are
 *       outside the schedule. Past {@code endAt}, or once {@code maxRuns} instances have been created from the
 *       schedule (counted in the store with each loader pass, so a restart or another member continues the count),
 *       the job has no next trigger time. On-demand runs do not count.</li>
 *   <li>Jitter: an instance of trigger time {@code t} is due at {@code t + d}, {@code 0 <= d <= jitterMs}, never
 *       earlier. {@code d} is a hash of the job and {@code t} (or of the job alone with {@code spread}, one offset for
 *       all its triggers, so that jobs created together on one expression fan out over the window by their ids), so
 *       every member, and a restarted one, computes the same. The instance keeps {@code t} as its schedule slot: the
 *       slot's uniqueness and the misfire policy work on trigger times as without jitter.</li>
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
public final class ScheduleWindow {

    /** Longest jitter: one day. */
    public static final long MAX_JITTER_MS = 86_400_000L;

    private ScheduleWindow() {
    }

    /** A window or jitter field at fault: {@link #field()} is its wire name within the schedule. */
    public static final class InvalidWindowException extends IllegalArgumentException {

        private final String field;

        InvalidWindowException(String field, String message) {
            super(message);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    /**
     * Checks the window and jitter fields of {@code schedule}.
     *
     * @throws InvalidWindowException naming the field at fault
     */
    public static void check(ScheduleSpec schedule) {
        if (schedule.calendar() != null && schedule.type() != ScheduleType.CRON
                && schedule.type() != ScheduleType.FIXED_RATE) {
            throw new InvalidWindowException("calendar", "calendar applies to CRON and FIXED_RATE schedules only, not"
                    + " to " + schedule.type());
        }
        if (!schedule.hasWindow()) {
            return;
        }
        if (schedule.type() != ScheduleType.CRON && schedule.type() != ScheduleType.FIXED_RATE) {
            String field = firstWindowField(schedule);
            throw new InvalidWindowException(field, field + " applies to CRON and FIXED_RATE schedules only, not to "
                    + schedule.type());
        }
        Long jitter = schedule.jitterMs();
        if (jitter != null && (jitter < 0 || jitter > MAX_JITTER_MS)) {
            throw new InvalidWindowException(ScheduleSpec.FIELD_JITTER_MS,
                    "jitterMs must be in 0.." + MAX_JITTER_MS + ": " + jitter);
        }
        if (Boolean.TRUE.equals(schedule.spread()) && (jitter == null || jitter == 0)) {
            throw new InvalidWindowException(ScheduleSpec.FIELD_SPREAD, "spread needs a jitterMs to spread over");
        }
        if (schedule.startAt() != null && schedule.endAt() != null && !schedule.endAt().isAfter(schedule.startAt())) {
            throw new InvalidWindowException(ScheduleSpec.FIELD_END_AT, "endAt must be after startAt: "
                    + schedule.endAt() + " is not after " + schedule.startAt());
        }
        if (schedule.maxRuns() != null && schedule.maxRuns() < 1) {
            throw new InvalidWindowException(ScheduleSpec.FIELD_MAX_RUNS,
                    "maxRuns must be at least 1: " + schedule.maxRuns());
        }
    }

    private static String firstWindowField(ScheduleSpec s) {
        if (s.jitterMs() != null) {
            return ScheduleSpec.FIELD_JITTER_MS;
        }
        if (s.spread() != null) {
            return ScheduleSpec.FIELD_SPREAD;
        }
        if (s.startAt() != null) {
            return ScheduleSpec.FIELD_START_AT;
        }
        return s.endAt() != null ? ScheduleSpec.FIELD_END_AT : ScheduleSpec.FIELD_MAX_RUNS;
    }

    /** How long after trigger time {@code trigger} job {@code jobId}'s instance is due; 0 without jitter. */
    public static long jitterMs(long jobId, ScheduleSpec schedule, Instant trigger) {
        Long jitter = schedule.jitterMs();
        if (jitter == null || jitter == 0) {
            return 0;
        }
        long seed = Boolean.TRUE.equals(schedule.spread()) ? jobId : jobId * 0x9E3779B97F4A7C15L + trigger.toEpochMilli();
        return StableHash.uniform(seed ^ 0x5DEECE66DL, jitter);
    }

    /** Whether {@code trigger} lies inside the window's start and end. */
    public static boolean admits(ScheduleSpec schedule, Instant trigger) {
        return (schedule.startAt() == null || !trigger.isBefore(schedule.startAt()))
                && (schedule.endAt() == null || !trigger.isAfter(schedule.endAt()));
    }

    /** How many more instances the schedule may create, after {@code runsSoFar}; {@code Long.MAX_VALUE} if unbounded. */
    public static long runsLeft(ScheduleSpec schedule, long runsSoFar) {
        return schedule.maxRuns() == null ? Long.MAX_VALUE : Math.max(0, schedule.maxRuns() - runsSoFar);
    }
}
