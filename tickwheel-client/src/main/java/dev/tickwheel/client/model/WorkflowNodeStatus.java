package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * Where a node of a workflow run is: PENDING until its parents are final, SKIPPED if an edge into it can no longer
 * hold, else its instance's status ({@link InstanceStatus}: WAITING, DISPATCHING, then SUCCEEDED, FAILED, CANCELLED
 * or INTERRUPTED).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum WorkflowNodeStatus {
    /** Its instance is not created yet: a parent is not final. */
    PENDING,
    /** It will never run: an edge into it can no longer hold, or the run was cancelled first. */
    SKIPPED,
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
