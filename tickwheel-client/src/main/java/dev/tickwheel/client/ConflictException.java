package dev.tickwheel.client;

import dev.tickwheel.client.model.InstanceStatus;

/**
 * 409: a cancel or reschedule came too late. {@link #code()} is the outcome, {@code ALREADY_DISPATCHED} (it runs, or
 * runs at its old time) or {@code ALREADY_FINISHED} (it ran, or was cancelled already), and
 * {@link #instanceStatus()} the instance's status after the call. Or a create whose name is taken: {@code name_taken}
 * (a calendar, pool, namespace or token of that name exists), with no instance.
 *
 * <p>Caveat: cancels are retried (they are safe to repeat), so a cancel whose first attempt took effect but whose
 * answer was lost ends here with {@code ALREADY_FINISHED} and status {@code CANCELLED}: the instance will never run,
 * though this call cannot tell whether it was this caller's attempt or another caller that cancelled it.
 *
 * <p>Immutable.
 */
public class ConflictException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    private final long instanceId;
    private final InstanceStatus instanceStatus;

    /**
     * @param instanceId     the instance the call was about, or 0 if the answer did not say
     * @param instanceStatus its status after the call, or null if the answer did not say
     */
    public ConflictException(String code, String message, int attempts, long instanceId,
                             InstanceStatus instanceStatus) {
        super(409, code, null, message, attempts, null);
        this.instanceId = instanceId;
        this.instanceStatus = instanceStatus;
    }

    /** The instance the call was about, or 0 if the answer did not say. */
    public long instanceId() {
        return instanceId;
    }

    /** The instance's status after the call, or null if the answer did not say. */
    public InstanceStatus instanceStatus() {
        return instanceStatus;
    }
}
