package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * How one attempt of an instance ended: RETRIED (failed, retried later), DISPATCHING (in flight), SUCCEEDED,
 * FAILED or INTERRUPTED.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum AttemptOutcome {
    RETRIED,
    DISPATCHING,
    SUCCEEDED,
    FAILED,
    INTERRUPTED,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
