package dev.tickwheel.client;

/**
 * 400, 413 or 422: the request is wrong ({@code missing_field}, {@code invalid_schedule}, {@code payload_too_large}…);
 * {@link #field()} names the field at fault and the message its value. Never retried: it would fail the same way.
 *
 * <p>Immutable.
 */
public class ValidationException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    public ValidationException(int httpStatus, String code, String field, String message, int attempts,
            Throwable cause) {
        super(httpStatus, code, field, message, attempts, cause);
    }
}
