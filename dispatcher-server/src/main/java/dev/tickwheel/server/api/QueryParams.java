package dev.tickwheel.server.api;

import io.javalin.http.Context;

/**
 * Reads the paging parameter {@code limit} (1..{@value #MAX_LIMIT}, default {@value #DEFAULT_LIMIT}).
 *
 * <p>Thread-safe (stateless).
 */
final class QueryParams {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1_000;

    int limit(Context ctx) {
        String raw = ctx.queryParam("limit");
        if (raw == null || raw.isBlank()) {
            return DEFAULT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(raw.trim());
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiException.badRequest("invalid_field", "query parameter 'limit' must be an integer in 1.."
                + MAX_LIMIT + ", got '" + raw + "'");
    }
}
