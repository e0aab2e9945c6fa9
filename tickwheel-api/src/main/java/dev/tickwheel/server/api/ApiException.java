package dev.tickwheel.server.api;

/**
 * A request the API refuses, with the HTTP status, a stable error code, a message that names the field and value, and
 * the field itself when the problem is one request field, query parameter or path parameter.
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
    private final String field;

    public ApiException(int status, String code, String message) {
        this(status, code, message, null);
    }

    /** @param field the request field (a dotted path such as {@code schedule.expression}) or parameter, or null */
    public ApiException(int status, String code, String message, String field) {
        super(message);
        this.status = status;
        this.code = code;
        this.field = field;
    }

    static ApiException badRequest(String code, String message) {
        return new ApiException(400, code, message);
    }

    /** A 400 about one field or parameter, which the answer names in {@code field}. */
    static ApiException badField(String code, String field, String message) {
        return new ApiException(400, code, message, field);
    }

    static ApiException missingField(String field) {
        return badField("missing_field", field, "field '" + field + "' is required");
    }

    static ApiException invalidField(String field, Object value, String expectation) {
        return badField("invalid_field", field, "field '" + field + "' " + expectation + ", got " + quoted(value));
    }

    /**
     * The 400 {@code invalid_field} of a value a domain record refused ({@code JobCalendar}, {@code InstancePool}):
     * the refusal's message starts with the name of its field, which the answer names.
     */
    static ApiException refusedValue(IllegalArgumentException refusal) {
        String message = refusal.getMessage();
        return badField("invalid_field", message.substring(0, message.indexOf(' ')), message);
    }

    /** A 400 {@code invalid_field} about query parameter {@code name}. */
    static ApiException invalidParameter(String name, String problem) {
        return badField("invalid_field", name, "query parameter '" + name + "' " + problem);
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

    /** The request field or parameter at fault, or null if the problem is not one field's. */
    public String field() {
        return field;
    }
}
