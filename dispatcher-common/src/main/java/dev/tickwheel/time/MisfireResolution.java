package dev.tickwheel.time;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What to do about a job's missed triggers: the instances to create now, how many missed triggers were
 * dropped (for a WARN line and a metric), and the job's next trigger time in the future.
 *
 * <p>Immutable.
 *
 * @param instancesToCreate instances to create, by increasing expected trigger time, all due now
 * @param droppedCount      missed triggers that get no instance (SKIP, or past the FIRE_ALL limit)
 * @param nextTriggerTime   the job's next trigger strictly after now; empty if the schedule has no further
 *                          trigger or, for FIXED_DELAY with an instance created, until that instance completes
 */
public record MisfireResolution(List<MissedInstance> instancesToCreate, int droppedCount,
                                Optional<Instant> nextTriggerTime) {

    /** Copies the list; rejects a negative count. */
    public MisfireResolution {
        instancesToCreate = List.copyOf(instancesToCreate);
        Objects.requireNonNull(nextTriggerTime, "nextTriggerTime");
        if (droppedCount < 0) {
            throw new IllegalArgumentException("droppedCount must not be negative, got " + droppedCount);
        }
    }
}
