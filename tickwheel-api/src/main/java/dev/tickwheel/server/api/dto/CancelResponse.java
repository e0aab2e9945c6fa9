package dev.tickwheel.server.api.dto;

/**
 * Answer of {@code POST /api/instances/{id}/cancel}: 200 with CANCELLED, 409 with ALREADY_DISPATCHED or
 * ALREADY_FINISHED.
 *
 * <p>Immutable.
 *
 * @param outcome    what happened
 * @param instanceId the instance as a decimal string
 * @param status     the instance's status after the call, or null if it could not be read
 */
public record CancelResponse(String outcome, String instanceId, String status) {
}
