package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * Answer of {@code POST /api/jobs/{id}/run}.
 *
 * <p>Immutable.
 *
 * @param instanceId          the new instance's ID as a decimal string
 * @param expectedTriggerTime when it is due
 */
public record RunResponse(String instanceId, Instant expectedTriggerTime) {
}
