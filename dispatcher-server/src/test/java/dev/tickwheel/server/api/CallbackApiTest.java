package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks that finish later over HTTP, against a whole server (H2, with an API token) and a real receiver answering
 * 202: the job fields and their 400s, the call's {@code Tickwheel-Callback-Url}, the instance's
 * {@code callbackDeadline}, and the callback route itself: 200 without the API token, 409 for a replay, 401 for a
 * token this server did not issue, 404 once the job is gone, 400 for a bad report.
 */
class CallbackApiTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOKEN = "callback-api-test-token";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver receiver;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        receiver = new WebhookReceiver();
        receiver.answerWith(call -> new WebhookReceiver.Answer(202, null));
        app = TestServers.start(dir, TOKEN, false);
        api = new ApiClient(app.baseUrl()).withToken(TOKEN);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        receiver.close();
    }

    private static String callbackJob(String name) {
        ApiClient.Reply created = api.post("/api/jobs", """
                {"name": "%s", "schedule": {"type": "API"}, "completion": "CALLBACK", "callbackTimeoutMs": 600000,
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(name, receiver.url()));
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    /** Runs the job; returns the instance and the callback URL its call carried, once the instance awaits it. */
    private static String[] runAndAwait(String jobId) {
        String id = api.post("/api/jobs/" + jobId + "/run", "{}").json().get("instanceId").asText();
        Await.until(() -> "instance " + id + " awaits its callback", WAIT,
                () -> api.get("/api/instances/" + id).json().has("callbackDeadline"));
        String url = receiver.deliveries(id).get(0).header("Tickwheel-Callback-Url");
        return new String[] {id, url};
    }

    /** A POST without any Authorization header: what a target sends. */
    private static HttpResponse<String> report(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void jobFields_areShown_andRefusedWhereTheyDoNotApply() {
        String id = callbackJob("fields");
        JsonNode job = api.get("/api/jobs/" + id).json();
        assertEquals("CALLBACK", job.get("completion").asText());
        assertEquals(600_000, job.get("callbackTimeoutMs").asLong());

        ApiClient.Reply timeoutAlone = api.post("/api/jobs", """
                {"name": "t", "schedule": {"type": "API"}, "callbackTimeoutMs": 5000,
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""");
        assertEquals(400, timeoutAlone.status(), timeoutAlone.toString());
        assertEquals("callbackTimeoutMs", timeoutAlone.json().get("field").asText());
        ApiClient.Reply tooShort = api.post("/api/jobs", """
                {"name": "t", "schedule": {"type": "API"}, "completion": "CALLBACK", "callbackTimeoutMs": 10,
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""");
        assertEquals("callbackTimeoutMs", tooShort.json().get("field").asText(), tooShort.toString());
        ApiClient.Reply unknown = api.post("/api/jobs", """
                {"name": "t", "schedule": {"type": "API"}, "completion": "LATER",
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""");
        assertEquals("completion", unknown.json().get("field").asText(), unknown.toString());
        JsonNode immediate = api.post("/api/jobs", """
                {"name": "i", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""")
                .json();
        assertEquals("IMMEDIATE", immediate.get("completion").asText());
        assertFalse(immediate.has("callbackTimeoutMs") && !immediate.get("callbackTimeoutMs").isNull());
    }

    @Test
    void report_withoutTheApiToken_200_succeedsWithOutput_thenReplay409_wrongToken401() throws Exception {
        String[] run = runAndAwait(callbackJob("report"));
        String instanceId = run[0];
        String url = run[1];
        assertTrue(url.startsWith(app.baseUrl() + "/api/callbacks/" + instanceId + ".1."), url);

        HttpResponse<String> done = report(url, "{\"outcome\": \"SUCCEEDED\", \"output\": {\"rows\": 12}}");

        assertEquals(200, done.statusCode(), done.body());
        assertEquals("{\"instanceId\":\"" + instanceId + "\",\"status\":\"SUCCEEDED\"}", done.body());
        JsonNode instance = api.get("/api/instances/" + instanceId).json();
        assertEquals("SUCCEEDED", instance.get("status").asText());
        assertEquals(12, instance.at("/output/rows").asInt());
        assertFalse(instance.has("callbackDeadline"), instance.toString());
        HttpResponse<String> replay = report(url, "{\"outcome\": \"SUCCEEDED\"}");
        assertEquals(409, replay.statusCode(), replay.body());
        assertTrue(replay.body().contains("\"stale\""), replay.body());
        HttpResponse<String> forged = report(url.substring(0, url.length() - 4) + "0000", "{\"outcome\": \"FAILED\"}");
        assertEquals(401, forged.statusCode(), forged.body());
        assertTrue(forged.body().contains("\"invalid_token\""), forged.body());
        assertEquals("SUCCEEDED", api.get("/api/instances/" + instanceId).json().get("status").asText());
    }

    @Test
    void badReports_400NamingTheField_andTheInstanceStillAwaits() throws Exception {
        String[] run = runAndAwait(callbackJob("bad reports"));
        String url = run[1];
        String[][] cases = {
            {"{}", "outcome"},
            {"{\"outcome\": \"DONE\"}", "outcome"},
            {"{\"outcome\": \"FAILED\", \"output\": 1}", "output"},
            {"{\"outcome\": \"SUCCEEDED\", \"error\": \"why\"}", "error"},
            {"{\"outcome\": \"SUCCEEDED\", \"output\": \"" + "x".repeat(9000) + "\"}", "output"},
        };
        for (String[] c : cases) {
            HttpResponse<String> bad = report(url, c[0]);
            assertEquals(400, bad.statusCode(), c[0] + " -> " + bad.body());
            assertTrue(bad.body().contains("\"field\":\"" + c[1] + "\""), c[0] + " -> " + bad.body());
        }
        assertEquals("DISPATCHING", api.get("/api/instances/" + run[0]).json().get("status").asText());
        HttpResponse<String> heartbeat = report(url, "{\"outcome\": \"RUNNING\"}");
        assertEquals(200, heartbeat.statusCode(), heartbeat.body());
        assertTrue(heartbeat.body().contains("\"status\":\"DISPATCHING\""), heartbeat.body());
        HttpResponse<String> failed = report(url, "{\"outcome\": \"FAILED\", \"error\": \"disk full\"}");
        assertEquals(200, failed.statusCode(), failed.body());
        JsonNode instance = api.get("/api/instances/" + run[0]).json();
        assertEquals("FAILED", instance.get("status").asText());
        assertEquals("disk full", instance.get("error").asText());
    }

    @Test
    void reportAfterTheJobIsDeleted_404() throws Exception {
        String jobId = callbackJob("deleted");
        String[] run = runAndAwait(jobId);
        assertEquals(204, api.delete("/api/jobs/" + jobId).status());

        HttpResponse<String> gone = report(run[1], "{\"outcome\": \"SUCCEEDED\"}");

        assertEquals(404, gone.statusCode(), gone.body());
    }
}
