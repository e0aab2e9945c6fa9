package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduling calls of issue 21 over HTTP, against a real server on a random port with an H2 store: runs with the
 * caller's key (201 then 200, one instance however many concurrent calls), the routes by key, reschedule, batches of
 * runs and of cancels, and their 400s. The store-level guarantees (both databases, the races) are in the run store
 * contract tests; this is what a client sees.
 */
class RunsApiTest {

    private static final long LATER_MS = 600_000;

    @TempDir
    static java.nio.file.Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver webhook;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        webhook = new WebhookReceiver();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (webhook != null) {
            webhook.close();
        }
    }

    private static String job(String name) {
        ApiClient.Reply created = api.post("/api/jobs", """
                {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}}
                """.formatted(name, webhook.url()));
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private static String path(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static void assertError(ApiClient.Reply reply, int status, String code, String field) {
        assertEquals(status, reply.status(), reply.toString());
        assertEquals(code, reply.error(), reply.toString());
        assertEquals(field, reply.json().path("field").asText(null), reply.toString());
    }

    @Test
    void run_sameKeyTwice_201Then200WithTheSameInstanceAndTheFirstParams() {
        String job = job("keyed");

        ApiClient.Reply first = api.post("/api/jobs/" + job + "/run",
                "{\"key\": \"order-42\", \"delayMs\": " + LATER_MS + ", \"params\": {\"n\": 1}}");
        ApiClient.Reply again = api.post("/api/jobs/" + job + "/run",
                "{\"key\": \"order-42\", \"delayMs\": 5, \"params\": {\"n\": 2}}");

        assertEquals(201, first.status(), first.toString());
        assertTrue(first.json().get("created").asBoolean());
        assertEquals("order-42", first.json().get("key").asText());
        assertEquals("WAITING", first.json().get("status").asText());
        assertEquals(200, again.status(), again.toString());
        assertFalse(again.json().get("created").asBoolean());
        assertEquals(first.json().get("instanceId"), again.json().get("instanceId"));
        assertEquals(first.json().get("expectedTriggerTime"), again.json().get("expectedTriggerTime"),
                "the key is the identity: the second call's time is ignored");
        JsonNode stored = api.get("/api/instances/" + first.json().get("instanceId").asText()).json();
        assertEquals("order-42", stored.get("key").asText());
        assertEquals(1, stored.at("/params/n").asInt(), "the second call's params are ignored");
    }

    @Test
    void run_fiftyConcurrentCallsWithOneKey_makeOneInstance() throws Exception {
        String job = job("concurrent");
        ExecutorService pool = Executors.newFixedThreadPool(50);
        try {
            for (int round = 0; round < 5; round++) {
                String body = "{\"key\": \"race-" + round + "\", \"delayMs\": " + LATER_MS + "}";
                CountDownLatch go = new CountDownLatch(1);
                List<ApiClient.Reply> replies = new CopyOnWriteArrayList<>();
                for (int i = 0; i < 50; i++) {
                    pool.execute(() -> {
                        try {
                            go.await();
                            replies.add(api.post("/api/jobs/" + job + "/run", body));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                go.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (replies.size() < 50 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(50, replies.size(), "every call answered");
                assertEquals(1, replies.stream().filter(r -> r.status() == 201).count(), replies.toString());
                assertEquals(49, replies.stream().filter(r -> r.status() == 200).count(), replies.toString());
                assertEquals(1, replies.stream().map(r -> r.json().get("instanceId").asText()).distinct().count());
            }
        } finally {
            pool.shutdownNow();
        }
        JsonNode page = api.get("/api/instances?jobId=" + job + "&limit=100").json();
        assertEquals(5, page.get("items").size(), "one instance per key: " + page);
    }

    @Test
    void runsByKey_getCancelReschedule_answerAsTheIdRoutes() {
        String job = job("by key");
        String key = "user 7/reminder #1";
        String id = api.post("/api/jobs/" + job + "/run", "{\"key\": \"" + key + "\", \"delayMs\": " + LATER_MS + "}")
                .json().get("instanceId").asText();
        String byKey = "/api/jobs/" + job + "/runs/" + path(key);

        ApiClient.Reply got = api.get(byKey);
        assertEquals(200, got.status(), got.toString());
        assertEquals(id, got.json().get("id").asText());
        assertEquals(key, got.json().get("key").asText());
        assertEquals(1, api.get("/api/instances?jobId=" + job + "&key=" + path(key)).json().get("items").size());

        Instant at = Instant.now().plusSeconds(3600);
        ApiClient.Reply moved = api.post(byKey + "/reschedule", "{\"at\": \"" + at + "\", \"params\": {\"v\": 2}}");
        assertEquals(200, moved.status(), moved.toString());
        assertEquals("RESCHEDULED", moved.json().get("outcome").asText());
        assertEquals(Instant.ofEpochMilli(at.toEpochMilli()), Instant.parse(
                moved.json().get("expectedTriggerTime").asText()));
        assertEquals(2, api.get("/api/instances/" + id).json().at("/params/v").asInt());

        ApiClient.Reply cancelled = api.post(byKey + "/cancel", null);
        assertEquals(200, cancelled.status(), cancelled.toString());
        assertEquals("CANCELLED", cancelled.json().get("outcome").asText());
        ApiClient.Reply late = api.post(byKey + "/reschedule", "{\"delayMs\": 1000}");
        assertEquals(409, late.status(), late.toString());
        assertEquals("ALREADY_FINISHED", late.json().get("outcome").asText());
        assertEquals(409, api.post(byKey + "/cancel", null).status());

        assertError(api.get("/api/jobs/" + job + "/runs/nope"), 404, "not_found", null);
        assertError(api.post("/api/jobs/" + job + "/runs/nope/cancel", null), 404, "not_found", null);
        assertError(api.post("/api/jobs/" + job + "/runs/nope/reschedule", "{\"delayMs\": 1}"), 404, "not_found",
                null);
        assertError(api.get("/api/instances?key=x"), 400, "invalid_field", "key");
    }

    @Test
    void reschedule_waitingInstance_firesAtTheNewTimeOnly() {
        String job = job("moved");
        String id = api.post("/api/jobs/" + job + "/run", "{\"delayMs\": " + LATER_MS + "}").json()
                .get("instanceId").asText();

        ApiClient.Reply moved = api.post("/api/instances/" + id + "/reschedule", "{\"delayMs\": 200}");

        assertEquals(200, moved.status(), moved.toString());
        Await.until("the moved instance delivered", Duration.ofSeconds(20),
                () -> "SUCCEEDED".equals(api.get("/api/instances/" + id).json().get("status").asText()));
        assertEquals(1, webhook.deliveriesOf(id), "one call");
        ApiClient.Reply after = api.post("/api/instances/" + id + "/reschedule", "{\"delayMs\": 1000}");
        assertEquals(409, after.status(), after.toString());
        assertEquals("ALREADY_FINISHED", after.json().get("outcome").asText());
        assertError(api.post("/api/instances/" + id + "/reschedule", "{}"), 400, "missing_field", "delayMs");
        assertError(api.post("/api/instances/" + id + "/reschedule",
                "{\"delayMs\": 1, \"at\": \"2030-01-01T00:00:00Z\"}"), 400, "invalid_field", "at");
        assertError(api.post("/api/instances/123456789/reschedule", "{\"delayMs\": 1}"), 404, "not_found", null);
    }

    @Test
    void runs_batchOfAThousand_oneResultPerItemInOrder() {
        String job = job("batch");
        String items = IntStream.range(0, 1000)
                .mapToObj(i -> "{\"key\": \"b-" + i + "\", \"delayMs\": " + LATER_MS + "}")
                .collect(Collectors.joining(", ", "{\"runs\": [", "]}"));

        ApiClient.Reply first = api.post("/api/jobs/" + job + "/runs", items);
        ApiClient.Reply again = api.post("/api/jobs/" + job + "/runs", items);

        assertEquals(200, first.status(), first.toString());
        JsonNode runs = first.json().get("runs");
        assertEquals(1000, runs.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertEquals("b-" + i, runs.get(i).get("key").asText());
            assertTrue(runs.get(i).get("created").asBoolean());
            ids.add(runs.get(i).get("instanceId").asText());
        }
        assertEquals(1000, ids.size());
        JsonNode repeated = again.json().get("runs");
        for (int i = 0; i < 1000; i++) {
            assertFalse(repeated.get(i).get("created").asBoolean(), "a retried batch creates nothing");
            assertEquals(runs.get(i).get("instanceId"), repeated.get(i).get("instanceId"));
        }

        String cancel = ids.stream().limit(999).map(id -> "\"" + id + "\"")
                .collect(Collectors.joining(", ", "{\"ids\": [", ", \"987654321\"]}"));
        ApiClient.Reply cancelled = api.post("/api/instances/cancel", cancel);
        assertEquals(200, cancelled.status(), cancelled.toString());
        JsonNode results = cancelled.json().get("results");
        assertEquals(1000, results.size());
        for (int i = 0; i < 999; i++) {
            assertEquals("CANCELLED", results.get(i).get("outcome").asText());
        }
        assertEquals("NOT_FOUND", results.get(999).get("outcome").asText());
        assertEquals("987654321", results.get(999).get("instanceId").asText());
    }

    @Test
    void runs_badItemAt777_400NamingItAndNothingWritten() {
        String job = job("bad batch");
        String items = IntStream.range(0, 1000)
                .mapToObj(i -> i == 777 ? "{\"key\": \"k-777\", \"delayMs\": -1}" : "{\"key\": \"k-" + i + "\"}")
                .collect(Collectors.joining(", ", "{\"runs\": [", "]}"));

        ApiClient.Reply reply = api.post("/api/jobs/" + job + "/runs", items);

        assertError(reply, 400, "invalid_field", "runs[777].delayMs");
        assertTrue(reply.message().contains("-1"), reply.toString());
        assertEquals(0, api.get("/api/instances?jobId=" + job).json().get("items").size(), "nothing written");
        assertError(api.post("/api/jobs/" + job + "/runs", "{\"runs\": []}"), 400, "invalid_field", "runs");
        String tooMany = IntStream.range(0, 1001).mapToObj(i -> "{}")
                .collect(Collectors.joining(", ", "{\"runs\": [", "]}"));
        assertError(api.post("/api/jobs/" + job + "/runs", tooMany), 400, "invalid_field", "runs");
        assertError(api.post("/api/jobs/" + job + "/runs", "{\"runs\": [{\"key\": \"\"}]}"), 400, "invalid_field",
                "runs[0].key");
        assertError(api.post("/api/jobs/" + job + "/runs", "{\"runs\": [{\"dealyMs\": 5}]}"), 400, "unknown_field",
                "runs[0].dealyMs");
        assertError(api.post("/api/jobs/" + job + "/runs", "{}"), 400, "missing_field", "runs");
        assertError(api.post("/api/jobs/987654321/runs", "{\"runs\": [{}]}"), 404, "not_found", null);
        assertError(api.post("/api/instances/cancel", "{\"ids\": [\"x\"]}"), 400, "invalid_field", "ids[0]");
        assertError(api.post("/api/instances/cancel", "{\"ids\": []}"), 400, "invalid_field", "ids");
        assertError(api.post("/api/jobs/" + job + "/run", "{\"key\": \"" + "k".repeat(201) + "\"}"), 400,
                "invalid_field", "key");
        assertError(api.post("/api/jobs/" + job + "/run", "{\"key\": \"tab\\there\"}"), 400, "invalid_field",
                "key");
    }
}
