package dev.tickwheel.client.model;

/**
 * The outcome of a cancel: of a single cancel that succeeded (CANCELLED; a refused one is a
 * {@link dev.tickwheel.client.ConflictException}), or one item of a batch cancel (any outcome).
 *
 * <p>Immutable.
 *
 * @param outcome    what happened
 * @param instanceId the instance's ID
 * @param status     the instance's status after the call, or null if it could not be read
 */
public record CancelResult(CancelOutcome outcome, long instanceId, InstanceStatus status) {
}
