package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * Answer of {@code POST /api/jobs/{id}/run} (201 when created, 200 when the key named an existing instance), and one
 * item of the answer of {@code POST /api/jobs/{id}/runs}.
 *
 * <p>Immutable.
 *
 * @param instanceId          the instance's ID as a decimal string
 * @param expectedTriggerTime when it is (or was) due
 * @param key                 the caller's key, or null
 * @param created             true if this call created the instance, false if the key named an existing one
 * @param status              the instance's status (WAITING when just created)
 */
public record RunResponse(String instanceId, Instant expectedTriggerTime, String key, boolean created,
                          String status) {
}
