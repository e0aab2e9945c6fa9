package dev.tickwheel.server.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * This member's side of the fencing conditions that end the claim and settle statements of {@link InstanceSql}: its
 * session, and the clock that judges lease expiry. The conditions themselves, and why each is safe, are in
 * {@link InstanceSql}.
 *
 * <p>Immutable; thread-safe.
 */
final class Fence {

    /** Binds a fencing condition's parameters from {@code index} on. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement ps, int index) throws SQLException;
    }

    /** For the unfenced statements (cancel, skip): binds nothing. */
    static final Binder NONE = (ps, index) -> { };

    private final long session;
    private final DatabaseClock clock;

    Fence(long session, DatabaseClock clock) {
        this.session = session;
        this.clock = clock;
    }

    /**
     * {@link InstanceSql#leaseHeld} and {@link InstanceSql#shardTakenOver}: session, now.
     */
    Binder leaseHeld() {
        return (ps, index) -> {
            ps.setLong(index, session);
            clock.bind(ps, index + 1);
        };
    }

    /** {@link InstanceSql#CLAIM_EPOCH_HELD}: session. */
    Binder claimEpochHeld() {
        return (ps, index) -> ps.setLong(index, session);
    }

    /** The clock of the fences, for statements that also report the database's now. */
    DatabaseClock clock() {
        return clock;
    }

    long session() {
        return session;
    }
}
