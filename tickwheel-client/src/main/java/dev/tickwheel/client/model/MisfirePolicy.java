package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * What a job does with triggers it missed (a server that was down): fire once now, skip them, or fire each.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum MisfirePolicy {
    FIRE_ONCE_NOW,
    SKIP,
    FIRE_ALL,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
