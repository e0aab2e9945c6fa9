package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Runs store work on a pooled connection: either as one transaction or in auto-commit mode (for single statements,
 * which are atomic on their own and save the database a round trip).
 *
 * <p>Work that fails with a transient conflict (serialization failure, deadlock, lock timeout) is rolled back and
 * run again, up to {@link #MAX_ATTEMPTS} times in all. That is safe because a failed attempt wrote nothing and every
 * store operation decides what to do from what it reads inside the attempt. Any other {@link SQLException} is
 * wrapped in a {@link StoreException}; a {@link RuntimeException} thrown by the work rolls back and propagates as is.
 *
 * <p>Thread-safe: each call uses its own connection.
 *
 * <p>Caveats: work must not keep the connection or statements beyond the call.
 */
final class TransactionRunner {

    /** Attempts per call, the first included, when the database reports a transient conflict. */
    static final int MAX_ATTEMPTS = 3;

    /**
     * SQLStates worth one more try: serialization failure and deadlock (both databases), PostgreSQL's lock not
     * available, H2's lock timeout (H2 reports it as HYT00).
     */
    private static final Set<String> TRANSIENT_SQL_STATES = Set.of("40001", "40P01", "55P03", "HYT00");

    private final DataSource dataSource;

    TransactionRunner(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** Runs {@code work} in one transaction: commits if it returns, rolls back if it throws. */
    <T> T inTransaction(String operation, SqlWork<T> work) {
        return withRetries(operation, true, work);
    }

    /** Runs {@code work} in auto-commit mode: each statement commits on its own. */
    <T> T autoCommit(String operation, SqlWork<T> work) {
        return withRetries(operation, false, work);
    }

    private <T> T withRetries(String operation, boolean transactional, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return runOnce(transactional, work);
            } catch (SQLException e) {
                if (attempt < MAX_ATTEMPTS && isTransient(e)) {
                    continue;
                }
                throw new StoreException(operation + " failed (SQLState " + e.getSQLState() + ", attempt "
                        + attempt + " of " + MAX_ATTEMPTS + "): " + e.getMessage(), e);
            }
        }
    }

    private <T> T runOnce(boolean transactional, SqlWork<T> work) throws SQLException {
        // HikariCP restores auto-commit when the connection goes back to the pool.
        try (Connection connection = dataSource.getConnection()) {
            if (!transactional) {
                return work.run(connection);
            }
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            cause.addSuppressed(rollbackFailure);
        }
    }

    static boolean isTransient(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && TRANSIENT_SQL_STATES.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
