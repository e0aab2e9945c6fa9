package dev.tickwheel.server.api;

/**
 * A request the API refuses, with the HTTP status, a stable error code and a message that names the field and value.
 *
 * <p>Codes: {@code malformed_json}, {@code missing_body}, {@code missing_field}, {@code unknown_field},
 * {@code invalid_field}, {@code invalid_schedule}, {@code invalid_target}, {@code invalid_id}, {@code not_found},
 * {@code payload_too_large}, {@code unauthorized}, {@code store_unavailable}, {@code internal_error}.
 *
 * <p>Immutable.
 */
public final class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public ApiException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    static ApiException badRequest(String code, String message) {
        return new ApiException(400, code, message);
    }

    static ApiException missingField(String field) {
        return badRequest("missing_field", "field '" + field + "' is required");
    }

    static ApiException invalidField(String field, Object value, String expectation) {
        return badRequest("invalid_field", "field '" + field + "' " + expectation + ", got " + quoted(value));
    }

    static ApiException notFound(String message) {
        return new ApiException(404, "not_found", message);
    }

    static String quoted(Object value) {
        return value instanceof String ? "'" + value + "'" : String.valueOf(value);
    }

    /** The HTTP status, 4xx for client errors. */
    public int status() {
        return status;
    }

    /** The machine-readable error code. */
    public String code() {
        return code;
    }
}
