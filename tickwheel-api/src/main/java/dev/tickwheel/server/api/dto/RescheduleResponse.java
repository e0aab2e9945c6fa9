package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * Answer of a reschedule: 200 with RESCHEDULED, 409 with ALREADY_DISPATCHED or ALREADY_FINISHED.
 *
 * <p>Immutable.
 *
 * @param outcome             what happened
 * @param instanceId          the instance as a decimal string
 * @param key                 its caller's key, or null
 * @param status              its status after the call
 * @param expectedTriggerTime when it is due now (RESCHEDULED: the new time; refused: the time it kept)
 */
public record RescheduleResponse(String outcome, String instanceId, String key, String status,
                                 Instant expectedTriggerTime) {
}
