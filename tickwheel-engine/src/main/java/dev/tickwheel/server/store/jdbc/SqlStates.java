package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/**
 * Reads the SQLState a failed statement left somewhere along a failure's causes: a {@link SQLException}, or one chained
 * as a batch failure's next exception. The two constraint states are the same on H2 and PostgreSQL.
 *
 * <p>Thread-safe (stateless).
 */
final class SqlStates {

    /** A unique-key violation: an insert of a key that exists. */
    static final String UNIQUE_VIOLATION = "23505";
    /** A foreign-key violation: on a delete, a row elsewhere still names the deleted one. */
    static final String FOREIGN_KEY_VIOLATION = "23503";
    /** How far along a chain of next exceptions to look: a batch's own error is near its head. */
    private static final int MAX_NEXT_EXCEPTIONS = 16;

    private SqlStates() {
    }

    /** Whether {@code failure} or one of its causes (or their next exceptions) carries {@code sqlState}. */
    static boolean carries(Throwable failure, String sqlState) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                int hops = 0;
                for (SQLException e = sql; e != null && hops < MAX_NEXT_EXCEPTIONS; e = e.getNextException(), hops++) {
                    if (sqlState.equals(e.getSQLState())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
