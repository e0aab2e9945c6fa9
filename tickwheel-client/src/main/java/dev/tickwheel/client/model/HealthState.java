package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * UP or DOWN, as {@code GET /health} reports the server, its store and its wheels.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum HealthState {
    UP,
    DOWN,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
