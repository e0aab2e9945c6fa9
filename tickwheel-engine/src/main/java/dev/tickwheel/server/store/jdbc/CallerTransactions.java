package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import javax.sql.DataSource;

/**
 * How the store joins a transaction its caller already has open on the store's {@link DataSource}: the Spring Boot
 * starter's implementation finds the connection of the Spring transaction bound to the calling thread. When a caller
 * runs, cancels or reschedules inside such a transaction, the store writes on that transaction's connection (neither
 * committing nor rolling it back) and the engine arms, disarms or prompts only after it commits: rolled back, nothing
 * was written and nothing fires.
 *
 * <p>Only the stores for API callers join ({@link JdbcStores#callerJobs()}, {@link JdbcStores#callerInstances()});
 * the engine's own work (loading, claims, outcomes) always runs in transactions of its own.
 *
 * <p>Implementations are called on the caller's thread and must be thread-safe.
 */
public interface CallerTransactions {

    /** Never joins: every call runs in a transaction of its own (the standalone server, plain embedding). */
    CallerTransactions NONE = new CallerTransactions() {
        @Override
        public Connection current(DataSource dataSource) {
            return null;
        }

        @Override
        public void afterCommit(Runnable action) {
            throw new IllegalStateException("no caller transaction to wait for");
        }
    };

    /**
     * The connection of the transaction the calling thread has open on {@code dataSource}, or null if it has none.
     * The store runs its statements on it and leaves its commit, rollback, auto-commit and closing to the caller.
     */
    Connection current(DataSource dataSource);

    /**
     * Runs {@code action} once the calling thread's transaction (the one {@link #current} returned) has committed,
     * on the thread that committed it; never if it rolls back. Called only while {@link #current} returns a
     * connection.
     */
    void afterCommit(Runnable action);
}
