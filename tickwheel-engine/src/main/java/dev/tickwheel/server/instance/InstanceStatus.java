package dev.tickwheel.server.instance;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where an instance is in its life, and the one table of legal moves between those states.
 *
 * <pre>
 *   WAITING ──claim──► DISPATCHING ──► SUCCEEDED
 *      │  ▲                 │      ├──► FAILED
 *      │  │                 │      └──► INTERRUPTED   (AT_MOST_ONCE call cut by a server stop)
 *      │  └─retry, release──┘
 *      └──cancel, skip──► CANCELLED
 * </pre>
 *
 * <p>{@code SUCCEEDED}, {@code FAILED}, {@code INTERRUPTED} and {@code CANCELLED} are terminal. The store performs each legal move as one
 * compare-and-set statement ({@code ... WHERE id = ? AND status = <from>}); see {@link InstanceTransition}.
 *
 * <p>Immutable.
 */
public enum InstanceStatus {
    /** Created, armed (or to be armed) in a wheel, not yet claimed. Cancellable. */
    WAITING,
    /** Claimed by a dispatcher, which is calling the target. */
    DISPATCHING,
    /** The target reported success. Terminal. */
    SUCCEEDED,
    /** The last attempt failed and no attempts remain. Terminal. */
    FAILED,
    /** Cancelled while waiting, by a user or because its job was over its concurrency limit. Terminal. */
    CANCELLED,
    /**
     * The call of an {@code AT_MOST_ONCE} job was cut short by a server stop: the target may or may not have run it,
     * and the job forbids repeating it. Terminal.
     */
    INTERRUPTED;

    /** True if moving from this state to {@code next} is legal. */
    public boolean canMoveTo(InstanceStatus next) {
        return successors().contains(next);
    }

    /**
     * Checks that moving from this state to {@code next} is legal.
     *
     * @throws IllegalStateException naming both states if it is not
     */
    public void checkCanMoveTo(InstanceStatus next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("illegal instance transition: " + this + " -> " + next);
        }
    }

    /** The states this one may move to; empty for terminal states. */
    public Set<InstanceStatus> successors() {
        // A switch rather than a field: enum constants cannot refer to later constants in their constructors.
        return switch (this) {
            case WAITING -> EnumSet.of(DISPATCHING, CANCELLED);
            case DISPATCHING -> EnumSet.of(SUCCEEDED, FAILED, WAITING, INTERRUPTED);
            case SUCCEEDED, FAILED, CANCELLED, INTERRUPTED -> EnumSet.noneOf(InstanceStatus.class);
        };
    }
}
