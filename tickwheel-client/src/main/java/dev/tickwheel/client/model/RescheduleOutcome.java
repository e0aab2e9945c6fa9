package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * What a reschedule did: RESCHEDULED (it runs at the new time, not at the old one), or ALREADY_DISPATCHED
 * or ALREADY_FINISHED (it runs, or ran, at its old time).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum RescheduleOutcome {
    RESCHEDULED,
    ALREADY_DISPATCHED,
    ALREADY_FINISHED,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
