package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * How the server spreads the wait before a retry: not at all, over {@code [0, wait]} (FULL) or over
 * {@code [wait/2, wait]} (EQUAL).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum RetryJitter {
    NONE,
    FULL,
    EQUAL,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
