package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * A workflow run's status: RUNNING while a node can still start, then SUCCEEDED (every node that ran SUCCEEDED, the
 * others were SKIPPED), FAILED (a node FAILED, was INTERRUPTED or CANCELLED, even one whose failure an edge went on
 * from) or CANCELLED (cancelled as a whole).
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum WorkflowRunStatus {
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
