package dev.tickwheel.server;

import dev.tickwheel.server.store.jdbc.CallerTransactions;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where the services' work after a write runs (arming, disarming, prompting the owner): at once after the store's own
 * transaction, or, when the caller wrote inside a transaction of its own ({@link CallerTransactions}), once that
 * commits; never if it rolls back. A write the caller's transaction holds is invisible to every other connection
 * until then, so arming it earlier would fire (or fail to claim) an instance that may never exist.
 *
 * <p>Thread-safe; asks on the caller's thread.
 */
final class AfterWrite {

    private final CallerTransactions transactions;
    private final DataSource dataSource;

    AfterWrite(CallerTransactions transactions, DataSource dataSource) {
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        this.dataSource = dataSource;
    }

    /** Whether the calling thread writes inside a transaction of its own on the store's data source. */
    boolean joined() {
        return transactions != CallerTransactions.NONE && transactions.current(dataSource) != null;
    }

    /** Runs {@code action} now, or after the caller's transaction commits. */
    void then(Runnable action) {
        if (joined()) {
            transactions.afterCommit(action);
        } else {
            action.run();
        }
    }
}
