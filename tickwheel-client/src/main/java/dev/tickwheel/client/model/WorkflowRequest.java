package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A workflow to create ({@code client.workflows().create}): the body of {@code POST /api/workflows}. Its runs are
 * started with {@code client.workflows().run}. The server checks the definition and answers a
 * {@link dev.tickwheel.client.ValidationException} naming the field at fault: {@code nodes[i].id} (a bad or repeated
 * id), {@code nodes[i].jobId} (no such job), {@code edges[i].from} or {@code edges[i].to} (no such node),
 * {@code edges} for a cycle (its message names it, {@code a -> b -> a}); the builder checks only what makes a body at
 * all (a name, no null, no {@code UNKNOWN} condition).
 *
 * <p>Immutable. Build one with {@link #builder(String)}:
 *
 * <pre>{@code
 * WorkflowRequest.builder("nightly")
 *         .node("extract", extractJobId).node("load", loadJobId).node("alert", alertJobId)
 *         .edge("extract", "load", EdgeCondition.SUCCEEDED)
 *         .edge("extract", "alert", EdgeCondition.FAILED)
 *         .build();
 * }</pre>
 *
 * @param name  1..200 characters
 * @param nodes at least one (the server refuses none), at most 200
 * @param edges between the nodes, no cycle; empty for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkflowRequest(String name, List<WorkflowNode> nodes, List<WorkflowEdge> edges) {

    public WorkflowRequest {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: " + (name == null ? null : "'" + name + "'"));
        }
        nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
        edges = edges == null ? List.of() : List.copyOf(edges);
        for (int i = 0; i < edges.size(); i++) {
            if (edges.get(i).on() == EdgeCondition.UNKNOWN) {
                throw new IllegalArgumentException("edges[" + i + "].on must be a value the server knows, got UNKNOWN");
            }
        }
    }

    /** A builder of a workflow named {@code name}, with no node yet. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Builds a {@link WorkflowRequest}: nodes and edges in the order given, which the server keeps.
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private final List<WorkflowNode> nodes = new ArrayList<>();
        private final List<WorkflowEdge> edges = new ArrayList<>();

        private Builder(String name) {
            this.name = name;
        }

        /** A node {@code id} that runs one instance of job {@code jobId}. */
        public Builder node(String id, long jobId) {
            nodes.add(new WorkflowNode(id, jobId));
            return this;
        }

        /** An edge from node {@code from} to node {@code to}, holding {@code on} the parent's final status. */
        public Builder edge(String from, String to, EdgeCondition on) {
            edges.add(new WorkflowEdge(from, to, on));
            return this;
        }

        public WorkflowRequest build() {
            return new WorkflowRequest(name, nodes, edges);
        }
    }
}
