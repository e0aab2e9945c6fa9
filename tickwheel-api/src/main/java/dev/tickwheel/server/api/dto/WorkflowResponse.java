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
 * @param edges        its edges, as created
 * @param triggerJobId the job that starts its runs on its schedule, or null for a workflow run through the API only
 * @param createdAt    when it was created
 */
public record WorkflowResponse(String id, String name, List<WorkflowRequest.NodeBody> nodes,
                               List<WorkflowRequest.EdgeBody> edges, String triggerJobId, Instant createdAt) {
}
