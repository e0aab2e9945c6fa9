package dev.tickwheel.server.api.dto;

/**
 * Body of {@code POST /api/instances/{id}/rerun} (the body and its field optional).
 *
 * <p>Immutable.
 *
 * @param key the rerun's key, as a run's; default {@code rerun-of-<id>}, so a repeated call answers the first rerun
 */
public record RerunRequest(String key) {
}
