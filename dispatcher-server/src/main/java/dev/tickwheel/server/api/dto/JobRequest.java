package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Body of {@code POST /api/jobs} and {@code PUT /api/jobs/{id}}. Every field is nullable here; the API checks presence
 * and values and names the field in its answer.
 *
 * <p>Immutable.
 *
 * @param name          1..200 characters; required
 * @param schedule      required
 * @param target        required
 * @param params        any JSON value handed to every instance; optional
 * @param enabled       default true
 * @param misfirePolicy FIRE_ONCE_NOW (default), SKIP or FIRE_ALL
 * @param retry         default one attempt
 */
public record JobRequest(String name, ScheduleBody schedule, TargetBody target, JsonNode params, Boolean enabled,
                         String misfirePolicy, RetryBody retry) {
}
