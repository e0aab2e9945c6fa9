package dev.tickwheel.server.store;

/**
 * An insert named an id that is already stored; the message names it. Nothing was written.
 *
 * <p>Immutable.
 */
public final class DuplicateIdException extends StoreException {

    private static final long serialVersionUID = 1L;

    public DuplicateIdException(String kind, long id, Throwable cause) {
        super(kind + " id already exists: " + id, cause);
    }
}
