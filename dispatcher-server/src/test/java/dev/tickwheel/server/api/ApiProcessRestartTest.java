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
 * deliver every instance: all end SUCCEEDED at their first attempt (a crash consumes none), and a call the kill cut
 * is delivered again with the same Idempotency-Key.
 */
class ApiProcessRestartTest {

    private static final int INSTANCES = 300;

    @TempDir
    Path dir;

    @Test
    void sigkillWhileFiring_restartOnSameDataDeliversEveryInstance_repeatsWithTheSameKey() throws Exception {
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
                int repeated = 0;
                for (JsonNode instance : instances) {
                    String id = instance.get("id").asText();
                    ids.add(id);
                    assertEquals("SUCCEEDED", instance.get("status").asText(), "status of " + instance);
                    assertEquals(1, instance.get("attempt").asInt(), "a crash consumes no attempt: " + instance);
                    List<String> keys = webhook.keysOf(id);
                    assertTrue(!keys.isEmpty(), "instance " + id + " was never delivered");
                    assertEquals(Set.of(id + "-1"), new HashSet<>(keys), "keys of " + id);
                    repeated += keys.size() - 1;
                }
                assertEquals(new HashSet<>(created), ids);
                assertTrue(ids.containsAll(webhook.deliveredIds()), "only created instances were delivered");
                assertTrue(repeated <= dev.tickwheel.server.dispatch.InstanceDispatcher.DEFAULT_MAX_CALLS_PER_HOST,
                        "only calls in flight at the kill may be repeated: " + repeated);
                second.terminate();
            }
        }
    }

    private static int count(ApiClient api, String jobId, String status) {
        return api.get("/api/instances?limit=1000&jobId=" + jobId + "&status=" + status).json().get("items").size();
    }
}
