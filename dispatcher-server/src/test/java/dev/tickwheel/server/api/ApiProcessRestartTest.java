package dev.tickwheel.server.api;

import dev.tickwheel.server.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server as a separate process, driven only through its HTTP API: 300 instances are created with delays over the
 * next few seconds, the process is killed with SIGKILL while they fire, and a new process on the same H2 files must
 * deliver every pending instance exactly once. An instance the kill caught inside the webhook call is FAILED (the job
 * allows one attempt) with the documented reason and was delivered at most once.
 */
class ApiProcessRestartTest {

    private static final int INSTANCES = 300;

    @TempDir
    Path dir;

    @Test
    void sigkillWhileFiring_restartOnSameDataDeliversEveryPendingInstanceExactlyOnce() throws Exception {
        String[] args = {"--port", "0", "--db-url", "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()};
        List<String> created = new ArrayList<>();
        String jobId;
        int deliveredBeforeKill;
        try (WebhookReceiver webhook = new WebhookReceiver()) {
            try (ServerProcess first = ServerProcess.start(args)) {
                ApiClient api = new ApiClient(first.awaitBaseUrl(Duration.ofSeconds(60)));
                ApiClient.Reply job = api.post("/api/jobs", """
                        {"name": "restart", "schedule": {"type": "API"},
                         "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}"""
                        .formatted(webhook.url()));
                assertEquals(201, job.status(), job.toString());
                jobId = job.json().get("id").asText();
                for (int i = 0; i < INSTANCES; i++) {
                    ApiClient.Reply run = api.post("/api/jobs/" + jobId + "/run",
                            "{\"delayMs\": " + (1_500 + i * 15) + "}");
                    assertEquals(201, run.status(), run.toString());
                    created.add(run.json().get("instanceId").asText());
                }
                Await.until("some deliveries before the kill", Duration.ofSeconds(30), () -> webhook.arrived() >= 50);
                first.kill();
            }
            deliveredBeforeKill = webhook.arrived();
            assertTrue(deliveredBeforeKill < INSTANCES, "the kill came too late to test anything: "
                    + deliveredBeforeKill);

            try (ServerProcess second = ServerProcess.start(args)) {
                ApiClient api = new ApiClient(second.awaitBaseUrl(Duration.ofSeconds(60)));
                Await.until(() -> "no WAITING or DISPATCHING instances; last lines " + second.tail(),
                        Duration.ofSeconds(60), () -> count(api, jobId, "WAITING") == 0
                                && count(api, jobId, "DISPATCHING") == 0);
                List<JsonNode> instances = new ArrayList<>();
                api.get("/api/instances?limit=1000&jobId=" + jobId).json().get("items").forEach(instances::add);
                assertEquals(INSTANCES, instances.size());
                Set<String> ids = new HashSet<>();
                int interrupted = 0;
                for (JsonNode instance : instances) {
                    String id = instance.get("id").asText();
                    ids.add(id);
                    int deliveries = webhook.deliveriesOf(id);
                    if (instance.get("status").asText().equals("SUCCEEDED")) {
                        assertEquals(1, deliveries, "deliveries of " + id);
                    } else {
                        assertEquals("FAILED", instance.get("status").asText(), "status of " + instance);
                        assertTrue(instance.get("error").asText().startsWith("server stopped during dispatch"),
                                instance.toString());
                        assertTrue(deliveries <= 1, "deliveries of interrupted " + id + ": " + deliveries);
                        interrupted++;
                    }
                }
                assertEquals(new HashSet<>(created), ids);
                assertTrue(ids.containsAll(webhook.deliveredIds()), "only created instances were delivered");
                assertTrue(interrupted <= 16, "only calls in flight at the kill can be interrupted: " + interrupted);
                second.terminate();
            }
        }
    }

    private static int count(ApiClient api, String jobId, String status) {
        return api.get("/api/instances?limit=1000&jobId=" + jobId + "&status=" + status).json().get("items").size();
    }
}
