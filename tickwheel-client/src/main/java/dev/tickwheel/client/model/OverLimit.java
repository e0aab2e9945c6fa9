package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * What an instance that fires while its job is at maxConcurrent does: wait for a slot, or end CANCELLED.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum OverLimit {
    WAIT,
    SKIP,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
