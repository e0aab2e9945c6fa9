package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * Body of {@code POST /api/instances/{id}/reschedule} and {@code POST /api/jobs/{id}/runs/{key}/reschedule}: exactly
 * one of {@code delayMs} and {@code at}.
 *
 * <p>Immutable.
 *
 * @param delayMs the new due time as milliseconds from now, 0..31 622 400 000
 * @param at      the new due time as an ISO-8601 instant (one already past runs now)
 * @param params  new parameters for the instance; absent or null keeps its own
 */
public record RescheduleRequest(Long delayMs, Instant at, JsonNode params) {
}
