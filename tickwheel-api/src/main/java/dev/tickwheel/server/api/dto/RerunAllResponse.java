package dev.tickwheel.server.api.dto;

/**
 * Answer of {@code POST /api/instances/rerun}.
 *
 * <p>Immutable.
 *
 * @param matched finished instances that matched (and were examined by this call)
 * @param created reruns this call made (0 for a dry run, and for matches rerun before)
 * @param more    true if the call stopped at its cap: call again for the rest
 */
public record RerunAllResponse(long matched, long created, boolean more) {
}
