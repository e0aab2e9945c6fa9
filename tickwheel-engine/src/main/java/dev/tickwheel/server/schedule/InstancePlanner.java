package dev.tickwheel.server.schedule;

import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.ScheduleWindow;
import dev.tickwheel.time.FixedDelaySchedule;
import dev.tickwheel.time.MisfireResolution;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.MissedInstance;
import dev.tickwheel.time.OneShotSchedule;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.TimeExpression;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * Decides which instances a due job gets in one loader pass: every trigger time from the job's next trigger time up to
 * the end of the load window (a cron every 2 s gets 15 instances for a 30 s window), with trigger times older than the
 * misfire threshold resolved by the job's misfire policy.
 *
 * <p>A trigger time between {@code now - misfireThreshold} and {@code now} is late, not missed: it gets its instance
 * and fires at once. Older ones are missed: FIRE_ONCE_NOW keeps the latest, SKIP none, FIRE_ALL the latest
 * {@code fireAllLimit}.
 *
 * <p>A schedule's window ({@link ScheduleWindow}) bounds this: trigger times before its start or after its end get no
 * instance and are not missed, and once its {@code maxRuns} are used up the job has no next trigger time.
 *
 * <p>Immutable; thread-safe. Pure: time comes in as arguments.
 */
public final class InstancePlanner {

    /** Most trigger times one job gets in one pass, so a sub-second schedule cannot flood a pass. */
    public static final int MAX_TRIGGERS_PER_PASS = 10_000;
    /** Most missed trigger times walked through for one job (a cron every second down for a day has 86 400). */
    static final int MAX_MISSED_WALK = 1_000_000;

    private final Duration misfireThreshold;
    private final MisfireResolver misfires;

    public InstancePlanner(Duration misfireThreshold, MisfireResolver misfires) {
        this.misfireThreshold = Objects.requireNonNull(misfireThreshold, "misfireThreshold");
        this.misfires = Objects.requireNonNull(misfires, "misfires");
    }

    /**
     * The plan for {@code job}'s triggers up to {@code windowEnd}, skipping the trigger times on the days
     * {@code calendar} excludes (null: none): they get no instance, are not misses, and do not count as runs.
     */
    public LoadPlan plan(Job job, TimeExpression expression, Instant now, Instant windowEnd, JobCalendar calendar) {
        LoadPlan plan = planUnbounded(job, expression, now, windowEnd);
        ScheduleSpec schedule = job.schedule();
        if (!schedule.hasWindow() && calendar == null) {
            return plan;
        }
        Instant end = schedule.endAt();
        List<Instant> triggers = new ArrayList<>();
        int skipped = 0;
        for (Instant trigger : plan.triggerTimes()) {
            if (!ScheduleWindow.admits(schedule, trigger)) {
                continue;
            }
            if (calendar != null && calendar.excludes(trigger)) {
                skipped++;
            } else {
                triggers.add(trigger);
            }
        }
        Instant next = plan.nextTrigger();
        if (next != null && end != null && next.isAfter(end)) {
            next = null;
        }
        long left = ScheduleWindow.runsLeft(schedule, job.scheduledRuns());
        if (triggers.size() >= left) {
            triggers = new ArrayList<>(triggers.subList(0, (int) left));
            next = null;
        }
        return new LoadPlan(triggers, next, plan.droppedMissed(), skipped);
    }

    private LoadPlan planUnbounded(Job job, TimeExpression expression, Instant now, Instant windowEnd) {
        Instant first = job.nextTriggerTime();
        if (first == null || first.isAfter(windowEnd)) {
            return new LoadPlan(List.of(), first, 0);
        }
        Instant start = job.schedule().startAt();
        boolean single = expression instanceof FixedDelaySchedule || expression instanceof OneShotSchedule;
        Instant lateLimit = now.minus(misfireThreshold);
        Deque<Instant> missed = new ArrayDeque<>();
        List<Instant> upcoming = new ArrayList<>();
        int walked = 0;
        Instant cursor = first;
        while (cursor != null && !cursor.isAfter(windowEnd)
                && upcoming.size() < MAX_TRIGGERS_PER_PASS && walked < MAX_MISSED_WALK) {
            if (start != null && cursor.isBefore(start)) {
                // Before the schedule's start: not a trigger at all, so not a missed one either.
                cursor = single ? null : expression.nextAfter(start.minusMillis(1)).orElse(null);
                continue;
            }
            walked++;
            if (cursor.isBefore(lateLimit)) {
                missed.addLast(cursor);
                if (missed.size() > misfires.fireAllLimit()) {
                    missed.removeFirst(); // only the latest can be kept by any policy
                }
            } else {
                upcoming.add(cursor);
            }
            cursor = single ? null : expression.nextAfter(cursor).orElse(null);
        }
        if (missed.isEmpty()) {
            // A single-instance schedule has no next trigger until its instance completes (fixed delay) or ever
            // (one-shot).
            return new LoadPlan(upcoming, single ? null : cursor, 0);
        }
        MisfireResolution resolution = misfires.resolve(expression, job.misfirePolicy(), missed, now);
        List<Instant> triggers = new ArrayList<>();
        for (MissedInstance instance : resolution.instancesToCreate()) {
            triggers.add(instance.expectedTriggerTime());
        }
        triggers.addAll(upcoming);
        int dropped = resolution.droppedCount() + (walked - missed.size() - upcoming.size());
        Instant nextTrigger;
        if (expression instanceof OneShotSchedule) {
            nextTrigger = null;
        } else if (single) {
            // Fixed delay: the next trigger follows completion, unless SKIP created nothing to complete.
            nextTrigger = triggers.isEmpty() ? resolution.nextTriggerTime().orElse(null) : null;
        } else {
            nextTrigger = cursor;
        }
        return new LoadPlan(triggers, nextTrigger, dropped);
    }
}
