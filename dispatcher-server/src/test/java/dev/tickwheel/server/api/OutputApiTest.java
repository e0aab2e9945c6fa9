package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outputs over HTTP against a whole server (H2) and a real receiver: a webhook's 2xx JSON body is the instance's
 * {@code output}, shown as JSON; a body that is not one JSON value, or an error's body, is none.
 */
class OutputApiTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver receiver;
    static String jobId;

    @BeforeAll
    static void start() {
        receiver = new WebhookReceiver();
        // The answer depends on the run's params: {"answer": "json" | "text" | "error"}.
        receiver.answerWith(call -> switch (call.at("/params/answer").asText()) {
            case "json" -> new WebhookReceiver.Answer(200, "{\"charged\": " + call.at("/params/amount").asInt()
                    + ", \"instance\": \"" + call.get("instanceId").asText() + "\"}");
            case "text" -> new WebhookReceiver.Answer(200, "charged, thanks");
            default -> new WebhookReceiver.Answer(500, "{\"error\": \"card declined\"}");
        });
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        jobId = api.post("/api/jobs", """
                {"name": "charge", "schedule": {"type": "API"}, "retry": {"maxAttempts": 1},
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(receiver.url())).json().get("id").asText();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        receiver.close();
    }

    private static JsonNode finished(String params) {
        String id = api.post("/api/jobs/" + jobId + "/run", "{\"params\": " + params + "}").json().get("instanceId")
                .asText();
        Await.until(() -> "instance " + id + " finished", WAIT, () -> !api.get("/api/instances/" + id).json()
                .get("status").asText().matches("WAITING|DISPATCHING"));
        return api.get("/api/instances/" + id).json();
    }

    @Test
    void webhookAnsweringJson_itIsTheOutput_asJsonInTheInstanceAndItsPage() {
        JsonNode instance = finished("{\"answer\": \"json\", \"amount\": 42}");

        assertEquals("SUCCEEDED", instance.get("status").asText());
        assertEquals(42, instance.at("/output/charged").asInt(), instance.toString());
        assertEquals(instance.get("id").asText(), instance.at("/output/instance").asText());
        JsonNode inPage = api.get("/api/instances?jobId=" + jobId + "&status=SUCCEEDED").json().get("items");
        boolean listed = false;
        for (JsonNode item : inPage) {
            if (item.get("id").equals(instance.get("id"))) {
                assertEquals(instance.get("output"), item.get("output"));
                listed = true;
            }
        }
        assertEquals(true, listed, inPage.toString());
    }

    @Test
    void webhookAnsweringText_orAnError_hasNoOutput() {
        JsonNode text = finished("{\"answer\": \"text\"}");
        assertEquals("SUCCEEDED", text.get("status").asText());
        assertFalse(text.has("output"), text.toString());

        JsonNode failed = finished("{\"answer\": \"error\"}");
        assertEquals("FAILED", failed.get("status").asText());
        assertFalse(failed.has("output"), "an error's body is in the error, not the output: " + failed);
        assertEquals(true, failed.get("error").asText().contains("card declined"), failed.toString());
    }
}
