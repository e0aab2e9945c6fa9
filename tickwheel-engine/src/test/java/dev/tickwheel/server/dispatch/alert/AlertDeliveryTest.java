package dev.tickwheel.server.dispatch.alert;

import static dev.tickwheel.server.dispatch.alert.AlertFixtures.JOB_SECRET;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.SERVER_SECRET;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.T0;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.instance;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.dispatch.webhook.SignatureOracle;
import dev.tickwheel.server.dispatch.webhook.TransportSettings;
import dev.tickwheel.server.dispatch.webhook.WebhookSigner;
import dev.tickwheel.server.dispatch.webhook.WebhookTransport;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.jdbc.MutableClock;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Alerts over real HTTP, on the webhook transport instance calls use, to a receiver on 127.0.0.1: the JSON body, the
 * Idempotency-Key, the signature (verified over the bytes received), and a retry after a 500. The clock and the
 * alerter's worker are the test's, so the retry's one-second pause passes when the test says.
 */
class AlertDeliveryTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final MutableClock clock = new MutableClock(T0);
    private final AlertFixtures.ManualWorker worker = new AlertFixtures.ManualWorker();
    private final AlertFixtures.Outcomes outcomes = new AlertFixtures.Outcomes();
    private final WebhookTransport transport = new WebhookTransport(
            new TransportSettings(4, 4, Duration.ofSeconds(2), Duration.ofSeconds(5), 1), new WebhookSigner(clock),
            "webhook", OutboundGuard.OFF);

    @AfterEach
    void closeTransport() {
        transport.close();
    }

    private Alerter alerter(AlertSettings settings) {
        return new Alerter(settings, 3, clock, transport::postJson, Duration.ofSeconds(5), outcomes, worker,
                Alerter.DEFAULT_QUEUE_CAPACITY, Alerter.RETRY_BACKOFFS);
    }

    private void awaitOutcome(AlertKind kind, AlertOutcome outcome, int count) {
        Await.until(() -> kind + " " + outcome + " x" + count + ": " + outcomes.all(), WAIT,
                () -> outcomes.of(kind, outcome) == count);
    }

    @Test
    void instanceFailed_signedJob_bodyKeyAndSignatureAsReceived() throws Exception {
        try (AlertReceiver receiver = new AlertReceiver()) {
            Alerter alerter = alerter(AlertSettings.DEFAULTS);
            Job job = job(7, receiver.url(), JOB_SECRET, MisfirePolicy.SKIP);

            alerter.instanceEnded(job, instance(1234567890123L, job, 3, T0.minusSeconds(5)), InstanceStatus.FAILED,
                    "webhook http://127.0.0.1:9/hook answered HTTP 503: busy");
            worker.runNow();
            awaitOutcome(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT, 1);

            AlertReceiver.Received request = receiver.received().get(0);
            assertEquals("application/json", request.header("Content-Type"));
            assertEquals("alert:INSTANCE_FAILED:1234567890123", request.header("Idempotency-Key"));
            assertEquals(Long.toString(T0.getEpochSecond()), request.header("Tickwheel-Timestamp"));
            assertEquals(SignatureOracle.v1(JOB_SECRET, request.header("Tickwheel-Timestamp"), request.body()),
                    request.header("Tickwheel-Signature"));
            JsonNode body = JSON.readTree(request.body());
            assertEquals(List.of("kind", "jobId", "jobName", "instanceId", "status", "attempt", "error",
                    "expectedTriggerTime", "occurredAt", "failuresInWindow", "skippedTriggers", "suppressed", "node",
                    "idempotencyKey"), fieldNames(body));
            assertEquals("INSTANCE_FAILED", body.get("kind").asText());
            assertEquals("7", body.get("jobId").asText());
            assertEquals("job 7", body.get("jobName").asText());
            assertEquals("1234567890123", body.get("instanceId").asText());
            assertEquals("FAILED", body.get("status").asText());
            assertEquals(3, body.get("attempt").asInt());
            assertEquals("webhook http://127.0.0.1:9/hook answered HTTP 503: busy", body.get("error").asText());
            assertEquals(T0.minusSeconds(5).toString(), body.get("expectedTriggerTime").asText());
            assertEquals(T0.toString(), body.get("occurredAt").asText());
            assertEquals(3, body.get("node").asInt());
            assertEquals(0, body.get("suppressed").asInt());
        }
    }

    @Test
    void serverUrl_signedWithTheAlertSecret_orNotAtAllWithoutOne() throws Exception {
        try (AlertReceiver signedReceiver = new AlertReceiver();
             AlertReceiver plainReceiver = new AlertReceiver()) {
            Alerter signed = alerter(AlertSettings.DEFAULTS.withUrl(signedReceiver.url()).withSecret(SERVER_SECRET));
            Alerter plain = alerter(AlertSettings.DEFAULTS.withUrl(plainReceiver.url()));
            Job job = job(7, null, JOB_SECRET, MisfirePolicy.SKIP);

            signed.misfiresDropped(job, 4, T0.minusSeconds(3600));
            plain.misfiresDropped(job, 4, T0.minusSeconds(3600));
            worker.runNow();
            awaitOutcome(AlertKind.MISFIRE_SKIPPED, AlertOutcome.SENT, 2);

            AlertReceiver.Received request = signedReceiver.received().get(0);
            assertEquals(SignatureOracle.v1(SERVER_SECRET, request.header("Tickwheel-Timestamp"), request.body()),
                    request.header("Tickwheel-Signature"));
            assertEquals("alert:MISFIRE_SKIPPED:7:" + T0.minusSeconds(3600).toEpochMilli(),
                    request.header("Idempotency-Key"));
            assertEquals(4, JSON.readTree(request.body()).get("skippedTriggers").asInt());
            AlertReceiver.Received unsigned = plainReceiver.received().get(0);
            assertNull(unsigned.header("Tickwheel-Signature"));
            assertNull(unsigned.header("Tickwheel-Timestamp"));
        }
    }

    @Test
    void answered500_retriedAfterOneSecond_sameKeyFreshlySigned_thenSent() throws Exception {
        try (AlertReceiver receiver = new AlertReceiver(500)) {
            Alerter alerter = alerter(AlertSettings.DEFAULTS);
            Job job = job(7, receiver.url(), JOB_SECRET, MisfirePolicy.SKIP);

            alerter.instanceEnded(job, instance(42, job, 1, T0), InstanceStatus.FAILED, "boom");
            worker.runNow();
            Await.until("the retry scheduled", WAIT, () -> worker.scheduledCount() == 1);
            assertEquals(List.of(Duration.ofSeconds(1)), worker.delays());
            assertEquals(0, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT));
            clock.advance(Duration.ofSeconds(1));
            worker.runScheduled();
            awaitOutcome(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT, 1);

            List<AlertReceiver.Received> requests = receiver.received();
            assertEquals(2, requests.size());
            assertEquals(List.of("alert:INSTANCE_FAILED:42", "alert:INSTANCE_FAILED:42"),
                    List.of(requests.get(0).header("Idempotency-Key"), requests.get(1).header("Idempotency-Key")));
            assertEquals(Long.toString(T0.getEpochSecond()), requests.get(0).header("Tickwheel-Timestamp"));
            assertEquals(Long.toString(T0.getEpochSecond() + 1), requests.get(1).header("Tickwheel-Timestamp"));
            for (AlertReceiver.Received request : requests) {
                assertEquals(SignatureOracle.v1(JOB_SECRET, request.header("Tickwheel-Timestamp"), request.body()),
                        request.header("Tickwheel-Signature"));
            }
            assertTrue(java.util.Arrays.equals(requests.get(0).body(), requests.get(1).body()), "the same body");
            assertEquals(0, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.FAILED));
        }
    }

    private static List<String> fieldNames(JsonNode body) {
        List<String> names = new java.util.ArrayList<>();
        body.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
