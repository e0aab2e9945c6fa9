package dev.tickwheel.spring;

import dev.tickwheel.server.store.jdbc.CallerTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins the Spring transaction bound to the calling thread on the store's DataSource (a
 * {@code DataSourceTransactionManager}'s, a {@code JdbcTransactionManager}'s, or a JPA one that exposes its JDBC
 * connection): Tickwheel's writes go into it, and what follows a write (arming, prompting the owner) is registered to
 * run after its commit. Outside such a transaction, or in one on another DataSource, nothing is joined and each call
 * commits on its own.
 *
 * <p>Thread-safe: reads only the calling thread's transaction state.
 */
final class SpringCallerTransactions implements CallerTransactions {

    private static final Logger log = LoggerFactory.getLogger(SpringCallerTransactions.class);

    @Override
    public Connection current(DataSource dataSource) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return null;
        }
        Object resource = TransactionSynchronizationManager.getResource(dataSource);
        if (resource instanceof ConnectionHolder holder) {
            return holder.getConnection();
        }
        return null;
    }

    @Override
    public void afterCommit(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    // Committed already: the owner's next pass arms what a failed prompt missed; the caller's
                    // commit must not look failed.
                    log.warn("arming after the caller's commit failed; the owner's next pass arms it", e);
                }
            }
        });
    }
}
