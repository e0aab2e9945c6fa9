package dev.tickwheel.server.api.dto;

/**
 * Every 4xx and 5xx answer: {@code {"error": "invalid_schedule", "message": "field 'schedule.expression': …",
 * "field": "schedule.expression"}}.
 *
 * <p>Immutable.
 *
 * @param error   a stable, machine-readable code (see {@link dev.tickwheel.server.api.ApiException})
 * @param message what is wrong, naming the field and the value, for a person; never a Java class or exception
 * @param field   the request field (a dotted path such as {@code target.url}), query parameter or path parameter at
 *                fault, or null when the problem is not one field's (malformed JSON, a missing token, a store failure)
 */
public record ErrorResponse(String error, String message, String field) {
}
