package dev.tickwheel.server.schedule;

import java.time.Instant;
import java.util.List;

/**
 * What one loader pass does for one job: the trigger times to create instances for, the job's next trigger time
 * after them, and how many missed triggers the misfire policy dropped.
 *
 * <p>Immutable.
 *
 * @param triggerTimes   expected trigger times of the instances to create, ascending
 * @param nextTrigger    the job's next trigger time after this pass; null if none is known (one-shot done, or a
 *                       fixed-delay job waiting for its instance to complete)
 * @param droppedMissed  missed trigger times that get no instance
 * @param skippedByCalendar trigger times on days the job's calendar excludes, which get no instance (and are neither
 *                          misses nor runs)
 */
public record LoadPlan(List<Instant> triggerTimes, Instant nextTrigger, int droppedMissed, int skippedByCalendar) {

    public LoadPlan {
        triggerTimes = List.copyOf(triggerTimes);
    }

    /** A plan that skipped nothing for a calendar. */
    public LoadPlan(List<Instant> triggerTimes, Instant nextTrigger, int droppedMissed) {
        this(triggerTimes, nextTrigger, droppedMissed, 0);
    }
}
