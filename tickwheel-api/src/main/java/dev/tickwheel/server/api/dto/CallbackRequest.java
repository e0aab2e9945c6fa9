package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Body of {@code POST /api/callbacks/{token}}: a target's report of the attempt whose callback URL it was given.
 *
 * <p>Immutable.
 *
 * @param outcome SUCCEEDED, FAILED or RUNNING (a heartbeat: still working, the deadline moves); required
 * @param error   with FAILED: why, kept as the attempt's error (at most 2 000 characters are kept); optional
 * @param output  with SUCCEEDED: any JSON value of at most 8 KiB, kept as the instance's output; optional
 */
public record CallbackRequest(String outcome, String error, JsonNode output) {
}
