package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * When an attempt of a webhook job is over: when its call answers ({@link #IMMEDIATE}, the default), or when the
 * target reports to the call's {@code Tickwheel-Callback-Url} later ({@link #CALLBACK}).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum Completion {
    IMMEDIATE,
    CALLBACK,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
