package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.StoreInUseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The lock a server on an H2 store holds, so that a second server on the same store refuses to start (H2 serves one
 * server; PostgreSQL stores are shared by cluster members instead): the row of {@code tw_server_lock} held
 * {@code FOR UPDATE} in an open transaction on one connection kept for the server's life. Another process is already
 * kept out by H2's file lock; this catches a second server in the same process. When the process dies the lock dies
 * with it (nothing to clean up after {@code kill -9}).
 *
 * <p>Thread-safe: acquired once, closed once.
 */
public final class SingleServerLock implements AutoCloseable {

    private final Connection connection;

    private SingleServerLock(Connection connection) {
        this.connection = connection;
    }

    /**
     * @throws StoreInUseException if another server holds the lock
     */
    static SingleServerLock acquire(DataSource dataSource, String redactedUrl) {
        Connection connection = null;
        try {
            connection = dataSource.getConnection();
            if (!rowLock(connection)) {
                throw new StoreInUseException("another Tickwheel server is running on this store (" + redactedUrl
                        + "); an H2 store serves one server (several servers share a PostgreSQL store): stop the"
                        + " other one first", null);
            }
            return new SingleServerLock(connection);
        } catch (SQLException e) {
            close(connection);
            throw new StoreInUseException("the store's server lock could not be taken (" + redactedUrl + "): "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(connection);
            throw e;
        }
    }

    private static boolean rowLock(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement st = connection.createStatement()) {
            st.execute("SET LOCK_TIMEOUT 200");
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT id FROM tw_server_lock WHERE id = 1 FOR UPDATE"); ResultSet rs = ps.executeQuery()) {
            return rs.next();
        } catch (SQLException e) {
            if (e.getErrorCode() == 50200) { // H2 LOCK_TIMEOUT_1: another session holds the row
                return false;
            }
            throw e;
        }
    }

    private static void close(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            connection.close();
        } catch (SQLException ignored) {
            // the lock dies with the connection
        }
    }

    /** Releases the lock (ends the transaction or the advisory lock's session). Idempotent. */
    @Override
    public void close() {
        close(connection);
    }
}
