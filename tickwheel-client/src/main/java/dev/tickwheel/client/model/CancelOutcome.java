package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * What a cancel did: CANCELLED (it will never be dispatched), ALREADY_DISPATCHED, ALREADY_FINISHED, or
 * NOT_FOUND (only in the results of a batch cancel; a single cancel of an unknown instance is a
 * {@link dev.tickwheel.client.NotFoundException}).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum CancelOutcome {
    CANCELLED,
    ALREADY_DISPATCHED,
    ALREADY_FINISHED,
    NOT_FOUND,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
