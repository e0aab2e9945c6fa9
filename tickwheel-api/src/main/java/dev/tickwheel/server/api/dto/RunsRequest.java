package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Body of {@code POST /api/jobs/{id}/runs}: 1..1 000 runs written in one transaction.
 *
 * <p>Immutable.
 *
 * @param runs the runs, each as the body of a single run
 */
public record RunsRequest(List<RunRequest> runs) {
}
