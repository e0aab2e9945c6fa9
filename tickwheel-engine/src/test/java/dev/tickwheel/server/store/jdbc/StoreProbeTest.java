package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link StoreProbe}: {@link StoreProbe#up()} says what the last check found, never waits, and reads a check older
 * than the stale bound as down; a kept connection that broke is replaced at once. The checks are called by the test
 * (no thread), against an H2 database in memory or a connector that refuses, with a ticker the test moves, started
 * near the ends of the {@code long} range (it wraps like {@link System#nanoTime()}).
 */
class StoreProbeTest {

    private static final Duration BOUND = Duration.ofMillis(500);
    private static final Duration STALE_AFTER = Duration.ofSeconds(2);

    private final List<Connection> opened = new ArrayList<>();
    private final AtomicBoolean databaseDown = new AtomicBoolean();
    private final AtomicBoolean poolEmpty = new AtomicBoolean();
    private long nowNanos;
    private final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return nowNanos;
        }
    };

    @AfterEach
    void closeConnections() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
    }

    private StoreProbe probe(long startNanos) {
        nowNanos = startNanos;
        String url = "jdbc:h2:mem:store-probe-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        return new StoreProbe(() -> {
            if (databaseDown.get()) {
                throw new SQLTransientConnectionException("Connection refused", "08001");
            }
            Connection connection = DriverManager.getConnection(url);
            opened.add(connection);
            return connection;
        }, () -> !poolEmpty.get(), BOUND, STALE_AFTER, ticker);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, Long.MAX_VALUE - 1_000_000_000L, Long.MIN_VALUE})
    void up_beforeAnyCheck_isFalse_afterAnAnsweredCheck_isTrue(long startNanos) {
        StoreProbe probe = probe(startNanos);
        assertFalse(probe.up(), "no check yet: not known to answer");

        probe.check();

        assertTrue(probe.up());
    }

    @Test
    void check_databaseStoppedThenBack_downThenUp() throws SQLException {
        StoreProbe probe = probe(0);
        probe.check();
        assertTrue(probe.up());

        databaseDown.set(true);
        opened.get(0).close(); // what a stopped database does to the kept connection
        probe.check();
        assertFalse(probe.up(), "the kept connection broke and a new one was refused");
        probe.check();
        assertFalse(probe.up(), "still refused");

        databaseDown.set(false);
        probe.check();
        assertTrue(probe.up(), "a new connection answers");
    }

    @Test
    void check_keptConnectionBrokeButDatabaseAnswers_staysUpOnANewConnection() throws SQLException {
        StoreProbe probe = probe(0);
        probe.check();
        opened.get(0).close(); // e.g. the database restarted between two checks, or cut an idle connection

        probe.check();

        assertTrue(probe.up());
        assertEquals(2, opened.size(), "one new connection");
        assertFalse(opened.get(1).isClosed());
    }

    /** After an outage the database answers before the pool has reconnected (HikariCP backs off up to 5 s). */
    @Test
    void check_databaseAnswersButThePoolHasNoConnectionYet_downUntilItHasOne() {
        StoreProbe probe = probe(0);
        poolEmpty.set(true);
        probe.check();
        assertFalse(probe.up(), "no API call could succeed yet");

        poolEmpty.set(false);
        probe.check();
        assertTrue(probe.up());
    }

    @ParameterizedTest
    @ValueSource(longs = {0, Long.MAX_VALUE - 1_000_000_000L})
    void up_lastAnswerOlderThanStaleAfter_isFalse_evenIfItAnswered(long startNanos) {
        StoreProbe probe = probe(startNanos);
        probe.check();

        nowNanos += STALE_AFTER.toNanos(); // wraps past Long.MAX_VALUE for the second start
        assertTrue(probe.up(), "exactly stale-after old still counts");
        nowNanos += 1;
        assertFalse(probe.up(), "a check that never came back (a hung connect) reads as down");

        probe.check();
        assertTrue(probe.up());
    }

    @Test
    void close_afterUp_isDownAndClosesItsConnection() throws SQLException {
        StoreProbe probe = probe(0);
        probe.check();

        probe.close();

        assertFalse(probe.up());
        assertTrue(opened.get(0).isClosed());
    }
}
