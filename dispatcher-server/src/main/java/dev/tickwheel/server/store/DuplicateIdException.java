package dev.tickwheel.server.store;

/**
 * An insert named an id that is already stored. Nothing was written.
 *
 * <p>Immutable.
 */
public final class DuplicateIdException extends StoreException {

    private static final long serialVersionUID = 1L;

    private final long id;

    public DuplicateIdException(String kind, long id, Throwable cause) {
        super(kind + " id already exists: " + id, cause);
        this.id = id;
    }

    /** The id that was already taken. */
    public long id() {
        return id;
    }
}
