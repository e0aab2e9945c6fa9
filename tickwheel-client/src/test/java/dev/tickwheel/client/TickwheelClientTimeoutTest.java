package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.RunRequest;
import java.net.ServerSocket;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Time-outs that work: a server that accepts and never answers ({@link SilentServer}), or one that sends the headers
 * and never the whole body ({@link HeldAnswerServer}), makes every call fail within the configured request time-out
 * plus a small margin, measured against the time-out; no sleep anywhere. And connection
 * failures: a refused connection is retried for a read, then an {@link UnavailableException}.
 */
class TickwheelClientTimeoutTest {

    private static final Duration TIMEOUT = Duration.ofMillis(400);
    /** Scheduling on a busy 2-core machine; far below the time-out's own size times the attempts. */
    private static final Duration MARGIN = Duration.ofMillis(750);
    private static final RetryPolicy QUICK_RETRIES = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(20));
    private static final String HEALTH_BODY = "{\"status\":\"UP\",\"store\":\"UP\",\"wheels\":\"UP\"}";

    private static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Test
    void read_serverNeverAnswers_failsWithinTheRequestTimeout() throws Exception {
        try (SilentServer silent = new SilentServer();
                TickwheelClient client = TickwheelClient.builder(silent.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(RetryPolicy.NONE).build()) {
            long startNanos = System.nanoTime();
            UnavailableException timedOut = assertThrows(UnavailableException.class, () -> client.jobs().get(1));
            long elapsedMs = elapsedMs(startNanos);

            assertTrue(timedOut.timedOut(), timedOut.toString());
            assertEquals(TickwheelException.NO_STATUS, timedOut.httpStatus());
            assertTrue(elapsedMs >= TIMEOUT.toMillis() && elapsedMs <= TIMEOUT.plus(MARGIN).toMillis(),
                    "failed after " + elapsedMs + " ms with a time-out of " + TIMEOUT.toMillis() + " ms");
            assertEquals(1, silent.connections());
        }
    }

    @Test
    void read_serverNeverAnswers_isRetried_eachAttemptBoundedByTheTimeout() throws Exception {
        try (SilentServer silent = new SilentServer();
                TickwheelClient client = TickwheelClient.builder(silent.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(QUICK_RETRIES).build()) {
            long startNanos = System.nanoTime();
            UnavailableException timedOut = assertThrows(UnavailableException.class, () -> client.health());
            long elapsedMs = elapsedMs(startNanos);

            assertTrue(timedOut.timedOut());
            assertEquals(3, timedOut.attempts());
            assertEquals(3, silent.connections(), "each attempt on a connection of its own");
            long boundMs = 3 * TIMEOUT.toMillis() + 2 * 20 + MARGIN.toMillis();
            assertTrue(elapsedMs >= 3 * TIMEOUT.toMillis() && elapsedMs <= boundMs,
                    "failed after " + elapsedMs + " ms; 3 attempts of " + TIMEOUT.toMillis() + " ms");
        }
    }

    @Test
    void unkeyedRun_serverNeverAnswers_isNotRetried() throws Exception {
        try (SilentServer silent = new SilentServer();
                TickwheelClient client = TickwheelClient.builder(silent.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(QUICK_RETRIES).build()) {
            UnavailableException timedOut = assertThrows(UnavailableException.class,
                    () -> client.jobs().run(1, RunRequest.now()));

            assertEquals(1, timedOut.attempts());
            assertEquals(1, silent.connections());
            assertTrue(timedOut.getMessage().contains("may or may not have been made"), timedOut.getMessage());
        }
    }

    @Test
    void async_serverNeverAnswers_completesExceptionallyWithinTheTimeout() throws Exception {
        try (SilentServer silent = new SilentServer();
                TickwheelClient client = TickwheelClient.builder(silent.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(RetryPolicy.NONE).build()) {
            long startNanos = System.nanoTime();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> client.instances().getAsync(1).get(TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS));

            UnavailableException timedOut = assertInstanceOf(UnavailableException.class, failed.getCause());
            assertTrue(timedOut.timedOut());
            assertTrue(timedOut.getCause() instanceof HttpTimeoutException
                    || timedOut.getCause() instanceof java.util.concurrent.TimeoutException, timedOut.toString());
            assertTrue(elapsedMs(startNanos) >= TIMEOUT.toMillis());
        }
    }

    @Test
    void read_headersComeButTheBodyNever_failsWithinTheRequestTimeout() throws Exception {
        try (HeldAnswerServer stalled = new HeldAnswerServer(HEALTH_BODY, true);
                TickwheelClient client = TickwheelClient.builder(stalled.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(RetryPolicy.NONE).build()) {
            long startNanos = System.nanoTime();
            UnavailableException timedOut = assertThrows(UnavailableException.class, client::health);
            long elapsedMs = elapsedMs(startNanos);

            assertTrue(timedOut.timedOut(), timedOut.toString());
            assertTrue(elapsedMs >= TIMEOUT.toMillis() && elapsedMs <= TIMEOUT.plus(MARGIN).toMillis(),
                    "failed after " + elapsedMs + " ms with a time-out of " + TIMEOUT.toMillis() + " ms");
        }
    }

    @Test
    void async_headersComeButTheBodyNever_completesExceptionallyWithinTheTimeout() throws Exception {
        try (HeldAnswerServer stalled = new HeldAnswerServer(HEALTH_BODY, true);
                TickwheelClient client = TickwheelClient.builder(stalled.baseUrl()).requestTimeout(TIMEOUT)
                        .retryPolicy(RetryPolicy.NONE).build()) {
            long startNanos = System.nanoTime();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> client.healthAsync().get(TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS));

            assertTrue(assertInstanceOf(UnavailableException.class, failed.getCause()).timedOut());
            assertTrue(elapsedMs(startNanos) >= TIMEOUT.toMillis());
        }
    }

    @Test
    void read_connectionRefused_isRetried_thenUnavailable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (TickwheelClient client = TickwheelClient.builder("http://127.0.0.1:" + closedPort)
                .retryPolicy(QUICK_RETRIES).build()) {
            UnavailableException refused = assertThrows(UnavailableException.class, () -> client.jobs().get(1));

            assertEquals(UnavailableException.CONNECTION_FAILED, refused.code());
            assertEquals(3, refused.attempts());
            assertTrue(refused.getMessage().contains("after 3 attempts"), refused.getMessage());
        }
    }
}
