package dev.tickwheel.client;

/**
 * 404: no job, instance, workflow, workflow run or token with that ID, or no run with that key in the job. A job or
 * instance (or token) of another namespace than the token's is answered so too, as if it did not exist.
 *
 * <p>Immutable.
 */
public class NotFoundException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    public NotFoundException(int httpStatus, String code, String field, String message, int attempts,
            Throwable cause) {
        super(httpStatus, code, field, message, attempts, cause);
    }
}
