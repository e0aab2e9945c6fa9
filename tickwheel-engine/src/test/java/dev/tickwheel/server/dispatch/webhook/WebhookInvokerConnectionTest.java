package dev.tickwheel.server.dispatch.webhook;

import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.failure;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.success;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.After;
import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Keep-alive connections: the one retry after a stale reused connection (and only then), receivers that close idle
 * connections, and the client's own idle eviction.
 */
class WebhookInvokerConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final WebhookInvoker invoker = WebhookInvoker.builder().build();
    // Spaces calls out in time; a scheduler, not sleeps, so each call starts at its planned offset.
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void close() {
        pacer.shutdownNow();
        invoker.close();
    }

    @Test
    void invoke_reusedConnectionClosedWithoutAnswer_retriesOnceOnNewConnectionWithSameKey() throws Exception {
        // The first request on connection 1 is answered; a later one is read, then the connection is closed.
        ScriptedHttpReceiver.Script staleSecond = (request, out) -> request.connection() == 1
                && request.indexOnConnection() > 1 ? After.CLOSE : ScriptedHttpReceiver.ok(request, out);
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(staleSecond)) {
            success(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
            success(invoker.invoke(job(receiver.url()), context(2, 1), TIMEOUT));

            List<Request> requests = receiver.requests();
            assertEquals(3, requests.size(), requests.toString());
            Request dropped = requests.get(1);
            Request retry = requests.get(2);
            assertEquals(1, dropped.connection());
            assertEquals("2-1", dropped.header("Idempotency-Key"));
            assertEquals("2-1", retry.header("Idempotency-Key"), "the retry carries the same key");
            assertEquals(2, retry.connection(), "the retry went out on a new connection");
            assertEquals(1, retry.indexOnConnection());
            assertEquals("close", retry.header("Connection"), "the retry's connection is not kept");
        }
    }

    @Test
    void invoke_retryClosedWithoutAnswerToo_failsAfterExactlyOneRetry() throws Exception {
        ScriptedHttpReceiver.Script onlyFirst = (request, out) -> request.connection() == 1
                && request.indexOnConnection() == 1 ? ScriptedHttpReceiver.ok(request, out) : After.CLOSE;
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(onlyFirst)) {
            success(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(2, 1), TIMEOUT));

            assertEquals("webhook " + receiver.url() + " closed the connection without answering"
                    + " (retried once on a fresh connection)", failure.getMessage());
            assertEquals(WebhookException.Reason.EXCHANGE, failure.reason());
            assertEquals(3, receiver.requests().size(), receiver.requests().toString());
        }
    }

    @Test
    void invoke_partialResponseThenClose_failsWithoutRetry() throws Exception {
        assertNoRetryAfterPartialAnswer("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\npartial",
                "closed the connection before the response body was complete");
    }

    @Test
    void invoke_partialStatusLineThenClose_failsWithoutRetry() throws Exception {
        assertNoRetryAfterPartialAnswer("HTTP/1.1 2", null);
    }

    private void assertNoRetryAfterPartialAnswer(String partial, String expectedWhat) throws Exception {
        ScriptedHttpReceiver.Script partialSecond = (request, out) -> request.indexOnConnection() == 1
                ? ScriptedHttpReceiver.ok(request, out)
                : ScriptedHttpReceiver.write(out, partial, After.CLOSE);
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(partialSecond)) {
            success(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(2, 1), TIMEOUT));

            if (expectedWhat != null) {
                assertEquals("webhook " + receiver.url() + " " + expectedWhat, failure.getMessage());
            }
            assertTrue(!failure.getMessage().contains("retried"), failure.getMessage());
            assertEquals(2, receiver.requests().size(), "no retry: " + receiver.requests());
        }
    }

    @Test
    void invoke_newConnectionClosedWithoutAnswer_failsWithoutRetry() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver((request, out) -> After.CLOSE)) {
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals("webhook " + receiver.url() + " closed the connection without answering",
                    failure.getMessage());
            assertEquals(1, receiver.requests().size(), "no retry: " + receiver.requests());
        }
    }

    /**
     * The case: a receiver that closes keep-alive connections left idle, calls spaced beyond its idle time
     * (each 0.8 s after the last one ended, within the client's 2 s idle eviction, so the receiver's close is the only
     * one). Each close must have happened before the next call for the connection count to say that the client saw
     * it, and on a loaded machine the receiver's close came more than 0.2 s late once (one connection reused, 19 for
     * 20 calls): what counts is the margin past the idle time, 0.7 s. The idle time itself is 0.1 s rather than the
     * issue's 1 s (0.5 s until CI time mattered): how long the receiver waits before its close does not change what
     * the client has to notice, while every one of the 20 calls waits it out. The receiver counts idle time only
     * after a connection's first answer, so a new connection is never closed before its request.
     */
    @Test
    void invoke_receiverClosesIdleConnections_twentyCallsSpacedBeyondItsIdleTime_noneFails() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok,
                Duration.ofMillis(100))) {
            List<String> failures = callInSequence(receiver.url(), 20, 800);

            assertEquals(List.of(), failures);
            // The client saw each close while the connection sat idle, so no call needed its retry.
            assertEquals(20, receiver.requests().size());
            assertEquals(20, receiver.connections());
        }
    }

    /**
     * Calls that land around the moment the receiver closes the idle connection (300 ms), some just before, some just
     * after: the race the retry exists for. None may fail.
     */
    @Test
    void invoke_callsRacingTheReceiversIdleClose_noneFails() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok,
                Duration.ofMillis(300))) {
            List<Long> offsetsMs = new ArrayList<>();
            long atMs = 0;
            for (int i = 0; i < 20; i++) {
                offsetsMs.add(atMs);
                atMs += 270 + random.nextInt(61); // 270..330 ms
            }
            List<String> failures = callAt(receiver.url(), offsetsMs);

            assertEquals(List.of(), failures, "seed " + seed);
            System.out.println("racing idle close (seed " + seed + "): " + receiver.requests().size()
                    + " requests for 20 calls on " + receiver.connections() + " connections");
        }
    }

    @Test
    void idleEviction_closesAnIdleConnectionAfterTheIdleTime() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok);
             WebhookInvoker evicting = WebhookInvoker.builder().idleEviction(Duration.ofMillis(300)).build()) {
            success(evicting.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
            long idleSinceNanos = System.nanoTime();

            assertTrue(receiver.awaitClientClosed(1, Duration.ofSeconds(5)), "idle connection closed");
            long idleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSinceNanos);
            // Expired after 300 ms, closed by the sweep that runs every 150 ms.
            assertTrue(idleMs >= 250 && idleMs < 2_000, "closed after " + idleMs + " ms idle");

            success(evicting.invoke(job(receiver.url()), context(2, 1), TIMEOUT));
            assertEquals(2, receiver.connections());
        }
    }

    @Test
    void keepAliveHeader_connectionNotUsedAfterHalfTheAdvertisedTimeout() throws Exception {
        ScriptedHttpReceiver.Script advertises1s = (request, out) -> ScriptedHttpReceiver.write(out,
                "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n", After.KEEP_ALIVE);
        try (ScriptedHttpReceiver advertising = new ScriptedHttpReceiver(advertises1s);
             ScriptedHttpReceiver silent = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok)) {
            // Each second call 700 ms after the first ended: past half of the advertised 1 s, within the 2 s idle
            // eviction. (Counted from the end, not the start: a first call slowed by a loaded machine would otherwise
            // leave the connection idle for less.)
            callInSequence(advertising.url(), 2, 700);
            callInSequence(silent.url(), 2, 700);

            assertEquals(2, advertising.connections(), "not reused after 500 ms idle");
            assertEquals(1, silent.connections(), "reused: no Keep-Alive header, 2 s idle eviction");
        }
    }

    /** Makes {@code count} calls, each starting {@code gapMs} after the previous one ended; returns the failures. */
    private List<String> callInSequence(String url, int count, long gapMs) throws Exception {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long instanceId = i + 1;
            CompletableFuture<String> outcome = new CompletableFuture<>();
            // The receiver's idle close is real time, so the gap is too: the pacer starts the call that long after
            // the previous one ended.
            pacer.schedule(() -> invoker.invoke(job(url), context(instanceId, 1), TIMEOUT)
                    .whenComplete((ok, failure) -> outcome.complete(failure == null ? null : failure.getMessage())),
                    i == 0 ? 0 : gapMs, TimeUnit.MILLISECONDS);
            String failure = outcome.get(60, TimeUnit.SECONDS);
            if (failure != null) {
                failures.add(failure);
            }
        }
        return failures;
    }

    /** Starts one call at each offset from now; waits for all; returns the failure messages. */
    private List<String> callAt(String url, List<Long> offsetsMs) throws Exception {
        List<CompletableFuture<String>> outcomes = new ArrayList<>();
        for (int i = 0; i < offsetsMs.size(); i++) {
            long instanceId = i + 1;
            CompletableFuture<String> outcome = new CompletableFuture<>();
            pacer.schedule(() -> invoker.invoke(job(url), context(instanceId, 1), TIMEOUT)
                    .whenComplete((ok, failure) -> outcome.complete(failure == null ? null : failure.getMessage())),
                    offsetsMs.get(i), TimeUnit.MILLISECONDS);
            outcomes.add(outcome);
        }
        List<String> failures = new ArrayList<>();
        for (CompletableFuture<String> outcome : outcomes) {
            String failure = outcome.get(60, TimeUnit.SECONDS);
            if (failure != null) {
                failures.add(failure);
            }
        }
        return failures;
    }

    @Test
    void invoke_healthyReceiver_reusesOneConnectionWithoutRetries() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok)) {
            for (int i = 1; i <= 5; i++) {
                success(invoker.invoke(job(receiver.url()), context(i, 1), TIMEOUT));
            }
            assertEquals(5, receiver.requests().size());
            assertEquals(1, receiver.connections(), "one kept-alive connection");
            assertTrue(receiver.requests().stream().noneMatch(r -> "close".equals(r.header("Connection"))));
        }
    }
}
