package dev.tickwheel.server.instance;

/**
 * The answer to "cancel instance X": what happened, so a caller can tell a user precisely.
 *
 * <p>Immutable.
 */
public enum CancelOutcome {
    /** The instance was waiting and is now cancelled; it will never be dispatched. */
    CANCELLED,
    /** The instance was already claimed by a dispatcher; the cancel came too late. */
    ALREADY_DISPATCHED,
    /** The instance had already ended: succeeded, failed, interrupted, or was cancelled before. */
    ALREADY_FINISHED,
    /** No instance has this id. */
    UNKNOWN;

    /** The outcome of a cancel that found the instance in {@code status} and so could not cancel it. */
    public static CancelOutcome refusedIn(InstanceStatus status) {
        return switch (status) {
            case DISPATCHING -> ALREADY_DISPATCHED;
            case SUCCEEDED, FAILED, CANCELLED, INTERRUPTED -> ALREADY_FINISHED;
            case WAITING -> throw new IllegalArgumentException("a waiting instance can be cancelled: " + status);
        };
    }
}
