package dev.tickwheel.server.instance;

import java.util.Objects;

/**
 * The answer to "move waiting instance X to time T": moved, or why not.
 *
 * <p>Immutable.
 *
 * @param outcome  what happened
 * @param instance the instance after the move (RESCHEDULED), or as it was seen when refused; null if unknown
 */
public record RescheduleOutcome(Kind outcome, Instance instance) {

    /** What a reschedule did. */
    public enum Kind {
        /** The instance was WAITING and is now due at the new time; it fires then, and not at the old time. */
        RESCHEDULED,
        /** The instance was already claimed: it fires (or fired) at its old time. */
        ALREADY_DISPATCHED,
        /** The instance had already ended. */
        ALREADY_FINISHED,
        /** No instance has this id (or key). */
        UNKNOWN
    }

    public RescheduleOutcome {
        Objects.requireNonNull(outcome, "outcome");
    }

    /** The refusal for an instance seen in {@code status} (never WAITING). */
    public static RescheduleOutcome refused(Instance seen) {
        Kind kind = switch (CancelOutcome.refusedIn(seen.status())) {
            case ALREADY_DISPATCHED -> Kind.ALREADY_DISPATCHED;
            case ALREADY_FINISHED -> Kind.ALREADY_FINISHED;
            case CANCELLED, UNKNOWN -> throw new IllegalStateException("not a refusal: " + seen.status());
        };
        return new RescheduleOutcome(kind, seen);
    }
}
