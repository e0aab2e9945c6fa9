package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One run: the body of {@code POST /api/jobs/{id}/run} (the body and every field optional), and an item of
 * {@code POST /api/jobs/{id}/runs}.
 *
 * <p>Immutable.
 *
 * @param key     the caller's key, 1..200 printable characters, unique per job while the instance is kept: the same
 *                key again returns the instance it names (200, {@code "created": false}); default none
 * @param delayMs milliseconds from now, 0..31 622 400 000 (366 days); default 0, which beside {@code at} is ignored
 * @param at      when to run, an ISO-8601 instant instead of {@code delayMs} (one already past runs now)
 * @param params  any JSON value for this instance; default none
 * @param priority 0..9, higher first when call slots are short; default the job's
 */
public record RunRequest(String key, Long delayMs, Instant at, JsonNode params, Integer priority) {
}
