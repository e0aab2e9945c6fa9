package dev.tickwheel.server.api.dto;

/**
 * The answer to a callback report that was taken.
 *
 * <p>Immutable.
 *
 * @param instanceId the instance (a decimal string)
 * @param status     its status now: SUCCEEDED, FAILED, WAITING (failed, to be retried) or DISPATCHING (a heartbeat)
 */
public record CallbackResponse(String instanceId, String status) {
}
