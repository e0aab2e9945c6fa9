package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Answer of {@code POST /api/instances/cancel}: one result per ID, in the order of the request; an unknown ID is
 * {@code NOT_FOUND}.
 *
 * <p>Immutable.
 *
 * @param results the results
 */
public record CancelAllResponse(List<CancelResponse> results) {
}
