package dev.tickwheel.server.store;

/**
 * This member's node id was taken by another member: it stopped renewing for longer than the id's grace (a very long
 * pause). IDs it would mint could collide with the new holder's, so it must stop.
 *
 * <p>Immutable.
 */
public final class MemberEvictedException extends StoreException {

    private static final long serialVersionUID = 1L;

    public MemberEvictedException(String message) {
        super(message, null);
    }
}
