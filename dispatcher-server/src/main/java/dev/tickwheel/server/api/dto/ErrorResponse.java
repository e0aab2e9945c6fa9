package dev.tickwheel.server.api.dto;

/**
 * Every 4xx and 5xx answer: {@code {"error": "invalid_schedule", "message": "field 'schedule.expression': …"}}.
 *
 * <p>Immutable.
 *
 * @param error   a stable, machine-readable code (see {@link dev.tickwheel.server.api.ApiException})
 * @param message what is wrong, naming the field and the value, for a person
 */
public record ErrorResponse(String error, String message) {
}
