package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reruns over HTTP against a whole server (H2): one instance (201, then 200 for the same call again, 409 while it is
 * not finished, 404 unknown), the instance's {@code rerunOf}, and the filtered bulk rerun with its dry run and its
 * 400s.
 */
class RerunApiTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static String jobId;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        // Nothing listens on port 9: every call fails at once, and one attempt makes it FAILED.
        jobId = api.post("/api/jobs", """
                {"name": "unreachable", "schedule": {"type": "API"}, "retry": {"maxAttempts": 1},
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/none"}}""").json().get("id").asText();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static String failedRun(String params) {
        String id = api.post("/api/jobs/" + jobId + "/run", "{\"params\": " + params + "}").json().get("instanceId")
                .asText();
        Await.until(() -> "instance " + id + " FAILED", WAIT,
                () -> api.get("/api/instances/" + id).json().get("status").asText().equals("FAILED"));
        return id;
    }

    @Test
    void rerun_failedInstance_201Linked_sameCallAgain200_waiting409_unknown404() {
        String original = failedRun("{\"order\": 9}");

        ApiClient.Reply rerun = api.post("/api/instances/" + original + "/rerun", "");
        assertEquals(201, rerun.status(), rerun.toString());
        assertTrue(rerun.json().get("created").asBoolean());
        assertEquals("rerun-of-" + original, rerun.json().get("key").asText());
        String rerunId = rerun.json().get("instanceId").asText();
        JsonNode instance = api.get("/api/instances/" + rerunId).json();
        assertEquals(original, instance.get("rerunOf").asText(), instance.toString());
        assertEquals(9, instance.at("/params/order").asInt(), "the original's params");
        assertFalse(api.get("/api/instances/" + original).json().has("rerunOf"), "absent on other instances");

        ApiClient.Reply again = api.post("/api/instances/" + original + "/rerun", "{}");
        assertEquals(200, again.status(), again.toString());
        assertEquals(rerunId, again.json().get("instanceId").asText());
        assertFalse(again.json().get("created").asBoolean());
        ApiClient.Reply keyed = api.post("/api/instances/" + original + "/rerun", "{\"key\": \"by hand\"}");
        assertEquals(201, keyed.status(), keyed.toString());

        String waiting = api.post("/api/jobs/" + jobId + "/run", "{\"delayMs\": 600000}").json().get("instanceId")
                .asText();
        ApiClient.Reply notFinished = api.post("/api/instances/" + waiting + "/rerun", "");
        assertEquals(409, notFinished.status(), notFinished.toString());
        assertEquals("not_finished", notFinished.error());
        assertEquals(404, api.post("/api/instances/123456789/rerun", "").status());
        ApiClient.Reply badKey = api.post("/api/instances/" + original + "/rerun", "{\"key\": \"\"}");
        assertEquals(400, badKey.status(), badKey.toString());
        assertEquals("key", badKey.json().get("field").asText());
    }

    @Test
    void rerunAll_filteredByJobAndStatus_dryRunCounts_thenReruns_thenNothingLeft() {
        String job = api.post("/api/jobs", """
                {"name": "bulk", "schedule": {"type": "API"}, "retry": {"maxAttempts": 1},
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/none"}}""").json().get("id").asText();
        ApiClient.Reply batch = api.post("/api/jobs/" + job + "/runs", "{\"runs\": [{}, {}, {}, {}, {}]}");
        assertEquals(200, batch.status(), batch.toString());
        Await.until(() -> "five failed", WAIT, () -> api.get("/api/instances?jobId=" + job + "&status=FAILED").json()
                .get("items").size() == 5);
        String filter = "\"jobId\": \"" + job + "\", \"status\": \"FAILED\"";

        ApiClient.Reply dry = api.post("/api/instances/rerun", "{" + filter + ", \"dryRun\": true}");
        assertEquals(200, dry.status(), dry.toString());
        assertEquals("{\"matched\":5,\"created\":0,\"more\":false}", dry.json().toString());
        ApiClient.Reply done = api.post("/api/instances/rerun", "{" + filter + "}");
        assertEquals("{\"matched\":5,\"created\":5,\"more\":false}", done.json().toString());
        ApiClient.Reply repeated = api.post("/api/instances/rerun", "{" + filter + "}");
        assertEquals(200, repeated.status(), repeated.toString());
        // The reruns fail too (same target) and a repeated call reruns those that already have, once each; what it
        // never does is rerun an original a second time.
        Map<String, Integer> rerunsOf = new HashMap<>();
        for (JsonNode instance : api.get("/api/instances?jobId=" + job).json().get("items")) {
            if (instance.has("rerunOf")) {
                rerunsOf.merge(instance.get("rerunOf").asText(), 1, Integer::sum);
            }
        }
        assertEquals(5 + repeated.json().get("created").asInt(), rerunsOf.values().stream().mapToInt(i -> i).sum());
        assertTrue(rerunsOf.values().stream().allMatch(n -> n == 1), "every instance rerun once: " + rerunsOf);
    }

    @Test
    void rerunAll_badFilter_400NamingTheField() {
        assertBad("{\"status\": \"WAITING\"}", "status");
        assertBad("{\"status\": \"done\"}", "status");
        assertBad("{\"from\": \"2026-01-02T00:00:00Z\", \"to\": \"2026-01-01T00:00:00Z\"}", "from");
        assertBad("{\"jobId\": -3}", "jobId");
        assertBad("{\"everything\": true}", "everything");
    }

    private static void assertBad(String body, String field) {
        ApiClient.Reply reply = api.post("/api/instances/rerun", body);
        assertEquals(400, reply.status(), reply.toString());
        assertEquals(field, reply.json().get("field").asText(), reply.toString());
    }
}
