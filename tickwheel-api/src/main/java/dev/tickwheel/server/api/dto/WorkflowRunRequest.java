package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Body of {@code POST /api/workflows/{id}/run}; optional.
 *
 * <p>Immutable.
 *
 * @param key    the caller's key: the same key answers the same run (a run's key rules, 1..200 characters)
 * @param params any JSON value handed to every node's instance instead of its job's params
 */
public record WorkflowRunRequest(String key, JsonNode params) {
}
