package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * What a token may do: READ reads; OPERATE also runs, cancels, reschedules and reruns instances, enables and
 * disables jobs, and runs and cancels workflows; ADMIN also creates, replaces and deletes jobs, manages tokens and
 * reads the audit trail. Each role covers the ones before it.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum Role {
    READ,
    OPERATE,
    ADMIN,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
