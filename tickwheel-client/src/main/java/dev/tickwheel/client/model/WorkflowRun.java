package dev.tickwheel.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * A run of a workflow and where each of its nodes is: the answer of a start, a read and a cancel.
 *
 * <p>Immutable (the {@code params} tree must not be changed).
 *
 * @param id         the run's ID (a JSON string on the wire)
 * @param workflowId its workflow's ID
 * @param status     RUNNING until no node can still start, then its outcome
 * @param key        the caller's key, or null
 * @param params     the parameters handed to every node's instance, or null for each job's own
 * @param createdAt  when it started
 * @param updatedAt  when it last changed
 * @param nodes      every node of the workflow, in the workflow's order
 * @param created    only in the answer to a start: true if this call started the run, false if its key named an
 *                   existing one (also after a retry of this client whose first attempt started it); null in the
 *                   answers to a read and a cancel
 */
public record WorkflowRun(long id, long workflowId, WorkflowRunStatus status, String key, JsonNode params,
                          Instant createdAt, Instant updatedAt, List<WorkflowNodeRun> nodes, Boolean created) {

    public WorkflowRun {
        params = params == null || params.isNull() ? null : params; // the server writes "params": null for none
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
    }

    /** The node run of node {@code nodeId}, or null if the workflow has no such node. */
    public WorkflowNodeRun node(String nodeId) {
        for (WorkflowNodeRun node : nodes) {
            if (node.id().equals(nodeId)) {
                return node;
            }
        }
        return null;
    }
}
