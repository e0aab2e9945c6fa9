package dev.tickwheel.client;

/**
 * A call the server refused or the client could not complete. Unchecked. It carries what the server said in its error
 * body {@code {"error": "<code>", "message": "…", "field": "…"}}: the HTTP status, the stable error code, the field at
 * fault (a dotted request field such as {@code schedule.expression}, a query or path parameter) and the message, and
 * how many attempts the client made.
 *
 * <p>The subclasses sort the answers by what a caller does about them:
 * <pre>
 *   NotFoundException           404            no such job, instance, workflow, workflow run, key or token, or
 *                                              a job or instance of another namespace than the token's
 *   ConflictException           409            a cancel or reschedule came too late (the outcome is the code),
 *                                              or a name is taken (name_taken)
 *   ValidationException         400, 413, 422  the request is wrong; the field and message say how
 *   UnauthorizedException       401, 403       no token or a wrong, revoked or expired one (401); a role or
 *                                              namespace short of the call's (403 forbidden)
 *   UnavailableException        503, or no answer at all (connection failure, time-out) after the retries
 *   UnexpectedStatusException   anything else (500 internal_error, 405, a proxy's 502)
 * </pre>
 *
 * <p>Immutable.
 */
public class TickwheelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} of a call that got no HTTP answer. */
    public static final int NO_STATUS = 0;

    private final int httpStatus;
    private final String code;
    private final String field;
    private final int attempts;

    /**
     * @param httpStatus the HTTP status, or {@link #NO_STATUS} if no answer came
     * @param code       the server's error code ({@code not_found}, {@code invalid_schedule}…), an outcome for a 409
     *                   ({@code ALREADY_DISPATCHED}), or the client's own for a call without an answer
     * @param field      the request field or parameter at fault, or null
     * @param message    the server's message (it names the field and value), or the client's
     * @param attempts   how many attempts the client made, at least 1
     * @param cause      the transport failure, or null
     */
    public TickwheelException(int httpStatus, String code, String field, String message, int attempts,
                              Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.code = code;
        this.field = field;
        this.attempts = attempts;
    }

    /** The HTTP status of the server's answer, or {@link #NO_STATUS} (0) if none came. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The stable, machine-readable error code. */
    public String code() {
        return code;
    }

    /** The request field, query parameter or path parameter at fault, or null if the problem is not one field's. */
    public String field() {
        return field;
    }

    /** How many attempts the client made (more than 1 only for a call it may repeat). */
    public int attempts() {
        return attempts;
    }
}
