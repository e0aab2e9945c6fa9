package dev.tickwheel.client;

/**
 * 401 or 403, told apart by {@link #httpStatus()} and {@link #code()}. 401 {@code unauthorized}: the server has a
 * token and the request carried none, or a wrong, revoked or expired one. 403 {@code forbidden}: the token is known,
 * but its role is short of the call's (a READ token asking for a change), or the call needs a token of every
 * namespace and this one is of one namespace. Never retried, and no call is ever replayed after a new token: the
 * next call asks the token supplier again.
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
