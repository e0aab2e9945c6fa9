package dev.tickwheel.client.model;

import java.time.Instant;
import java.util.List;

/**
 * A workflow as the server shows it ({@code GET /api/workflows/{id}}): a DAG of nodes, each running one instance of a
 * job, and edges that hold on the parent's final status. A workflow is not changed once created.
 *
 * <p>Immutable.
 *
 * @param id        the workflow's ID (a JSON string on the wire)
 * @param name      its name
 * @param nodes     its nodes, as created
 * @param edges     its edges, as created
 * @param createdAt when it was created
 */
public record Workflow(long id, String name, List<WorkflowNode> nodes, List<WorkflowEdge> edges, Instant createdAt) {

    public Workflow {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        edges = edges == null ? List.of() : List.copyOf(edges);
    }
}
