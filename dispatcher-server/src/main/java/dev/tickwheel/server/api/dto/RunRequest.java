package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Body of {@code POST /api/jobs/{id}/run}; the body and both fields are optional.
 *
 * <p>Immutable.
 *
 * @param delayMs milliseconds from now, 0..31 622 400 000 (366 days); default 0
 * @param params  any JSON value for this instance; default none
 */
public record RunRequest(Long delayMs, JsonNode params) {
}
