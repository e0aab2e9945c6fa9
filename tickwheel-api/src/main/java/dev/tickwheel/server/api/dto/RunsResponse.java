package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Answer of {@code POST /api/jobs/{id}/runs}: one result per run, in the order of the request.
 *
 * <p>Immutable.
 *
 * @param runs the results
 */
public record RunsResponse(List<RunResponse> runs) {
}
