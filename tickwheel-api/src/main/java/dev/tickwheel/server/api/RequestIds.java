package dev.tickwheel.server.api;

/**
 * Parses IDs from paths and query strings: positive decimal 64-bit integers.
 *
 * <p>Immutable (static functions).
 */
final class RequestIds {

    private RequestIds() {
    }

    /** The path parameter {@code id}. @throws ApiException 400 invalid_id naming it and the raw value */
    static long pathId(String raw) {
        return parse("path parameter", "id", raw);
    }

    /**
     * The query parameter {@code name}, or null if absent or blank.
     *
     * @throws ApiException 400 invalid_id naming it and the raw value
     */
    static Long queryId(String name, String raw) {
        return raw == null || raw.isBlank() ? null : parse("query parameter", name, raw);
    }

    private static long parse(String kind, String name, String raw) {
        try {
            long id = Long.parseLong(raw == null ? "" : raw.trim());
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below, with the same message as a non-positive ID
        }
        throw ApiException.badField("invalid_id", name, kind + " '" + name + "' must be a positive decimal integer,"
                + " got " + ApiException.quoted(raw));
    }
}
