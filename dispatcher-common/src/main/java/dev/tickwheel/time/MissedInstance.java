package dev.tickwheel.time;

import java.time.Instant;
import java.util.Objects;

/**
 * One instance to create for a missed trigger.
 *
 * <p>Immutable.
 *
 * @param expectedTriggerTime the trigger time that was missed, to be stored as the instance's expected time
 * @param dueAt               when the instance should fire: the resolution's "now"
 */
public record MissedInstance(Instant expectedTriggerTime, Instant dueAt) {

    /** @throws NullPointerException if either instant is null */
    public MissedInstance {
        Objects.requireNonNull(expectedTriggerTime, "expectedTriggerTime");
        Objects.requireNonNull(dueAt, "dueAt");
    }
}
