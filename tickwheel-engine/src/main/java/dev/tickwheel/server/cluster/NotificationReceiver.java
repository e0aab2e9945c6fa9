package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving half of {@link PgClusterBus}, run by its thread: takes one connection from the pool and keeps it,
 * {@code LISTEN}s on the channel, and waits for notifications ({@link PGConnection#getNotifications(int)}), handing
 * every event of another session to the handler in order. When the connection fails it is returned to the pool and a
 * new one taken, after a backoff that doubles from {@link #INITIAL_BACKOFF} to {@link #MAX_BACKOFF}; once listening
 * again, it delivers a {@link ClusterEvent.Resync}, since notifications sent meanwhile are lost.
 *
 * <p>Not thread-safe: confined to the bus thread; {@code closing} is how another thread stops it.
 *
 * <p>Caveats: the kept connection counts against the pool's maximum size. A connection that dies silently (a network
 * partition without a reset) is noticed by the validity check after {@link #IDLE_CHECK} without notifications.
 */
final class NotificationReceiver implements Runnable {

    static final Duration INITIAL_BACKOFF = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /** How long one wait for notifications lasts: also how long close() may wait for this thread. */
    static final int POLL_MS = 250;
    /** After this long without a notification the connection is checked (a round trip). */
    static final Duration IDLE_CHECK = Duration.ofSeconds(10);
    private static final int VALIDITY_TIMEOUT_SECONDS = 5;

    private static final Logger log = LoggerFactory.getLogger(NotificationReceiver.class);

    private final DataSource dataSource;
    private final String channel;
    private final long session;
    private final Consumer<ClusterEvent> handler;
    private final CountDownLatch closing;
    private final RepeatedFailureLog failureLog;

    NotificationReceiver(DataSource dataSource, String channel, long session, Consumer<ClusterEvent> handler,
                         CountDownLatch closing) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.session = session;
        this.handler = handler;
        this.closing = closing;
        this.failureLog = new RepeatedFailureLog(log, "listening on bus channel " + channel, Duration.ofSeconds(30),
                Ticker.systemTicker());
    }

    @Override
    public void run() {
        long backoffMs = INITIAL_BACKOFF.toMillis();
        boolean missed = false; // whether notifications may have been sent while this member was not listening
        while (!closed()) {
            Connection connection = null;
            try {
                connection = dataSource.getConnection();
                connection.setAutoCommit(true); // LISTEN takes effect at commit
                PGConnection pg = connection.unwrap(PGConnection.class);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + PgClusterBus.quoteIdentifier(channel));
                }
                failureLog.succeeded();
                backoffMs = INITIAL_BACKOFF.toMillis();
                if (missed) {
                    log.info("listening on bus channel {} again; asking for a resync", channel);
                    deliver(new ClusterEvent.Resync());
                    missed = false;
                }
                receive(connection, pg);
            } catch (SQLException | RuntimeException e) {
                if (closed()) {
                    break;
                }
                missed = true;
                failureLog.failed(e);
                closeQuietly(connection);
                connection = null;
                if (await(backoffMs)) {
                    break;
                }
                backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF.toMillis());
            } finally {
                if (connection != null) { // closing: leave the pool's connection as it was taken
                    unlistenAndClose(connection);
                }
            }
        }
    }

    /** Waits for notifications until closed; throws when the connection fails. */
    private void receive(Connection connection, PGConnection pg) throws SQLException {
        long lastHeardNanos = System.nanoTime();
        while (!closed()) {
            PGNotification[] notifications = pg.getNotifications(POLL_MS);
            if (notifications != null && notifications.length > 0) {
                lastHeardNanos = System.nanoTime();
                for (PGNotification notification : notifications) {
                    if (channel.equals(notification.getName())) {
                        deliverPayload(notification.getParameter());
                    }
                }
            } else if (System.nanoTime() - lastHeardNanos > IDLE_CHECK.toNanos()) {
                if (!connection.isValid(VALIDITY_TIMEOUT_SECONDS)) {
                    throw new SQLException("the bus connection is no longer valid");
                }
                lastHeardNanos = System.nanoTime();
            }
        }
    }

    private void deliverPayload(String payload) {
        for (String text : payload.split("\n")) {
            Optional<EventLines.Line> line = EventLines.decode(text);
            if (line.isEmpty()) {
                log.warn("bus channel {}: skipping a line this version cannot read: {}", channel, text);
            } else if (line.get().session() != session) { // a member does not receive its own events
                deliver(line.get().event());
            }
        }
    }

    private void deliver(ClusterEvent event) {
        try {
            handler.accept(event);
        } catch (RuntimeException e) {
            log.error("bus channel {}: the handler failed on {}; going on with the next event", channel, event, e);
        }
    }

    private boolean closed() {
        return closing.getCount() == 0;
    }

    /** Waits up to {@code ms}; true if the bus is closing. */
    private boolean await(long ms) {
        try {
            return closing.await(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void unlistenAndClose(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *"); // a pooled connection goes back without our subscription
        } catch (SQLException | RuntimeException e) {
            log.debug("UNLISTEN on the bus connection failed; the pool discards a broken connection", e);
        }
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing the bus connection failed", e);
        }
    }
}
