package dev.tickwheel.client;

/**
 * 401 or 403: the server has a token and the request carried none or a wrong one. Never retried, and no
 * call is ever replayed after a new token: the next call asks the token supplier again.
 *
 * <p>Immutable.
 */
public class UnauthorizedException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    public UnauthorizedException(int httpStatus, String code, String field, String message, int attempts,
            Throwable cause) {
        super(httpStatus, code, field, message, attempts, cause);
    }
}
