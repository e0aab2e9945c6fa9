package dev.tickwheel.server.workflow;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A run of a workflow and where each of its nodes is.
 *
 * <p>Immutable.
 *
 * @param id         the run's id
 * @param workflowId its workflow
 * @param key        the caller's key, or null
 * @param status     RUNNING until no node can still start, then its outcome
 * @param params     parameters handed to every node's instance (JSON text), or null for each job's own
 * @param createdAt  when it started
 * @param updatedAt  when it last changed
 * @param nodes      every node of the workflow, in the workflow's order
 */
public record WorkflowRun(long id, long workflowId, String key, Status status, String params, Instant createdAt,
                          Instant updatedAt, List<NodeRun> nodes) {

    /** A run's status. */
    public enum Status {
        RUNNING,
        /** Every node that ran SUCCEEDED (the others were skipped). */
        SUCCEEDED,
        /** A node FAILED, was INTERRUPTED or CANCELLED (even one whose failure an edge went on from). */
        FAILED,
        /** Cancelled as a whole. */
        CANCELLED
    }

    /**
     * One node of a run.
     *
     * @param node       the node's id
     * @param status     PENDING, SKIPPED, or its instance's status (WAITING, DISPATCHING, SUCCEEDED, ...)
     * @param instanceId its instance, or null while PENDING, when SKIPPED, or if its job was gone when it was due
     */
    public record NodeRun(String node, String status, Long instanceId) {
        public NodeRun {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(status, "status");
        }
    }

    public WorkflowRun {
        Objects.requireNonNull(status, "status");
        nodes = List.copyOf(nodes);
    }
}
