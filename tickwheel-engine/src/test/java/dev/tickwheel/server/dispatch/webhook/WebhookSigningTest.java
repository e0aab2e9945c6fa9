package dev.tickwheel.server.dispatch.webhook;

import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.signedJob;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.success;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.After;
import dev.tickwheel.server.dispatch.webhook.ScriptedHttpReceiver.Request;
import dev.tickwheel.server.store.jdbc.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Signed webhook calls against real receivers on 127.0.0.1: the headers verify over the body as received, a call made
 * again is signed afresh under the same Idempotency-Key, and unsigned jobs send no signature.
 */
class WebhookSigningTest {

    private static final String SECRET = "whsec_0123456789abcdef";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Test
    void invoke_signedJob_timestampFromTheClockAndSignatureOverTheReceivedBody() throws Exception {
        MutableClock clock = new MutableClock(Instant.ofEpochSecond(1_700_000_000L));
        try (WebhookInvoker invoker = WebhookInvoker.builder().clock(clock).build();
             RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker.invoke(signedJob(receiver.url(), SECRET), context(42, 1), TIMEOUT));

            RecordingHttpServer.Received request = receiver.received().get(0);
            assertEquals("1700000000", request.headers().getFirst("Tickwheel-Timestamp"));
            assertEquals(SignatureOracle.v1(SECRET, "1700000000", request.bodyBytes()),
                    request.headers().getFirst("Tickwheel-Signature"));
            assertEquals("42-1", request.headers().getFirst("Idempotency-Key"));
        }
    }

    @Test
    void invoke_sameAttemptAgainLater_sameKeyFreshTimestampValidSignature() throws Exception {
        // A call cut by a restart is made again as the same attempt: same key, signed at the time it goes out.
        MutableClock clock = new MutableClock(Instant.ofEpochSecond(1_700_000_000L));
        try (WebhookInvoker invoker = WebhookInvoker.builder().clock(clock).build();
             RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker.invoke(signedJob(receiver.url(), SECRET), context(42, 2), TIMEOUT));
            clock.advance(Duration.ofSeconds(90));
            success(invoker.invoke(signedJob(receiver.url(), SECRET), context(42, 2), TIMEOUT));

            List<RecordingHttpServer.Received> requests = receiver.received();
            assertEquals(2, requests.size());
            RecordingHttpServer.Received again = requests.get(1);
            assertEquals("42-2", requests.get(0).headers().getFirst("Idempotency-Key"));
            assertEquals("42-2", again.headers().getFirst("Idempotency-Key"));
            assertEquals("1700000090", again.headers().getFirst("Tickwheel-Timestamp"));
            assertEquals(SignatureOracle.v1(SECRET, "1700000090", again.bodyBytes()),
                    again.headers().getFirst("Tickwheel-Signature"));
        }
    }

    @Test
    void invoke_staleConnectionRetry_isSignedAgainWithAFreshTimestamp() throws Exception {
        // Each read of this clock is one second later, so every request written gets its own timestamp.
        Clock stepping = new SteppingClock(1_700_000_000L);
        ScriptedHttpReceiver.Script staleSecond = (request, out) -> request.connection() == 1
                && request.indexOnConnection() > 1 ? After.CLOSE : ScriptedHttpReceiver.ok(request, out);
        try (WebhookInvoker invoker = WebhookInvoker.builder().clock(stepping).build();
             ScriptedHttpReceiver receiver = new ScriptedHttpReceiver(staleSecond)) {
            success(invoker.invoke(signedJob(receiver.url(), SECRET), context(1, 1), TIMEOUT));
            success(invoker.invoke(signedJob(receiver.url(), SECRET), context(2, 1), TIMEOUT));

            List<Request> requests = receiver.requests();
            assertEquals(3, requests.size(), requests.toString());
            Request dropped = requests.get(1);
            Request retry = requests.get(2);
            assertEquals("2-1", retry.header("Idempotency-Key"));
            assertTrue(Long.parseLong(retry.header("Tickwheel-Timestamp"))
                    > Long.parseLong(dropped.header("Tickwheel-Timestamp")), requests.toString());
            for (Request request : requests) {
                assertEquals(SignatureOracle.v1(SECRET, request.header("Tickwheel-Timestamp"),
                        request.body().getBytes(StandardCharsets.UTF_8)), request.header("Tickwheel-Signature"));
            }
        }
    }

    @Test
    void invoke_unsignedJob_noSignatureHeaders() throws Exception {
        try (WebhookInvoker invoker = WebhookInvoker.builder().build();
             RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker.invoke(job(receiver.url()), context(42, 1), TIMEOUT));

            RecordingHttpServer.Received request = receiver.received().get(0);
            assertNull(request.headers().getFirst("Tickwheel-Signature"));
            assertNull(request.headers().getFirst("Tickwheel-Timestamp"));
            assertEquals("42-1", request.headers().getFirst("Idempotency-Key"));
        }
    }

    /** A clock one second later at every read. Thread-safe. */
    private static final class SteppingClock extends Clock {
        private final AtomicLong seconds;

        SteppingClock(long startSeconds) {
            this.seconds = new AtomicLong(startSeconds);
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochSecond(seconds.getAndIncrement());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }
}
