package dev.tickwheel.client;

/**
 * An answer none of the other classes covers: 500 {@code internal_error} (a server bug), 405, a proxy's
 * 502 or 504. Not retried.
 *
 * <p>Immutable.
 */
public class UnexpectedStatusException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    public UnexpectedStatusException(int httpStatus, String code, String field, String message, int attempts,
            Throwable cause) {
        super(httpStatus, code, field, message, attempts, cause);
    }
}
