package dev.tickwheel.server.api;

/**
 * Parses IDs and cursors from paths and query strings: positive decimal 64-bit integers.
 *
 * <p>Immutable (static functions).
 */
final class RequestIds {

    private RequestIds() {
    }

    /** @throws ApiException 400 invalid_id naming {@code what} and the raw value */
    static long parse(String what, String raw) {
        try {
            long id = Long.parseLong(raw == null ? "" : raw.trim());
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below, with the same message as a non-positive ID
        }
        throw ApiException.badRequest("invalid_id", what + " must be a positive decimal integer, got "
                + ApiException.quoted(raw));
    }

    /** A cursor: 0 or a previous page's {@code nextCursor}. */
    static long cursor(String raw) {
        if (raw == null || raw.isBlank() || raw.equals("0")) {
            return 0;
        }
        return parse("query parameter 'cursor'", raw);
    }
}
