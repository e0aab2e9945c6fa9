package dev.tickwheel.server.api.dto;

import java.time.Instant;
import java.util.List;

/**
 * A workflow as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id        the workflow's id (a decimal string)
 * @param name      its name
 * @param nodes     its nodes, as created
 * @param edges     its edges, as created
 * @param createdAt when it was created
 */
public record WorkflowResponse(String id, String name, List<WorkflowRequest.NodeBody> nodes,
                               List<WorkflowRequest.EdgeBody> edges, Instant createdAt) {
}
