package dev.tickwheel.client.model;

/**
 * One node of a workflow run.
 *
 * <p>Immutable.
 *
 * @param id         the node's id in the workflow
 * @param status     PENDING, SKIPPED, or its instance's status
 * @param instanceId its instance ({@code client.instances().get}), or null while PENDING, when SKIPPED, or if its job
 *                   was gone when it was due
 */
public record WorkflowNodeRun(String id, WorkflowNodeStatus status, Long instanceId) {
}
