package dev.tickwheel.server.store;

/**
 * Another server already runs on this store. Until cluster mode exists, one server owns a store: a second one would
 * settle the first one's calls in flight and create instances nobody arms.
 *
 * <p>Immutable.
 */
public final class StoreInUseException extends StoreException {

    private static final long serialVersionUID = 1L;

    public StoreInUseException(String message, Throwable cause) {
        super(message, cause);
    }
}
