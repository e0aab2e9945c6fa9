package dev.tickwheel.client;

/**
 * 404: no job, instance, workflow or workflow run with that ID, or no run with that key in the job.
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
