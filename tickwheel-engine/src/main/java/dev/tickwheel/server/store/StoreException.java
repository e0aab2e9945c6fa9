package dev.tickwheel.server.store;

/**
 * A store operation failed for a reason the caller cannot fix by changing its input: the database is unreachable,
 * a statement failed, a transaction kept conflicting.
 *
 * <p>Immutable.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
