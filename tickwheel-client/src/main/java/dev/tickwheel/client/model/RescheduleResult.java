package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * The answer to a reschedule that moved the instance (outcome RESCHEDULED). A refused one (ALREADY_DISPATCHED,
 * ALREADY_FINISHED: it runs, or ran, at its old time) is a {@link dev.tickwheel.client.ConflictException}.
 *
 * <p>Immutable.
 *
 * @param outcome             RESCHEDULED
 * @param instanceId          the instance's ID
 * @param key                 its caller's key, or null
 * @param status              its status after the call
 * @param expectedTriggerTime its new due time
 */
public record RescheduleResult(RescheduleOutcome outcome, long instanceId, String key, InstanceStatus status,
                               Instant expectedTriggerTime) {
}
