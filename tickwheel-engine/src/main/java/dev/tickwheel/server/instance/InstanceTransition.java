package dev.tickwheel.server.instance;

/**
 * The named moves of the instance state machine, each a legal pair of {@link InstanceStatus} values.
 *
 * <p>A store performs a transition as one compare-and-set: it changes the row only if its status is still
 * {@link #from()}. Constructing the constants checks each pair against {@link InstanceStatus#canMoveTo}, so this
 * enum cannot drift from the table there.
 *
 * <p>Immutable.
 */
public enum InstanceTransition {
    /** A dispatcher takes the instance; exactly one claim of a waiting instance succeeds. */
    CLAIM(InstanceStatus.WAITING, InstanceStatus.DISPATCHING),
    /** The target reported success. */
    SUCCEED(InstanceStatus.DISPATCHING, InstanceStatus.SUCCEEDED),
    /** The attempt failed and no attempts remain. */
    FAIL(InstanceStatus.DISPATCHING, InstanceStatus.FAILED),
    /** The attempt failed and another is due later. */
    RETRY(InstanceStatus.DISPATCHING, InstanceStatus.WAITING),
    /**
     * A claim whose call never ended is given back after a server stop: WAITING again as the <em>same</em> attempt
     * (the attempt count goes back by one, so the next claim makes the same {@code Idempotency-Key}).
     */
    RELEASE(InstanceStatus.DISPATCHING, InstanceStatus.WAITING),
    /** An AT_MOST_ONCE call was cut by a server stop and must not be repeated. */
    INTERRUPT(InstanceStatus.DISPATCHING, InstanceStatus.INTERRUPTED),
    /** The instance is withdrawn before it was claimed. */
    CANCEL(InstanceStatus.WAITING, InstanceStatus.CANCELLED),
    /** The instance fired while its job was at its concurrency limit and the job skips such instances. */
    SKIP(InstanceStatus.WAITING, InstanceStatus.CANCELLED);

    private final InstanceStatus from;
    private final InstanceStatus to;

    InstanceTransition(InstanceStatus from, InstanceStatus to) {
        from.checkCanMoveTo(to);
        this.from = from;
        this.to = to;
    }

    /** The status a row must have for this transition to apply. */
    public InstanceStatus from() {
        return from;
    }

    /** The status a row has after this transition. */
    public InstanceStatus to() {
        return to;
    }
}
