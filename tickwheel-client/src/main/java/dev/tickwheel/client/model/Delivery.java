package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * AT_LEAST_ONCE: a call cut by a server stop is made again with the same Idempotency-Key; AT_MOST_ONCE: it is
 * not, and the instance ends INTERRUPTED.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum Delivery {
    AT_LEAST_ONCE,
    AT_MOST_ONCE,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
