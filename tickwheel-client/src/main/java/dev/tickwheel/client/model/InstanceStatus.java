package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * An instance's status: WAITING until it fires, DISPATCHING while its call is in flight, then SUCCEEDED,
 * FAILED (its last attempt failed), CANCELLED or INTERRUPTED (an at-most-once call cut by a server stop).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum InstanceStatus {
    WAITING,
    DISPATCHING,
    SUCCEEDED,
    FAILED,
    CANCELLED,
    INTERRUPTED,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
