package dev.tickwheel.client;

/**
 * The server could not take the call now: it answered 503 ({@code store_unavailable}: its database did not complete
 * the request in time), or no answer came at all ({@link #CONNECTION_FAILED}, {@link #TIMED_OUT}, with the transport
 * failure as the cause and {@link #httpStatus()} 0). Thrown once the client's retries are spent, for a call it may
 * repeat, or at once for one it may not.
 *
 * <p>A write that ends here may or may not have been made. A keyed run, a cancel or a reschedule to an instant can be
 * repeated as it is (the client already did, {@link #attempts()} times); a run without a key, a create, a replace or a
 * delete cannot be told apart from a lost answer: read the job or instance to see where it stands before repeating.
 *
 * <p>Immutable.
 */
public class UnavailableException extends TickwheelException {

    private static final long serialVersionUID = 1L;

    /** {@link #code()} of a call whose connection failed (refused, reset, closed before the answer). */
    public static final String CONNECTION_FAILED = "connection_failed";
    /** {@link #code()} of a call that got no answer within the client's request time-out. */
    public static final String TIMED_OUT = "timed_out";

    public UnavailableException(int httpStatus, String code, String field, String message, int attempts,
            Throwable cause) {
        super(httpStatus, code, field, message, attempts, cause);
    }

    /** Whether the last attempt got no answer within the request time-out. */
    public boolean timedOut() {
        return TIMED_OUT.equals(code());
    }
}
