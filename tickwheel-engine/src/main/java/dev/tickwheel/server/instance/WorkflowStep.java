package dev.tickwheel.server.instance;

import java.util.Objects;

/**
 * The place of an instance in a workflow run: the run, the node whose job it runs, and what its parents left it.
 *
 * <p>Immutable.
 *
 * @param runId    the workflow run
 * @param node     the node's id in the workflow
 * @param upstream JSON {@code {"<parent node>": {"instanceId", "status", "output"}}} of its parents, {@code {}} for a
 *                 root node
 */
public record WorkflowStep(long runId, String node, String upstream) {

    public WorkflowStep {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(upstream, "upstream");
    }
}
