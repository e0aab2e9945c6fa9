package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Body of {@code POST /api/instances/cancel}: 1..1 000 instance IDs (strings or numbers), cancelled in one
 * transaction.
 *
 * <p>Immutable.
 *
 * @param ids the instances
 */
public record CancelAllRequest(List<Long> ids) {
}
