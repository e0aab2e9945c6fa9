package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real answers of a running server (H2, bearer token, demo endpoint) validated against docs/openapi.yaml
 * ({@link OpenApiAnswers}): every route, good and bad requests. The routes of namespaces, tokens, whoami and the
 * audit trail are {@link OpenApiAccessValidationTest}'s.
 */
class OpenApiResponseValidationTest {

    private static final String TOKEN = "spec-token";
    private static final String WEBHOOK_JOB = """
            {"name": "spec", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""";
    private static final String FULL_JOB = """
            {"name": "spec-full", "schedule": {"type": "CRON", "expression": "0 0 3 * * ?", "zone": "Europe/Paris"},
             "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/y"}, "params": {"k": [1, "two", null]},
             "enabled": true, "misfirePolicy": "SKIP", "retry": {"maxAttempts": 3, "backoffMs": 1000},
             "delivery": "AT_MOST_ONCE", "timeoutMs": 5000, "maxConcurrent": 2, "overLimit": "SKIP"}""";

    @TempDir
    static Path dir;

    static TickwheelApplication app;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, TOKEN, true);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private final OpenApiAnswers answers = new OpenApiAnswers();

    @Test
    void jobAndInstanceRoutes_goodRequests_answersMatchSpec() {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        String id = exchange(client, "POST", "/api/jobs", WEBHOOK_JOB, 201).json().get("id").asText();
        String fullId = exchange(client, "POST", "/api/jobs", FULL_JOB, 201).json().get("id").asText();
        exchange(client, "GET", "/api/jobs/" + id, null, 200);
        exchange(client, "GET", "/api/jobs/" + fullId, null, 200);
        exchange(client, "GET", "/api/jobs?limit=1", null, 200);
        exchange(client, "GET", "/api/jobs", null, 200);
        exchange(client, "PUT", "/api/jobs/" + id, WEBHOOK_JOB.replace("\"spec\"", "\"spec2\""), 200);
        exchange(client, "POST", "/api/jobs/" + id + "/disable", null, 200);
        exchange(client, "POST", "/api/jobs/" + id + "/enable", null, 200);
        String instanceId = exchange(client, "POST", "/api/jobs/" + id + "/run",
                "{\"delayMs\": 600000, \"params\": [1, {\"a\": null}]}", 201).json().get("instanceId").asText();
        exchange(client, "POST", "/api/jobs/" + id + "/run", null, 201);
        exchange(client, "GET", "/api/instances", null, 200);
        exchange(client, "GET", "/api/instances?jobId=" + id + "&status=WAITING&limit=1", null, 200);
        exchange(client, "GET", "/api/instances/" + instanceId, null, 200);
        exchange(client, "POST", "/api/instances/" + instanceId + "/cancel", null, 200);
        exchange(client, "POST", "/api/instances/" + instanceId + "/cancel", null, 409);
        exchange(client, "GET", "/api/instances/" + instanceId, null, 200);
        exchange(client, "DELETE", "/api/jobs/" + id, null, 204);
        assertNoFailures();
    }

    @Test
    void calendarRoutes_lifecycleAndRefusals_answersMatchSpec() {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        ApiClient.Reply created = exchange(client, "POST", "/api/calendars", """
                {"name": "plant-holidays", "zone": "Europe/Berlin", "excludedDates": ["2026-12-25", "2026-12-24"],
                 "excludedWeekdays": ["sunday"]}""", 201);
        assertEquals("[\"2026-12-24\",\"2026-12-25\"]", created.json().get("excludedDates").toString());
        assertEquals("[\"SUNDAY\"]", created.json().get("excludedWeekdays").toString());
        assertEquals("name_taken", exchange(client, "POST", "/api/calendars", "{\"name\": \"plant-holidays\"}", 409)
                .error());
        for (String[] bad : new String[][] {
                {"{\"zone\": \"UTC\"}", "name"},
                {"{\"name\": \"has space\"}", "name"},
                {"{\"name\": \"z\", \"zone\": \"Mars/Olympus\"}", "zone"},
                {"{\"name\": \"d\", \"excludedDates\": [\"2026-02-30\"]}", "excludedDates"},
                {"{\"name\": \"w\", \"excludedWeekdays\": [\"FUNDAY\"]}", "excludedWeekdays"}}) {
            assertEquals(bad[1], exchange(client, "POST", "/api/calendars", bad[0], 400).json().get("field").asText(),
                    bad[0]);
        }
        ApiClient.Reply replaced = exchange(client, "PUT", "/api/calendars/plant-holidays",
                "{\"zone\": \"UTC\", \"excludedDates\": [\"2027-01-01\"]}", 200);
        assertEquals("[\"2027-01-01\"]", replaced.json().get("excludedDates").toString());
        assertEquals("[]", replaced.json().get("excludedWeekdays").toString(), "a replace sets every field");
        assertEquals(created.json().get("createdAt"), replaced.json().get("createdAt"));
        assertEquals("name", exchange(client, "PUT", "/api/calendars/plant-holidays", "{\"name\": \"other\"}", 400)
                .json().get("field").asText());
        exchange(client, "PUT", "/api/calendars/none", "{}", 404);
        exchange(client, "GET", "/api/calendars", null, 200);
        exchange(client, "GET", "/api/calendars/plant-holidays", null, 200);
        exchange(client, "GET", "/api/calendars/none", null, 404);

        String cron = "{\"name\": \"plant shift\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"0 0 6 * * ?\"},"
                + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://127.0.0.1:9/shift\"}, \"calendar\": \"%s\"}";
        assertEquals("calendar", exchange(client, "POST", "/api/jobs", cron.formatted("none"), 400).json()
                .get("field").asText());
        assertEquals("calendar", exchange(client, "POST", "/api/jobs", "{\"name\": \"api job\", \"schedule\":"
                + " {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://127.0.0.1:9/x\"},"
                + " \"calendar\": \"plant-holidays\"}", 400).json().get("field").asText(), "an API job has no triggers");
        ApiClient.Reply job = exchange(client, "POST", "/api/jobs", cron.formatted("plant-holidays"), 201);
        assertEquals("plant-holidays", job.json().get("calendar").asText());
        assertEquals("calendar_in_use", exchange(client, "DELETE", "/api/calendars/plant-holidays", null, 409).error());
        exchange(client, "DELETE", "/api/jobs/" + job.json().get("id").asText(), null, 204);
        exchange(client, "DELETE", "/api/calendars/plant-holidays", null, 204);
        exchange(client, "DELETE", "/api/calendars/plant-holidays", null, 404);
        assertNoFailures();
    }

    @Test
    void poolRoutes_lifecycleAndRefusals_answersMatchSpec() throws SQLException {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        exchange(client, "POST", "/api/pools", """
                {"name": "partner-api", "maxConcurrent": 4, "rate": {"permits": 50, "perMs": 1000}}""", 201);
        exchange(client, "POST", "/api/pools", "{\"name\": \"bounded\", \"maxConcurrent\": 2}", 201);
        assertEquals("name_taken", exchange(client, "POST", "/api/pools", "{\"name\": \"partner-api\","
                + " \"maxConcurrent\": 1}", 409).error());
        for (String bad : List.of("{\"maxConcurrent\": 1}", "{\"name\": \"idle\"}",
                "{\"name\": \"r\", \"rate\": {\"permits\": 0, \"perMs\": 1000}}")) {
            exchange(client, "POST", "/api/pools", bad, 400);
        }
        exchange(client, "PUT", "/api/pools/partner-api", "{\"rate\": {\"permits\": 5, \"perMs\": 60000}}",
                200);
        exchange(client, "PUT", "/api/pools/partner-api", "{\"name\": \"other\", \"maxConcurrent\": 1}", 400);
        exchange(client, "PUT", "/api/pools/none", "{\"maxConcurrent\": 1}", 404);
        exchange(client, "GET", "/api/pools", null, 200);
        exchange(client, "GET", "/api/pools/partner-api", null, 200);
        exchange(client, "GET", "/api/pools/bounded", null, 200);
        exchange(client, "GET", "/api/pools/none", null, 404);

        // Jobs have no pool field in the API yet: the job's row names the pool directly (the server's H2, this JVM).
        String jobId = exchange(client, "POST", "/api/jobs", WEBHOOK_JOB.replace("\"spec\"", "\"pooled\""), 201)
                .json().get("id").asText();
        try (Connection connection = DriverManager.getConnection(app.engine().config().jdbcUrl());
                Statement statement = connection.createStatement()) {
            assertEquals(1, statement.executeUpdate("UPDATE tw_job SET pool_name = 'bounded' WHERE id = " + jobId));
        }
        assertEquals("pool_in_use", exchange(client, "DELETE", "/api/pools/bounded", null, 409).error());
        exchange(client, "DELETE", "/api/jobs/" + jobId, null, 204);
        exchange(client, "DELETE", "/api/pools/bounded", null, 204);
        exchange(client, "DELETE", "/api/pools/bounded", null, 404);
        exchange(client, "DELETE", "/api/pools/partner-api", null, 204);
        assertNoFailures();
    }

    @Test
    void historyRoutes_filtersCursorsAndAttempts_answersMatchSpec() {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        String refused = exchange(client, "POST", "/api/jobs", """
                {"name": "history 50%", "schedule": {"type": "API"}, "retry": {"maxAttempts": 2, "backoffMs": 0},
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/refused"}}""", 201).json().get("id").asText();
        exchange(client, "POST", "/api/jobs", WEBHOOK_JOB.replace("\"spec\"", "\"history other\""), 201);
        String failed = exchange(client, "POST", "/api/jobs/" + refused + "/run", null, 201).json()
                .get("instanceId").asText();
        String waiting = exchange(client, "POST", "/api/jobs/" + refused + "/run", "{\"delayMs\": 600000}", 201)
                .json().get("instanceId").asText();
        Await.until("both attempts of " + failed + " failed", Duration.ofSeconds(20), () -> "FAILED".equals(
                client.get("/api/instances/" + failed).json().path("status").asText()));

        ApiClient.Reply withAttempts = exchange(client, "GET", "/api/instances/" + failed, null, 200);
        assertEquals(2, withAttempts.json().get("attempts").size(), withAttempts.toString());
        exchange(client, "GET", "/api/instances/" + waiting, null, 200);
        String jobCursor = exchange(client, "GET", "/api/jobs?name=HISTORY&limit=1", null, 200).json()
                .get("nextCursor").asText();
        exchange(client, "GET", "/api/jobs?name=HISTORY&limit=1&cursor=" + jobCursor, null, 200);
        exchange(client, "GET", "/api/jobs?name=50%25", null, 200);
        String instanceCursor = exchange(client, "GET", "/api/instances?limit=1", null, 200).json()
                .get("nextCursor").asText();
        exchange(client, "GET", "/api/instances?limit=1&cursor=" + instanceCursor, null, 200);
        Instant from = Instant.now().minus(Duration.ofHours(1));
        exchange(client, "GET", "/api/instances?jobId=" + refused + "&status=failed&from=" + from + "&to="
                + from.plus(Duration.ofHours(2)) + "&limit=5", null, 200);
        exchange(client, "GET", "/api/instances?status=WAITING&from=" + from, null, 200);
        for (String bad : List.of("/api/jobs?cursor=zz", "/api/jobs?name=" + "n".repeat(201),
                "/api/instances?from=yesterday", "/api/instances?to=never", "/api/instances?cursor=x",
                "/api/instances?from=2026-11-25T10:00:00Z&to=2026-11-25T09:00:00Z")) {
            assertFalse(exchange(client, "GET", bad, null, 400).json().get("field").isNull(), bad);
        }
        assertNoFailures();
    }

    @Test
    void jobAndInstanceRoutes_badRequests_answersMatchSpec() {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        String id = exchange(client, "POST", "/api/jobs", WEBHOOK_JOB, 201).json().get("id").asText();
        for (String path : List.of("/api/jobs/abc", "/api/instances/abc", "/api/jobs/0")) {
            assertEquals("invalid_id", exchange(client, "GET", path, null, 400).error());
        }
        exchange(client, "PUT", "/api/jobs/abc", WEBHOOK_JOB, 400);
        exchange(client, "DELETE", "/api/jobs/abc", null, 400);
        exchange(client, "POST", "/api/jobs/abc/enable", null, 400);
        exchange(client, "POST", "/api/jobs/abc/disable", null, 400);
        exchange(client, "POST", "/api/jobs/abc/run", null, 400);
        exchange(client, "POST", "/api/instances/abc/cancel", null, 400);
        String unknown = "/api/jobs/999999999";
        exchange(client, "GET", unknown, null, 404);
        exchange(client, "PUT", unknown, WEBHOOK_JOB, 404);
        exchange(client, "DELETE", unknown, null, 404);
        exchange(client, "POST", unknown + "/enable", null, 404);
        exchange(client, "POST", unknown + "/disable", null, 404);
        exchange(client, "POST", unknown + "/run", null, 404);
        exchange(client, "GET", "/api/instances/999999999", null, 404);
        exchange(client, "POST", "/api/instances/999999999/cancel", null, 404);
        String typo = WEBHOOK_JOB.replace("\"name\"", "\"nmae\": 1, \"name\"");
        assertEquals("unknown_field", exchange(client, "POST", "/api/jobs", typo, 400).error());
        exchange(client, "PUT", "/api/jobs/" + id, "{not json", 400);
        exchange(client, "POST", "/api/jobs/" + id + "/run", "{\"delayMs\": -1}", 400);
        exchange(client, "GET", "/api/jobs?limit=0", null, 400);
        exchange(client, "GET", "/api/instances?status=NOPE", null, 400);
        String big = "{\"name\": \"" + "x".repeat(65 * 1024) + "\"}";
        exchange(client, "POST", "/api/jobs", big, 413);
        exchange(client, "PUT", "/api/jobs/" + id, big, 413);
        exchange(client, "POST", "/api/jobs/" + id + "/run", big, 413);
        assertNoFailures();
    }

    @Test
    void routes_missingOrWrongToken_answer401MatchingSpec() {
        ApiClient anonymous = new ApiClient(app.baseUrl());
        ApiClient wrong = new ApiClient(app.baseUrl()).withToken("not-" + TOKEN);
        for (ApiClient client : List.of(anonymous, wrong)) {
            exchange(client, "GET", "/api/jobs", null, 401);
            exchange(client, "GET", "/api/jobs/1", null, 401);
            exchange(client, "GET", "/api/jobs/1/runs/k", null, 401);
            exchange(client, "GET", "/api/instances", null, 401);
            exchange(client, "GET", "/api/instances/1", null, 401);
            exchange(client, "GET", "/api/calendars", null, 401);
            exchange(client, "GET", "/api/pools/p", null, 401);
            exchange(client, "GET", "/api/workflows", null, 401);
            exchange(client, "GET", "/api/cluster", null, 401);
            exchange(client, "POST", "/api/jobs", WEBHOOK_JOB, 401);
            exchange(client, "PUT", "/api/jobs/1", WEBHOOK_JOB, 401);
            exchange(client, "DELETE", "/api/jobs/1", null, 401);
            exchange(client, "POST", "/api/jobs/1/enable", null, 401);
            exchange(client, "POST", "/api/jobs/1/disable", null, 401);
            exchange(client, "POST", "/api/jobs/1/run", null, 401);
            exchange(client, "POST", "/api/instances/1/cancel", null, 401);
            exchange(client, "POST", "/api/pools", "{\"name\": \"p\", \"maxConcurrent\": 1}", 401);
            exchange(client, "PUT", "/api/pools/p", "{\"maxConcurrent\": 1}", 401);
            exchange(client, "DELETE", "/api/pools/p", null, 401);
        }
        assertNoFailures();
    }

    @Test
    void opsAndDocsRoutes_answersMatchSpec() throws IOException {
        ApiClient anonymous = new ApiClient(app.baseUrl());
        exchange(new ApiClient(app.baseUrl()).withToken(TOKEN), "GET", "/api/cluster", null, 200);
        exchange(anonymous, "GET", "/health", null, 200);
        exchange(anonymous, "GET", "/metrics", null, 200);
        exchange(anonymous, "GET", "/", null, 200);
        ApiClient.Reply spec = exchange(anonymous, "GET", ApiDocs.SPEC_PATH, null, 200);
        assertEquals(OpenApiAnswers.readSpec(), spec.text(), "the served spec is docs/openapi.yaml");
        ApiClient.Reply page = exchange(anonymous, "GET", ApiDocs.PAGE_PATH, null, 200);
        assertTrue(page.text().contains("src=\"api-docs/assets/swagger-ui-bundle.js\""), page.text());
        for (String asset : List.of("swagger-ui-bundle.js", "swagger-ui.css")) {
            ApiClient.Reply reply = anonymous.get(ApiDocs.PAGE_PATH + "/assets/" + asset);
            assertEquals(200, reply.status(), asset);
            assertTrue(reply.text().length() > 10_000, asset + " is Swagger UI's file");
        }
        exchange(anonymous, "POST", DemoEcho.PATH, "{\"hello\": [1, 2]}", 200);
        exchange(anonymous, "POST", DemoEcho.PATH, "\"" + "z".repeat(65 * 1024) + "\"", 413);
        assertNoFailures();
    }

    @Test
    void storeDown_answers503MatchingSpec(@TempDir Path downDir) {
        try (TickwheelApplication down = TestServers.start(downDir, null, false)) {
            down.engine().close();
            ApiClient anonymous = new ApiClient(down.baseUrl());
            exchange(anonymous, "GET", "/health", null, 503);
            assertEquals("store_unavailable", exchange(anonymous, "GET", "/api/jobs", null, 503).error());
            exchange(anonymous, "GET", "/api/instances/1", null, 503);
            exchange(anonymous, "POST", "/api/jobs", WEBHOOK_JOB, 503);
        }
        assertNoFailures();
    }

    private ApiClient.Reply exchange(ApiClient client, String method, String pathAndQuery, String body, int status) {
        return answers.exchange(client, method, pathAndQuery, body, status);
    }

    private void assertNoFailures() {
        answers.assertNoFailures();
    }
}
