package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.Batcher;
import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ClusterBus} of a PostgreSQL store: {@code NOTIFY} on a channel of the store's schema, {@code LISTEN} on
 * it.
 *
 * <p>Sending: {@link #publish} queues the event and returns; one thread ({@code tickwheel-bus-send-1}, a
 * {@link Batcher}) takes whatever has queued up, writes it as {@link EventLines} packed into payloads under 8000 bytes,
 * and sends each with {@code SELECT pg_notify(?, ?)} on a pooled connection, in autocommit so that each payload is its
 * own transaction (PostgreSQL folds identical notifications of one transaction into one), committed without waiting
 * for the WAL flush ({@code synchronous_commit} off for that transaction only: a prompt is a hint). So a burst of 10 000 events
 * costs a few dozen notifications, and one event alone is sent at once. A failed send is logged and its events
 * dropped: prompts are hints.
 *
 * <p>Receiving: {@link #start} starts the thread {@code tickwheel-bus-1}, which keeps one pooled connection, listens,
 * and hands the events of other sessions to the handler, in order; see {@link NotificationReceiver}. After a lost
 * connection it reconnects with backoff and delivers a {@link ClusterEvent.Resync}.
 *
 * <p>Order: the events of one sender arrive in the order it published them (one sending thread, one transaction per
 * payload, and PostgreSQL delivers notifications in commit order). Nothing orders the events of two senders.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: a notification is delivered to the sessions listening when it commits; a member that is reconnecting
 * misses it (hence Resync). The receiving connection is held for the bus's life: size the pool for it. Events
 * published after {@link #close} are dropped.
 */
public final class PgClusterBus implements ClusterBus {

    /** The longest channel name PostgreSQL keeps (NAMEDATALEN − 1), in bytes. */
    static final int MAX_CHANNEL_BYTES = 63;
    /** Most events the sender takes into one batch. */
    static final int MAX_BATCH = 2_000;
    private static final String CHANNEL_PREFIX = "tw_bus_";
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(PgClusterBus.class);

    private final DataSource dataSource;
    private final String channel;
    private final long session;
    private final Batcher<ClusterEvent> sender;
    /** Confined to the sender's thread (the Batcher's consumer and failure callbacks run there). */
    private final RepeatedFailureLog sendFailureLog;
    /** Counted down by close(): stops the receiver between two waits and cuts its backoff short. */
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Set once by start(); start() may be called once. */
    private final AtomicBoolean started = new AtomicBoolean();
    /** Set once by close(). */
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set by start(), read by close() on another thread to join it. */
    private volatile Thread receiver;

    /**
     * @param dataSource the store's pool (PostgreSQL); the bus takes one connection for good and others briefly
     * @param channel    the channel, e.g. {@link #channelOf}; at most 63 bytes
     * @param session    this member's session ({@link dev.tickwheel.server.store.ClusterStore#session()}): events
     *                   carrying it are its own and not delivered back to it
     */
    public PgClusterBus(DataSource dataSource, String channel, long session) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.channel = requireChannel(channel);
        this.session = session;
        this.sendFailureLog = new RepeatedFailureLog(log, "sending on bus channel " + channel, Duration.ofSeconds(30),
                Ticker.systemTicker());
        this.sender = new Batcher<>("bus-send", MAX_BATCH, this::send,
                (batch, failure) -> log.error("bus channel {}: {} events were not sent", channel, batch.size(),
                        failure));
    }

    /**
     * The channel of the schema {@code dataSource}'s connections use ({@code current_schema()}), so that stores in
     * different schemas of one database do not hear each other: {@code tw_bus_<schema>}, or, for a schema name too long
     * for that, its beginning and a hash of all of it.
     *
     * @throws StoreException if the database cannot be asked, or the connection has no current schema
     */
    public static String channelOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_schema()")) {
            String schema = rs.next() ? rs.getString(1) : null;
            if (schema == null) {
                throw new StoreException("the connection has no current schema (check search_path and currentSchema)",
                        null);
            }
            return channelName(schema);
        } catch (SQLException e) {
            throw new StoreException("reading the current schema for the bus channel failed: " + e.getMessage(), e);
        }
    }

    /** {@code tw_bus_<schema>} if it fits in 63 bytes; else as much of the schema as fits, '_' and 8 hex of a CRC. */
    static String channelName(String schema) {
        String full = CHANNEL_PREFIX + schema;
        if (utf8Length(full) <= MAX_CHANNEL_BYTES) {
            return full;
        }
        CRC32 crc = new CRC32();
        crc.update(schema.getBytes(StandardCharsets.UTF_8));
        String suffix = String.format("_%08x", crc.getValue());
        StringBuilder name = new StringBuilder(CHANNEL_PREFIX);
        int budget = MAX_CHANNEL_BYTES - utf8Length(CHANNEL_PREFIX) - suffix.length();
        for (int i = 0; i < schema.length(); ) {
            int codePoint = schema.codePointAt(i);
            String character = new String(Character.toChars(codePoint));
            budget -= utf8Length(character);
            if (budget < 0) {
                break; // never cut a character in half
            }
            name.append(character);
            i += Character.charCount(codePoint);
        }
        return name.append(suffix).toString();
    }

    /** {@code name} as a quoted SQL identifier, for {@code LISTEN}: case and every character kept. */
    static String quoteIdentifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    private static String requireChannel(String channel) {
        Objects.requireNonNull(channel, "channel");
        if (channel.isEmpty() || channel.indexOf('\0') >= 0 || utf8Length(channel) > MAX_CHANNEL_BYTES) {
            throw new IllegalArgumentException("channel must be 1 to " + MAX_CHANNEL_BYTES
                    + " bytes of UTF-8 without NUL: '" + channel + "'");
        }
        return channel;
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Queues {@code event} for the other members and returns at once. A {@link ClusterEvent.Resync} (raised locally,
     * never sent) and anything published after {@link #close} are dropped.
     */
    @Override
    public void publish(ClusterEvent event) {
        Objects.requireNonNull(event, "event");
        if (event instanceof ClusterEvent.Resync || closed.get()) {
            return;
        }
        try {
            sender.add(event);
        } catch (IllegalStateException closedMeanwhile) {
            // close() ran between the check and the add: dropped, like any event published after close
        }
    }

    private void send(List<ClusterEvent> batch) {
        List<String> payloads = EventLines.payloads(session, batch);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true); // one transaction per payload: none folded into another
            // A NOTIFY commits like a write (it takes an XID), so by default each one waits for a WAL flush and
            // queues API writes behind it. A prompt is a hint (a crash may lose it; the owner's sweep catches that),
            // so this transaction alone commits without waiting for the flush.
            try (PreparedStatement notify = connection.prepareStatement(
                    "SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)")) {
                for (String payload : payloads) {
                    notify.setString(1, channel);
                    notify.setString(2, payload);
                    notify.executeQuery().close();
                }
            }
            sendFailureLog.succeeded();
        } catch (SQLException | RuntimeException e) {
            sendFailureLog.failed(e); // dropped: the owners find the changes at their next sweep
        }
    }

    /**
     * Starts delivering the events of other members to {@code handler} on the thread {@code tickwheel-bus-1}.
     *
     * @throws IllegalStateException if started before, or closed
     */
    @Override
    public void start(Consumer<ClusterEvent> handler) {
        Objects.requireNonNull(handler, "handler");
        if (closed.get()) {
            throw new IllegalStateException("cannot be started once closed");
        }
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("already started");
        }
        Thread thread = new NamedThreadFactory("bus", true)
                .newThread(new NotificationReceiver(dataSource, channel, session, handler, closing));
        receiver = thread;
        thread.start();
        log.info("bus listening on channel {} (session {})", channel, session);
    }

    /**
     * Sends what is queued (waiting up to 5 s), stops listening, and returns the kept connection to the pool, waiting
     * up to 5 s for the receiving thread. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<ClusterEvent> unsent = sender.close(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (!unsent.isEmpty()) {
            log.warn("bus channel {}: {} events were not sent before close", channel, unsent.size());
        }
        closing.countDown();
        Thread thread = receiver;
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(CLOSE_WAIT.toMillis());
                if (thread.isAlive()) {
                    log.warn("bus channel {}: the receiving thread did not stop within {}", channel, CLOSE_WAIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
