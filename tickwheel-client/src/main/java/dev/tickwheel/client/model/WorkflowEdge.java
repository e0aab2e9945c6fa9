package dev.tickwheel.client.model;

import java.util.Objects;

/**
 * An edge of a workflow, from a parent node to a child node, holding {@code on} the parent's final status.
 *
 * <p>Immutable.
 *
 * @param from the parent node's id
 * @param to   the child node's id
 * @param on   the parent's final status the edge holds on
 */
public record WorkflowEdge(String from, String to, EdgeCondition on) {

    public WorkflowEdge {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(on, "on");
    }
}
