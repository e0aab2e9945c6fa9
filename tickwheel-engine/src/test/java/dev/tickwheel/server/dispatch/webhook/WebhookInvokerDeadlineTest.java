package dev.tickwheel.server.dispatch.webhook;

import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.completionMs;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.failure;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.After;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole-call deadline against receivers that stall at each phase. Real I/O, so real time: deadlines of
 * 500 ms, and a generous upper tolerance for a busy two-core machine (a deadline never fires early).
 */
class WebhookInvokerDeadlineTest {

    private static final Duration DEADLINE = Duration.ofMillis(500);
    /** How late a failure may come after the deadline on a loaded machine (the wheel's tick is 10 ms). */
    private static final long TOLERANCE_MS = 1_000;

    private final WebhookInvoker invoker = WebhookInvoker.builder().build();

    @AfterEach
    void closeInvoker() {
        invoker.close();
    }

    @Test
    void invoke_headersNeverCome_failsAtDeadlineAndClosesTheConnection() throws Exception {
        assertTimesOutAndCloses((request, out) -> After.STALL, "no response headers");
    }

    @Test
    void invoke_bodyStallsAfterHeaders_failsAtDeadlineAndClosesTheConnection() throws Exception {
        assertTimesOutAndCloses((request, out) -> ScriptedHttpReceiver.write(out,
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", After.STALL), "response body stalled");
    }

    @Test
    void invoke_bodyTrickles_failsAtDeadlineAndClosesTheConnection() throws Exception {
        // One byte every 100 ms: Apache's socket timeout, an idle timeout, would never fire.
        java.util.concurrent.ScheduledExecutorService trickle = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        try {
            assertTimesOutAndCloses((request, out) -> {
                ScriptedHttpReceiver.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", After.STALL);
                trickle.scheduleAtFixedRate(() -> {
                    try {
                        out.write('x');
                        out.flush();
                    } catch (java.io.IOException closedByClient) {
                        throw new java.io.UncheckedIOException(closedByClient); // ends the schedule
                    }
                }, 100, 100, TimeUnit.MILLISECONDS);
                return After.STALL;
            }, "response body stalled");
        } finally {
            trickle.shutdownNow();
        }
    }

    private void assertTimesOutAndCloses(ScriptedHttpReceiver.Script script, String stalledPhase) throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(script)) {
            long startNanos = System.nanoTime();
            CompletableFuture<String> call = invoker.invoke(job(receiver.url()), context(1, 1), DEADLINE);
            long elapsedMs = completionMs(call, startNanos);

            WebhookException failure = failure(call);
            assertEquals("webhook " + receiver.url() + " timed out after 500 ms (" + stalledPhase + ")",
                    failure.getMessage());
            assertEquals(WebhookException.Reason.TIMEOUT, failure.reason());
            assertDeadlineKept(elapsedMs);
            assertTrue(receiver.awaitClientClosed(1, Duration.ofSeconds(5)), "the client closed the connection");
        }
    }

    @Test
    void invoke_waitingForAPooledConnection_failsAtDeadlineAsNotConnected() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver((request, out) -> After.STALL);
             WebhookInvoker onePerHost = WebhookInvoker.builder().maxConnectionsPerHost(1).build()) {
            CompletableFuture<String> holder = onePerHost.invoke(job(receiver.url()), context(1, 1),
                    Duration.ofSeconds(10));
            Await.until("first call holds the only connection", Duration.ofSeconds(5),
                    () -> receiver.requests().size() == 1);

            long startNanos = System.nanoTime();
            CompletableFuture<String> waiter = onePerHost.invoke(job(receiver.url()), context(2, 1), DEADLINE);
            long elapsedMs = completionMs(waiter, startNanos);

            assertEquals("webhook " + receiver.url() + " timed out after 500 ms (not connected)",
                    failure(waiter).getMessage());
            assertDeadlineKept(elapsedMs);
            assertTrue(!holder.isDone(), "the first call is unaffected");
            assertEquals(1, receiver.requests().size());
        }
    }

    private static void assertDeadlineKept(long elapsedMs) {
        assertTrue(elapsedMs >= DEADLINE.toMillis(), "failed early, after " + elapsedMs + " ms");
        assertTrue(elapsedMs <= DEADLINE.toMillis() + TOLERANCE_MS, "failed late, after " + elapsedMs + " ms");
    }
}
