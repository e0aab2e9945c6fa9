package dev.tickwheel.server.instance;

import java.util.Objects;

/**
 * One instance's answer to a cancel: the outcome and the status it was seen in (CANCELLED when this cancel moved it;
 * null when the instance is unknown).
 *
 * <p>Immutable.
 *
 * @param instanceId the instance
 * @param outcome    what the cancel did
 * @param status     the instance's status after the cancel, as read; null for {@link CancelOutcome#UNKNOWN}
 */
public record CancelResult(long instanceId, CancelOutcome outcome, InstanceStatus status) {

    public CancelResult {
        Objects.requireNonNull(outcome, "outcome");
    }

    /** The result for an id no instance has. */
    public static CancelResult unknown(long instanceId) {
        return new CancelResult(instanceId, CancelOutcome.UNKNOWN, null);
    }
}
