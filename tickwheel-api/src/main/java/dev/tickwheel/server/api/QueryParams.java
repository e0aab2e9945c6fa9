package dev.tickwheel.server.api;

import dev.tickwheel.server.instance.InstanceStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads query parameters: the paging parameter {@code limit} (1..{@value #MAX_LIMIT}, default
 * {@value #DEFAULT_LIMIT}) and the history filters. Absent or blank means "not given"; a bad value is a 400 whose
 * {@code field} is the parameter's name.
 *
 * <p>Thread-safe (stateless).
 */
final class QueryParams {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1_000;

    int limit(ApiExchange ctx) {
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
        throw ApiException.invalidParameter("limit", "must be an integer in 1.." + MAX_LIMIT + ", got '" + raw + "'");
    }

    /** An instance status, any case, or null. */
    InstanceStatus status(ApiExchange ctx) {
        String raw = ctx.queryParam("status");
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return InstanceStatus.valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidParameter("status", "must be one of "
                    + Arrays.toString(InstanceStatus.values()) + ", got '" + raw + "'");
        }
    }

    /** An ISO-8601 instant ({@code 2026-11-25T10:00:00Z}), or null. */
    Instant instant(ApiExchange ctx, String name) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(raw.trim());
        } catch (DateTimeParseException e) {
            throw ApiException.invalidParameter(name, "must be an ISO-8601 instant such as 2026-11-25T10:00:00Z,"
                    + " got '" + raw + "'");
        }
    }

    /** A text of at most {@code maxLength} characters without NUL (PostgreSQL cannot take it), or null. */
    String text(ApiExchange ctx, String name, int maxLength) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        if (raw.length() > maxLength) {
            throw ApiException.invalidParameter(name, "must be at most " + maxLength + " characters, got "
                    + raw.length());
        }
        if (raw.indexOf('\0') >= 0) {
            throw ApiException.invalidParameter(name, "must not contain the NUL character (U+0000)");
        }
        return raw;
    }
}
