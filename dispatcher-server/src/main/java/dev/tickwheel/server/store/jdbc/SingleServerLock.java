package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.StoreInUseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The lock a running server holds on its store, so that a second server on the same store refuses to start: on
 * PostgreSQL a session advisory lock keyed by the schema, on H2 the row of {@code tw_server_lock} held
 * {@code FOR UPDATE} in an open transaction. Either lives in one connection kept for the server's life; when the
 * process dies, the database ends the session and the lock is free again (nothing to clean up after {@code kill -9}).
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
    static SingleServerLock acquire(DataSource dataSource, SqlDialect dialect, String redactedUrl) {
        Connection connection = null;
        try {
            connection = dataSource.getConnection();
            boolean locked = dialect.name().equals("postgresql") ? advisoryLock(connection) : rowLock(connection);
            if (!locked) {
                throw new StoreInUseException("another Tickwheel server is running on this store (" + redactedUrl
                        + "); one server per store until cluster mode exists: stop the other one first", null);
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

    private static boolean advisoryLock(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT pg_try_advisory_lock(hashtext('tickwheel-server/' || current_schema()))")) {
            return rs.next() && rs.getBoolean(1);
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
