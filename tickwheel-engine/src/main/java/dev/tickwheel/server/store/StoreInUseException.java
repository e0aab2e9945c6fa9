package dev.tickwheel.server.store;

/**
 * The store cannot take this server: another server already runs on an H2 store (H2 serves one), or a node id this
 * server was told to use is held by a live cluster member.
 *
 * <p>Immutable.
 */
public final class StoreInUseException extends StoreException {

    private static final long serialVersionUID = 1L;

    public StoreInUseException(String message, Throwable cause) {
        super(message, cause);
    }
}
