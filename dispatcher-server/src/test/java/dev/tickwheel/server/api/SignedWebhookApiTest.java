package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import dev.tickwheel.server.dispatch.webhook.SignatureOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhook signing end to end: a job created through the API with a signing secret is delivered with
 * {@code Tickwheel-Timestamp} and a {@code Tickwheel-Signature} that verifies over the body the receiver got; a job
 * without one is delivered with neither header.
 */
class SignedWebhookApiTest {

    private static final String SECRET = "whsec_0123456789abcdef";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver receiver;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        receiver = new WebhookReceiver();
    }

    @AfterAll
    static void stop() {
        if (receiver != null) {
            receiver.close();
        }
        if (app != null) {
            app.close();
        }
    }

    private static String runOnce(String operations) {
        ApiClient.Reply created = api.post("/api/jobs", """
                {"name": "signed", "schedule": {"type": "API"}, "params": {"report": "daily", "note": "café"},
                 "target": {"type": "WEBHOOK", "url": "%s"}%s}
                """.formatted(receiver.url(), operations));
        assertEquals(201, created.status(), created.toString());
        String instanceId = api.post("/api/jobs/" + created.json().get("id").asText() + "/run", "{}").json()
                .get("instanceId").asText();
        Await.until("instance " + instanceId + " delivered", Duration.ofSeconds(10),
                () -> receiver.deliveriesOf(instanceId) == 1);
        return instanceId;
    }

    @Test
    void signedJob_deliveryCarriesASignatureThatVerifiesOverTheReceivedBody() throws Exception {
        long before = Instant.now().getEpochSecond();
        String instanceId = runOnce(", \"signingSecret\": \"" + SECRET + "\"");
        long after = Instant.now().getEpochSecond();

        List<WebhookReceiver.Delivery> deliveries = receiver.deliveries(instanceId);
        assertEquals(1, deliveries.size());
        WebhookReceiver.Delivery delivery = deliveries.get(0);
        String timestamp = delivery.header("Tickwheel-Timestamp");
        long seconds = Long.parseLong(timestamp);
        assertTrue(seconds >= before && seconds <= after, "timestamp " + seconds + " in " + before + ".." + after);
        assertEquals(SignatureOracle.v1(SECRET, timestamp, delivery.body()), delivery.header("Tickwheel-Signature"));
        assertEquals(instanceId + "-1", delivery.header("Idempotency-Key"));
    }

    @Test
    void unsignedJob_deliveryHasNoSignatureHeaders() {
        String instanceId = runOnce("");

        WebhookReceiver.Delivery delivery = receiver.deliveries(instanceId).get(0);
        assertNull(delivery.header("Tickwheel-Signature"));
        assertNull(delivery.header("Tickwheel-Timestamp"));
        assertEquals(instanceId + "-1", delivery.header("Idempotency-Key"));
    }
}
