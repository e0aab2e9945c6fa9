package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.InstanceStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns an answer that is not the call's own into the exception for its status, with what the server said:
 * {@code {"error", "message", "field"}} for every error, or the outcome body of a refused cancel or reschedule
 * ({@code {"outcome": "ALREADY_FINISHED", "instanceId", "status", …}}) for a 409. A body that is not such JSON (a
 * proxy's HTML page) gives the code {@code http_<status>} and the start of the body as the message.
 *
 * <p>Thread-safe (stateless apart from the shared mapper).
 */
final class ErrorAnswers {

    private static final int BODY_CHARS_IN_MESSAGE = 200;

    /** What an error or outcome body may hold; every field optional. */
    private record Body(String error, String message, String field, String outcome, String instanceId,
                        InstanceStatus status) {
    }

    private final ObjectMapper json;

    ErrorAnswers(ObjectMapper json) {
        this.json = json;
    }

    TickwheelException exception(ApiCall<?> call, int status, byte[] body, int attempts) {
        Body parsed = parse(body);
        String code;
        String message;
        if (parsed != null && parsed.error() != null) {
            code = parsed.error();
            message = parsed.message() == null ? code : parsed.message();
        } else if (parsed != null && parsed.outcome() != null) {
            code = parsed.outcome();
            message = "instance " + parsed.instanceId() + ": " + code + " (status " + parsed.status() + ")";
        } else {
            code = "http_" + status;
            String text = new String(body, StandardCharsets.UTF_8).strip();
            message = text.isEmpty() ? "no body" : text.length() > BODY_CHARS_IN_MESSAGE
                    ? text.substring(0, BODY_CHARS_IN_MESSAGE) + "…" : text;
        }
        message = message + " (" + call.describe() + " answered " + status + " " + code
                + (attempts > 1 ? ", attempt " + attempts : "") + ")";
        String field = parsed == null ? null : parsed.field();
        return switch (status) {
            case 404 -> new NotFoundException(status, code, field, message, attempts, null);
            case 409 -> new ConflictException(code, message, attempts, parseId(parsed),
                    parsed == null ? null : parsed.status());
            case 400, 413, 422 -> new ValidationException(status, code, field, message, attempts, null);
            case 401, 403 -> new UnauthorizedException(status, code, field, message, attempts, null);
            case 503 -> new UnavailableException(status, code, field, message, attempts, null);
            default -> new UnexpectedStatusException(status, code, field, message, attempts, null);
        };
    }

    private Body parse(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        try {
            return json.readValue(body, Body.class);
        } catch (IOException e) {
            return null; // not our JSON: the message shows the body
        }
    }

    private static long parseId(Body body) {
        if (body == null || body.instanceId() == null) {
            return 0;
        }
        try {
            return Long.parseLong(body.instanceId());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
