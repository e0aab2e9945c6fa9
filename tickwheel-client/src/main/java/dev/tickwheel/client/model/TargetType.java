package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * Where a job's instances go: a webhook (HTTP POST) or a handler registered in the server.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum TargetType {
    WEBHOOK,
    HANDLER,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
