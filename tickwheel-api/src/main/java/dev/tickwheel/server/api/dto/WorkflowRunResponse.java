package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * A workflow run as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id         the run's id (a decimal string)
 * @param workflowId its workflow
 * @param status     RUNNING, SUCCEEDED, FAILED or CANCELLED
 * @param key        the caller's key, or null
 * @param params     the parameters given to every node, or null
 * @param createdAt  when it started
 * @param updatedAt  when it last changed
 * @param nodes      every node: its status (PENDING, SKIPPED, or its instance's) and its instance (or null)
 * @param created    on a start only: false when the key named an existing run
 */
public record WorkflowRunResponse(String id, String workflowId, String status, String key, JsonNode params,
                                  Instant createdAt, Instant updatedAt, List<NodeRunBody> nodes,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Boolean created) {

    /** A node of a run. */
    public record NodeRunBody(String id, String status, String instanceId) {
    }
}
