package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.server.dispatch.JobContext;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.completionMs;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.failure;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.success;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.After;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a webhook call sends, and what it makes of the answer, against real receivers on 127.0.0.1. */
class WebhookInvokerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final WebhookInvoker invoker = WebhookInvoker.builder().build();

    @AfterEach
    void closeInvoker() {
        invoker.close();
    }

    @Test
    void invoke_sendsHttp11PostWithKeyHeadersAndJsonBody() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker.invoke(job(receiver.url()), context(1234567890123L, 3), TIMEOUT));

            RecordingHttpServer.Received request = receiver.received().get(0);
            assertEquals("POST", request.method());
            assertEquals("HTTP/1.1", request.protocol());
            assertEquals("/hook", request.path());
            assertEquals("application/json", request.headers().getFirst("Content-Type"));
            assertEquals("tickwheel", request.headers().getFirst("User-Agent"));
            assertEquals("1234567890123-3", request.headers().getFirst("Idempotency-Key"));
            assertEquals("1234567890123", request.headers().getFirst("Tickwheel-Instance-Id"));
            assertEquals("7", request.headers().getFirst("Tickwheel-Job-Id"));
            assertEquals("3", request.headers().getFirst("Tickwheel-Attempt"));
            assertEquals("3", request.headers().getFirst("Tickwheel-Node"));
            assertEquals("11", request.headers().getFirst("Tickwheel-Epoch"));
            assertNull(request.headers().getFirst("Upgrade"), "no protocol upgrade: " + request.headers().keySet());
            assertNull(request.headers().getFirst("HTTP2-Settings"));
            assertNull(request.headers().getFirst("Expect"));

            JsonNode body = new ObjectMapper().readTree(request.body());
            assertEquals("1234567890123", body.get("instanceId").asText());
            assertEquals("7", body.get("jobId").asText());
            assertEquals("nightly report", body.get("jobName").asText());
            assertEquals("eu", body.get("params").get("region").asText(), "params embedded as JSON");
            assertEquals("2030-01-02T03:04:05Z", body.get("expectedTriggerTime").asText());
            assertEquals(3, body.get("attempt").asInt());
            assertEquals("1234567890123-3", body.get("idempotencyKey").asText());
        }
    }

    @Test
    void body_paramsThatAreNotOneJsonValue_travelAsAString() throws Exception {
        ObjectMapper json = new ObjectMapper();
        for (String params : new String[] {"plain text", "{\"a\":1} trailing", "{\"unclosed\": ", ""}) {
            JobContext context = new JobContext(1, 7, "n\"ame", params, Instant.parse("2030-01-02T03:04:05Z"), 1, 0, 1,
                    null);

            JsonNode body = json.readTree(invoker.body(context, context.idempotencyKey()));

            assertEquals(params, body.get("params").asText(), body.toString());
            assertEquals("n\"ame", body.get("jobName").asText(), "strings are escaped");
        }
        JobContext nested = new JobContext(1, 7, "x", "[1, {\"b\": [true, null]}]", Instant.EPOCH, 1, 0, 1, null);
        assertEquals("[1,{\"b\":[true,null]}]",
                json.readTree(invoker.body(nested, "1-1")).get("params").toString(), "any JSON value, embedded");
    }

    @Test
    void invoke_rawRequestLine_isHttp11WithoutUpgrade() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(ScriptedHttpReceiver::ok)) {
            success(invoker.invoke(job(receiver.url()), context(5, 1), TIMEOUT));

            ScriptedHttpReceiver.Request request = receiver.requests().get(0);
            assertEquals("POST /hook HTTP/1.1", request.requestLine());
            assertFalse(request.headers().containsKey("upgrade"), request.headers().toString());
            assertFalse(request.headers().containsKey("http2-settings"), request.headers().toString());
        }
    }

    @Test
    void invoke_any2xx_succeeds() throws Exception {
        for (int status : new int[] {200, 201, 202, 204, 299}) {
            try (RecordingHttpServer receiver = new RecordingHttpServer(status, status == 204 ? null : "fine")) {
                success(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
            }
        }
    }

    @Test
    void invoke_non2xx_failsNamingUrlStatusAndBodyStart() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(503, "service busy\r\n  retry later")) {
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals("webhook " + receiver.url() + " answered HTTP 503: service busy retry later",
                    failure.getMessage());
            assertEquals(WebhookException.Reason.HTTP_STATUS, failure.reason());
            assertEquals(503, failure.status());
        }
        try (RecordingHttpServer receiver = new RecordingHttpServer(404, null)) {
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals("webhook " + receiver.url() + " answered HTTP 404", failure.getMessage());
        }
    }

    @Test
    void invoke_hugeErrorBody_keepsItsStartAndDrainsTheRest() throws Exception {
        byte[] body = new byte[10 * 1024 * 1024];
        Arrays.fill(body, (byte) 'x');
        byte[] prefix = "overloaded: ".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(prefix, 0, body, 0, prefix.length);
        try (RecordingHttpServer receiver = new RecordingHttpServer(500, body, Duration.ZERO)) {
            WebhookException failure = failure(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals(CappedResponseConsumer.KEPT_BODY_BYTES, failure.responseBody().length(),
                    "only the first 8 KiB are kept");
            assertTrue(failure.responseBody().startsWith("overloaded: xxx"));
            String expected = "webhook " + receiver.url() + " answered HTTP 500: overloaded: "
                    + "x".repeat(200 - "overloaded: ".length()) + "…";
            assertEquals(expected, failure.getMessage());

            // The whole 10 MB was read (drained, not cut off), so the connection went back to the pool.
            failure(invoker.invoke(job(receiver.url()), context(2, 1), TIMEOUT));
            assertEquals(2, receiver.bodiesWritten());
            assertEquals(receiver.received().get(0).clientPort(), receiver.received().get(1).clientPort(),
                    "second call on the same connection");
        }
    }

    @Test
    void invoke_hugeSuccessBody_completes() throws Exception {
        byte[] body = new byte[10 * 1024 * 1024];
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, body, Duration.ZERO)) {
            success(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT));
        }
    }

    @Test
    void invoke_answerIsOneJsonValue_completesWithItAsTheOutput() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "  {\"orders\": [1, 2], \"total\": 3}\n")) {
            assertEquals("{\"orders\": [1, 2], \"total\": 3}",
                    invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT).get(), "stripped, otherwise as sent");
        }
    }

    @Test
    void invoke_answerThatIsNoOutput_succeedsWithoutOne() throws Exception {
        String[] notOutputs = {"", "ok", "{\"a\": 1} {\"b\": 2}", "{\"unclosed\": ",
            "\"" + "x".repeat(dev.tickwheel.server.instance.Instance.MAX_OUTPUT_LENGTH) + "\""};
        for (String body : notOutputs) {
            try (RecordingHttpServer receiver = new RecordingHttpServer(200, body)) {
                assertNull(invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT).get(),
                        "no output from a body of " + body.length() + " characters: " + body.substring(0,
                                Math.min(20, body.length())));
            }
        }
    }

    @Test
    void invoke_answerOfExactlyTheLimit_isKeptWhole() throws Exception {
        String atLimit = "\"" + "é".repeat((dev.tickwheel.server.instance.Instance.MAX_OUTPUT_LENGTH - 2) / 2) + "\"";
        assertEquals(dev.tickwheel.server.instance.Instance.MAX_OUTPUT_LENGTH,
                atLimit.getBytes(StandardCharsets.UTF_8).length, "the limit counts bytes on the wire");
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, atLimit)) {
            assertEquals(atLimit, invoker.invoke(job(receiver.url()), context(1, 1), TIMEOUT).get());
        }
    }

    @Test
    void invoke_connectionRefused_failsPromptlyNamingUrlAndCause() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + closedPort + "/hook";
        long startNanos = System.nanoTime();
        CompletableFuture<String> call = invoker.invoke(job(url), context(1, 1), TIMEOUT);
        long elapsedMs = completionMs(call, startNanos);

        WebhookException failure = failure(call);
        assertEquals("webhook " + url + " could not connect: connection refused", failure.getMessage());
        assertEquals(WebhookException.Reason.CONNECT, failure.reason());
        assertTrue(elapsedMs < 2_000, "failed after " + elapsedMs + " ms, not at once");
    }

    @Test
    void close_failsCallsInFlightAndClosesTheirConnections() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver((request, out) -> After.STALL)) {
            WebhookInvoker own = WebhookInvoker.builder().build();
            CompletableFuture<String> call = own.invoke(job(receiver.url()), context(1, 1), Duration.ofSeconds(30));
            Await.until("request arrived", Duration.ofSeconds(5), () -> receiver.requests().size() == 1);

            own.close();

            WebhookException failure = failure(call);
            assertEquals(WebhookException.Reason.CLOSED, failure.reason());
            assertEquals("webhook " + receiver.url() + " abandoned: the webhook client was closed",
                    failure.getMessage());
            assertTrue(receiver.awaitClientClosed(1, Duration.ofSeconds(5)), "connection closed");
            WebhookException later = failure(own.invoke(job(receiver.url()), context(2, 1), TIMEOUT));
            assertEquals(WebhookException.Reason.CLOSED, later.reason());
        }
    }

    @Test
    void cancel_endsTheCallAtOnce_andItsConnectionIsNeverReused() throws Exception {
        try (ScriptedHttpReceiver receiver = new ScriptedHttpReceiver((request, out) -> After.STALL)) {
            CompletableFuture<String> call = invoker.invoke(job(receiver.url()), context(1, 1), Duration.ofSeconds(30));
            Await.until("request arrived", Duration.ofSeconds(5), () -> receiver.requests().size() == 1);

            assertTrue(call.cancel(true));

            assertThrows(CancellationException.class, call::join);
            // Usually the client closes the connection at once; when the cancel races the request's last bytes going
            // out, Apache keeps the exchange until its backstop timeout. Either way the connection is not reused:
            CompletableFuture<String> next = invoker.invoke(job(receiver.url()), context(2, 1), Duration.ofMillis(300));
            assertThrows(java.util.concurrent.CompletionException.class, next::join);
            assertEquals(2, receiver.connections(), "the second call had a connection of its own");
        }
    }

    @Test
    void invoke_nonPositiveTimeout_throwsNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> invoker.invoke(job("http://127.0.0.1:9/x"), context(1, 1), Duration.ZERO));
        assertTrue(e.getMessage().contains("timeout") && e.getMessage().contains("PT0S"), e.getMessage());
    }

    @Test
    void builder_rejectsBadSettingsNamingFieldAndValue() {
        assertMessage("maxConnections must be at least 1: 0",
                () -> WebhookInvoker.builder().maxConnections(0));
        assertMessage("maxConnectionsPerHost must be at least 1: -3",
                () -> WebhookInvoker.builder().maxConnectionsPerHost(-3));
        assertMessage("idleEviction must be between 1 ms and 3600000 ms: 0 ms",
                () -> WebhookInvoker.builder().idleEviction(Duration.ZERO));
        assertMessage("connectTimeout must be between 1 ms and 3600000 ms: 7200000 ms",
                () -> WebhookInvoker.builder().connectTimeout(Duration.ofHours(2)));
        assertMessage("ioThreads must be at least 1: 0", () -> WebhookInvoker.builder().ioThreads(0));
        assertMessage("maxConnectionsPerHost (20) must not exceed maxConnections (10)",
                () -> WebhookInvoker.builder().maxConnections(10).maxConnectionsPerHost(20).build());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable action) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, action).getMessage());
    }
}
