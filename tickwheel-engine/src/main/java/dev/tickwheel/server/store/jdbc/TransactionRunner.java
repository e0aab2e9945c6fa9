package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Runs store work on a pooled connection: either as one transaction or in auto-commit mode (for single statements,
 * which are atomic on their own and save the database a round trip).
 *
 * <p>Work that fails with a transient conflict (serialization failure, deadlock, lock timeout) is rolled back and
 * run again, up to {@link #MAX_ATTEMPTS} times in all, after a random pause of up to {@link #BACKOFF_STEP_MS} ms per
 * attempt so far: retried at once, a deadlock's victim meets the same transactions still at work and loses again (H2
 * rolled back a rerun's 1 000-row insert three times running while the dispatcher settled the previous 1 000 of the
 * same job, in CI's {@code RerunServerTest}); the pauses add at most 100 ms to a call. That is safe because a failed
 * attempt wrote nothing and every store operation decides what to do from what it reads inside the attempt. Any other {@link SQLException} is
 * wrapped in a {@link StoreException}; a {@link RuntimeException} thrown by the work rolls back and propagates as is.
 *
 * <p>A runner with a network timeout sets it on each connection it borrows ({@link Connection#setNetworkTimeout}; the
 * pool restores the default when the connection comes back): a read that waits longer for the database (a server
 * that vanished without closing the socket) fails the call, and the driver drops the connection. The server's stores
 * for API callers use one (the store timeout); the engine's own work does not, so that a slow statement of the loader
 * or a claim is never cut halfway with its commit in doubt.
 *
 * <p>A runner that joins its callers' transactions ({@link CallerTransactions}) runs the work of a caller that has
 * one open on that transaction's connection: no commit, no rollback, no retry (a failed statement may have aborted
 * the caller's transaction), no network timeout (the connection is the caller's); the caller's commit decides.
 *
 * <p>Thread-safe: each call uses its own connection.
 *
 * <p>Caveats: work must not keep the connection or statements beyond the call. The network timeout bounds each read,
 * not the whole call; H2 (embedded, no network) ignores it.
 */
final class TransactionRunner {

    /** Attempts per call, the first included, when the database reports a transient conflict. */
    static final int MAX_ATTEMPTS = 5;
    /** The pause before attempt n + 1 is random in 0..n × this, in milliseconds. */
    static final int BACKOFF_STEP_MS = 10;

    /**
     * SQLStates worth one more try: serialization failure and deadlock (both databases), PostgreSQL's lock not
     * available, H2's lock timeout (H2 reports it as HYT00).
     */
    private static final Set<String> TRANSIENT_SQL_STATES = Set.of("40001", "40P01", "55P03", "HYT00");

    private final DataSource dataSource;
    /** Milliseconds a read may wait for the database on this runner's connections; 0: the pool's default (none). */
    private final int networkTimeoutMs;
    private final CallerTransactions callerTransactions;

    /**
     * @param networkTimeout the longest any read waits for the database, or {@link Duration#ZERO} for no bound
     */
    TransactionRunner(DataSource dataSource, Duration networkTimeout) {
        this(dataSource, networkTimeout, CallerTransactions.NONE);
    }

    /**
     * @param networkTimeout     the longest any read waits for the database, or {@link Duration#ZERO} for no bound
     * @param callerTransactions the callers' open transactions this runner's work joins
     */
    TransactionRunner(DataSource dataSource, Duration networkTimeout, CallerTransactions callerTransactions) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.callerTransactions = Objects.requireNonNull(callerTransactions, "callerTransactions");
        if (networkTimeout.isNegative() || networkTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("networkTimeout must be 0.." + Integer.MAX_VALUE + " ms: "
                    + networkTimeout);
        }
        this.networkTimeoutMs = (int) networkTimeout.toMillis();
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
        Connection joined = callerTransactions.current(dataSource);
        if (joined != null) {
            try {
                return work.run(joined);
            } catch (SQLException e) {
                throw new StoreException(operation + " failed in the caller's transaction (SQLState "
                        + e.getSQLState() + "): " + e.getMessage(), e);
            }
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return runOnce(transactional, work);
            } catch (SQLException e) {
                if (attempt < MAX_ATTEMPTS && isTransient(e)) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(
                            ThreadLocalRandom.current().nextLong(attempt * BACKOFF_STEP_MS + 1L)));
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
            if (networkTimeoutMs > 0) {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMs); // the drivers ignore the executor
            }
            if (!transactional) {
                if (!connection.getAutoCommit()) {
                    connection.setAutoCommit(true); // an application's pool may hand out connections without it
                }
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
