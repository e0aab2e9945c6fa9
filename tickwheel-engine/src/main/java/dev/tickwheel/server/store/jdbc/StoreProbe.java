package dev.tickwheel.server.store.jdbc;

import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the database answers, known without waiting for it: health reads {@link #up()}, the last answer of a
 * background check, and so answers at once even while the database is gone.
 *
 * <p>The check ({@link #check()}, every {@link #DEFAULT_INTERVAL} on {@code tickwheel-store-probe-1}) runs
 * {@code SELECT 1} on a connection of its own, outside the pool, whose every read waits at most {@code answerBound}
 * (500 ms from the server): a busy pool never makes the store look down, and a stopped database never makes the
 * check wait for the pool's connection timeout. When that connection fails (a database restart closes it), one new
 * connection is tried at once before the store is called down; while down, each check tries a new one.
 *
 * <pre>
 *   t       database stopped (its connections are cut)
 *   t+0..250 ms   next check: SELECT 1 fails, a new connection is refused    → up() false
 *   t'      database back
 *   t'+0..250 ms  next check: a new connection answers SELECT 1             → up() true
 * </pre>
 *
 * <p>The store counts as up only while the pool has a connection too: after an outage the database answers the probe
 * at once, but HikariCP retries its connections with a backoff of up to 5 s, and until one is back every API call would
 * still fail; health says UP when calls can succeed again.
 *
 * <p>{@link #up()} is true only if the last check found both and ended at most {@code staleAfter} ago, so a check
 * that hangs (a connect the driver cannot bound) reads as down, not as the last good answer.
 *
 * <p>Thread-safe: {@link #check()} runs on one thread at a time (the probe's thread, or a test's); {@link #up()} from
 * any thread.
 */
public final class StoreProbe implements AutoCloseable {

    /** How often the check runs. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(250);
    /** The longest the check's {@code SELECT 1} waits for the database's answer. */
    public static final Duration DEFAULT_ANSWER_BOUND = Duration.ofMillis(500);
    /** An answer older than this counts as none: 8 intervals, so a loaded machine's late check is no outage. */
    public static final Duration DEFAULT_STALE_AFTER = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(StoreProbe.class);
    private static final String TASK = "store-probe";
    /** How long {@link #close()} waits for a check in progress (a connect bounded by the driver's login timeout). */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(2);

    /** Opens the check's own connection. */
    @FunctionalInterface
    interface Connector {
        Connection open() throws SQLException;
    }

    /** The last check: whether the database answered, and when the check ended (ticker nanos). */
    private record Answer(boolean up, long atNanos) {
    }

    private final Connector connector;
    private final BooleanSupplier poolHasConnections;
    private final int answerBoundMs;
    private final long staleAfterNanos;
    private final Ticker ticker;
    /** Confined to the checking thread. */
    private Connection connection;
    /** Written by the checking thread, read by health on any thread; null before the first check. */
    private volatile Answer last;
    /** Guarded by this: set by {@link #start}, read by {@link #close()}. */
    private PeriodicTaskScheduler checks;

    /**
     * @param connector          opens the probe's own connection
     * @param poolHasConnections whether the store's pool holds at least one connection now (never waits)
     */
    StoreProbe(Connector connector, BooleanSupplier poolHasConnections, Duration answerBound, Duration staleAfter,
               Ticker ticker) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.poolHasConnections = Objects.requireNonNull(poolHasConnections, "poolHasConnections");
        this.answerBoundMs = Math.toIntExact(answerBound.toMillis());
        if (answerBoundMs < 1) {
            throw new IllegalArgumentException("answerBound must be at least 1 ms: " + answerBound);
        }
        this.staleAfterNanos = staleAfter.toNanos();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /**
     * Checks once now, on the caller's thread (so {@link #up()} is right from the start), then every {@code interval}
     * on a thread of its own until {@link #close()}.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized StoreProbe start(Duration interval) {
        if (checks != null) {
            throw new IllegalStateException("the store probe is already started");
        }
        check();
        checks = new PeriodicTaskScheduler(TASK, 1,
                (task, failure) -> log.error("{} failed; it runs again next period", task, failure), CLOSE_BOUND);
        checks.scheduleAtFixedRate(TASK, this::check, interval, interval);
        return this;
    }

    /**
     * True if the last check found the database answering and the pool holding a connection, and ended at most
     * {@code staleAfter} ago.
     */
    public boolean up() {
        Answer answer = last;
        return answer != null && answer.up() && ticker.read() - answer.atNanos() <= staleAfterNanos;
    }

    /**
     * One check: {@code SELECT 1} on the kept connection, or on a new one if it has none or it failed; then whether
     * the pool has a connection.
     */
    void check() {
        boolean answers = answers();
        boolean pooled = answers && poolHasConnections.getAsBoolean();
        Answer before = last;
        last = new Answer(pooled, ticker.read());
        if (before != null && before.up() != pooled) {
            if (pooled) {
                log.info("store probe: the database answers again and the pool has connections; health is UP");
            } else if (answers) {
                log.warn("store probe: the database answers but the pool has no connection; health is DOWN");
            } else {
                log.warn("store probe: the database does not answer; health is DOWN until it does");
            }
        }
    }

    private boolean answers() {
        boolean kept = connection != null;
        try {
            selectOne();
            return true;
        } catch (SQLException | RuntimeException first) {
            closeConnection();
            if (!kept) {
                log.debug("store probe: no connection: {}", first.toString());
                return false;
            }
            // The kept connection broke (a restarted database, a cut idle connection): one new one before "down".
            try {
                selectOne();
                return true;
            } catch (SQLException | RuntimeException second) {
                closeConnection();
                log.debug("store probe: connection failed ({}), and a new one: {}", first, second.toString());
                return false;
            }
        }
    }

    private void selectOne() throws SQLException {
        if (connection == null) {
            connection = connector.open();
            connection.setNetworkTimeout(Runnable::run, answerBoundMs); // the driver ignores the executor
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                log.debug("store probe: closing its connection failed: {}", e.toString());
            }
            connection = null;
        }
    }

    /** Stops the checks and closes the connection; {@link #up()} is false from now on. Idempotent. */
    @Override
    public synchronized void close() {
        if (checks != null) {
            checks.close(); // waits for a check in progress: the connection is then the caller's alone
        }
        last = null;
        closeConnection();
    }
}
