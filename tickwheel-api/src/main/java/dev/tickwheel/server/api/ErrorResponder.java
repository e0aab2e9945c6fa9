package dev.tickwheel.server.api;

import dev.tickwheel.server.RefusedTargetException;
import dev.tickwheel.server.api.dto.ErrorResponse;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.time.InvalidTimeExpressionException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every exception a handler throws into a JSON answer {@code {"error", "message", "field"}}: an
 * {@link ApiException} as it says, an invalid schedule as 400 {@code invalid_schedule} naming {@code schedule.<field>},
 * a URL the outbound guard refuses as 400 {@code invalid_target} naming {@code target.url} or {@code alertUrl},
 * a store failure as 503, anything else as 500 (logged; a client input that reaches this branch is a bug). No message
 * names a Java class or carries an exception's text other than our own validation messages.
 *
 * <p>Thread-safe (stateless).
 */
final class ErrorResponder {

    private static final Logger log = LoggerFactory.getLogger(ErrorResponder.class);

    /** Engine field names that differ on the wire. */
    private static final Map<String, String> WIRE_FIELDS = Map.of("zoneId", "zone");

    /** The status {@link #respond} answers {@code e} with. */
    static int statusOf(Exception e) {
        if (e instanceof ApiException api) {
            return api.status();
        }
        if (e instanceof InvalidTimeExpressionException || e instanceof IllegalArgumentException) {
            return 400;
        }
        return e instanceof StoreException ? 503 : 500;
    }

    void respond(Exception e, ApiExchange ctx) {
        if (e instanceof ApiException api) {
            send(ctx, api.status(), api.code(), api.getMessage(), api.field());
        } else if (e instanceof InvalidTimeExpressionException schedule) {
            String field = "schedule." + WIRE_FIELDS.getOrDefault(schedule.field(), schedule.field());
            send(ctx, 400, "invalid_schedule", "field '" + field + "': " + schedule.getMessage(), field);
        } else if (e instanceof RefusedTargetException refused) {
            // The outbound guard: the message names the field, the address, its range and the setting that allows it.
            send(ctx, 400, "invalid_target", refused.getMessage(), refused.field());
        } else if (e instanceof StoreException) {
            log.warn("store failure answering {} {}: {}", ctx.method(), ctx.path(), e.toString());
            send(ctx, 503, "store_unavailable", "the store could not complete the request; try again later");
        } else if (e instanceof IllegalArgumentException) {
            // A domain record refused a value the API did not check first; its message names the field and value.
            log.debug("domain validation refused {} {}", ctx.method(), ctx.path(), e);
            send(ctx, 400, "invalid_field", e.getMessage());
        } else {
            log.error("unexpected failure answering {} {}", ctx.method(), ctx.path(), e);
            send(ctx, 500, "internal_error", "unexpected server error; see the server log");
        }
    }

    /**
     * The answer to an HTTP-level refusal of whatever serves the API (no such route, method not allowed, a body over
     * the limit): a 4xx in the API's error shape.
     */
    public static void httpError(ApiExchange ctx, int status, String message) {
        String code = switch (status) {
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 413 -> "payload_too_large";
            default -> "http_" + status;
        };
        send(ctx, status, code, status == 404 ? "no route for " + ctx.method() + " " + ctx.path() : message);
    }

    static void send(ApiExchange ctx, int status, String code, String message) {
        send(ctx, status, code, message, null);
    }

    private static void send(ApiExchange ctx, int status, String code, String message, String field) {
        ctx.status(status).json(new ErrorResponse(code, message, field));
    }
}
