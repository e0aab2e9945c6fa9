package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransactionRunnerTest {

    private final DataSource dataSource = mock(DataSource.class);
    private final Connection connection = mock(Connection.class);
    private final TransactionRunner runner = new TransactionRunner(dataSource, Duration.ZERO);

    @BeforeEach
    void pooledConnection() throws SQLException {
        when(dataSource.getConnection()).thenReturn(connection);
    }

    @Test
    void inTransaction_workReturns_commits() throws SQLException {
        assertEquals("ok", runner.inTransaction("op", c -> "ok"));

        verify(connection).setAutoCommit(false);
        verify(connection).commit();
        verify(connection, never()).rollback();
    }

    @Test
    void inTransaction_deadlockTwiceThenSuccess_retriesAndCommits() throws SQLException {
        AtomicInteger calls = new AtomicInteger();

        String result = runner.inTransaction("op", c -> {
            if (calls.incrementAndGet() < 3) {
                throw new SQLException("deadlock detected", "40P01");
            }
            return "third time";
        });

        assertEquals("third time", result);
        verify(connection, times(2)).rollback();
        verify(connection).commit();
    }

    @Test
    void inTransaction_transientFailureEveryTime_givesUpAfterMaxAttempts() throws SQLException {
        AtomicInteger calls = new AtomicInteger();

        StoreException e = assertThrows(StoreException.class, () -> runner.inTransaction("claim", c -> {
            calls.incrementAndGet();
            throw new SQLException("could not serialize", "40001");
        }));

        assertEquals(TransactionRunner.MAX_ATTEMPTS, calls.get());
        assertTrue(e.getMessage().contains("claim") && e.getMessage().contains("40001"), e.getMessage());
    }

    @Test
    void inTransaction_nonTransientFailure_failsAtOnceWithRollback() throws SQLException {
        AtomicInteger calls = new AtomicInteger();

        assertThrows(StoreException.class, () -> runner.inTransaction("op", c -> {
            calls.incrementAndGet();
            throw new SQLException("syntax error", "42601");
        }));

        assertEquals(1, calls.get());
        verify(connection).rollback();
    }

    @Test
    void inTransaction_runtimeException_rollsBackAndPropagatesUnchanged() throws SQLException {
        IllegalArgumentException thrown = new IllegalArgumentException("jobId does not name a stored job: 5");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> runner.inTransaction("op", c -> {
                    throw thrown;
                }));

        assertSame(thrown, e);
        verify(connection).rollback();
        verify(connection, never()).commit();
    }

    /** What HikariCP throws when no connection came within its connection timeout (the database is stopped). */
    @Test
    void inTransaction_noConnectionWithinThePoolTimeout_failsAtOnceAsStoreException() throws SQLException {
        when(dataSource.getConnection()).thenThrow(new SQLTransientConnectionException(
                "tickwheel-store - Connection is not available, request timed out after 2000ms.", "08001"));
        AtomicInteger calls = new AtomicInteger();

        StoreException e = assertThrows(StoreException.class, () -> runner.inTransaction("run", c -> {
            calls.incrementAndGet();
            return null;
        }));

        assertEquals(0, calls.get());
        assertTrue(e.getMessage().contains("attempt 1 of"), "not retried: " + e.getMessage());
    }

    @Test
    void inTransaction_runnerWithNetworkTimeout_setsItOnTheConnection_runnerWithoutSetsNone() throws SQLException {
        TransactionRunner bounded = new TransactionRunner(dataSource, Duration.ofMillis(2_000));

        bounded.inTransaction("op", c -> "ok");
        runner.inTransaction("op", c -> "ok");

        verify(connection, times(1)).setNetworkTimeout(any(), eq(2_000));
    }

    /** What pgjdbc throws when a read outlived the network timeout (the server vanished mid-statement). */
    @Test
    void autoCommit_readTimedOut_failsAsStoreException() throws SQLException {
        TransactionRunner bounded = new TransactionRunner(dataSource, Duration.ofMillis(2_000));

        StoreException e = assertThrows(StoreException.class, () -> bounded.autoCommit("read", c -> {
            throw new SQLException("An I/O error occurred while sending to the backend.", "08006",
                    new java.net.SocketTimeoutException("Read timed out"));
        }));

        assertTrue(e.getMessage().contains("08006"), e.getMessage());
    }

    @Test
    void new_negativeNetworkTimeout_refusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TransactionRunner(dataSource, Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("networkTimeout") && e.getMessage().contains("PT-0.001S"), e.getMessage());
    }

    @Test
    void autoCommit_work_neitherBeginsNorCommits() throws SQLException {
        assertEquals("done", runner.autoCommit("op", c -> "done"));

        verify(connection, never()).setAutoCommit(false);
        verify(connection, never()).commit();
        verify(connection).close();
    }
}
