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
 */
public record LoadPlan(List<Instant> triggerTimes, Instant nextTrigger, int droppedMissed) {

    public LoadPlan {
        triggerTimes = List.copyOf(triggerTimes);
    }
}
