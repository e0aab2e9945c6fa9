package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * When a workflow's edge holds, on its parent node's final status: the child starts once every edge into it holds,
 * and is SKIPPED once one of them cannot.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum EdgeCondition {
    /** The parent SUCCEEDED. */
    SUCCEEDED,
    /** The parent FAILED, or was INTERRUPTED (an at-most-once call cut by a server stop). */
    FAILED,
    /** The parent ended, however (SUCCEEDED, FAILED, INTERRUPTED, CANCELLED), but was not SKIPPED. */
    ALWAYS,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
