package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real answers of the routes of namespaces, tokens, whoami and the audit trail, and of jobs and instances across
 * namespaces, validated against docs/openapi.yaml ({@link OpenApiAnswers}) on a server with a bootstrap token: a
 * lifecycle (create a namespace, create tokens, use them, list, revoke, page the audit trail) and the refusals (401,
 * 403, 404, 409, 400), each answer's status checked too.
 */
class OpenApiAccessValidationTest {

    private static final String BOOTSTRAP = "access-spec-token";
    private static final String JOB = """
            {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}%s}""";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient admin;

    private final OpenApiAnswers answers = new OpenApiAnswers();

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, BOOTSTRAP, false);
        admin = new ApiClient(app.baseUrl()).withToken(BOOTSTRAP);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void namespaceAndTokenLifecycle_answersMatchSpec() {
        JsonNode me = exchange(admin, "GET", "/api/whoami", null, 200).json();
        assertEquals("bootstrap", me.get("name").asText());
        assertTrue(me.get("namespace").isNull(), me.toString());
        exchange(admin, "POST", "/api/namespaces", "{\"name\": \"payments\"}", 201);
        exchange(admin, "GET", "/api/namespaces", null, 200);

        JsonNode created = exchange(admin, "POST", "/api/tokens",
                "{\"name\": \"payments-admin\", \"namespace\": \"payments\", \"role\": \"ADMIN\"}", 201).json();
        String secret = created.get("secret").asText();
        assertTrue(secret.startsWith("tw_"), created.toString());
        String expiresAt = Instant.now().plus(Duration.ofDays(1)).toString();
        String readId = exchange(admin, "POST", "/api/tokens", "{\"name\": \"payments-read\", \"namespace\":"
                + " \"payments\", \"role\": \"read\", \"expiresAt\": \"" + expiresAt + "\"}", 201).json().get("id")
                .asText();
        exchange(admin, "POST", "/api/tokens", "{\"name\": \"all-read\", \"role\": \"READ\"}", 201);

        ApiClient payments = new ApiClient(app.baseUrl()).withToken(secret);
        assertEquals("payments", exchange(payments, "GET", "/api/whoami", null, 200).json().get("namespace")
                .asText());
        String jobId = exchange(payments, "POST", "/api/jobs", JOB.formatted("payroll", ""), 201).json().get("id")
                .asText();
        assertEquals("payments", exchange(payments, "GET", "/api/jobs/" + jobId, null, 200).json().get("namespace")
                .asText());
        exchange(payments, "POST", "/api/jobs/" + jobId + "/run", "{\"delayMs\": 600000}", 201);
        exchange(payments, "GET", "/api/jobs", null, 200);
        exchange(payments, "GET", "/api/instances?jobId=" + jobId, null, 200);
        exchange(payments, "GET", "/api/namespaces", null, 200);
        exchange(payments, "GET", "/api/tokens", null, 200);
        JsonNode shown = exchange(payments, "GET", "/api/tokens/" + readId, null, 200).json();
        assertTrue(shown.get("secret").isNull(), "a secret is shown once: " + shown);
        exchange(payments, "POST", "/api/tokens",
                "{\"name\": \"payments-ci\", \"namespace\": \"payments\", \"role\": \"OPERATE\"}", 201);
        exchange(admin, "GET", "/api/jobs?namespace=payments", null, 200);
        exchange(admin, "GET", "/api/instances?namespace=payments&limit=1", null, 200);
        exchange(admin, "GET", "/api/tokens", null, 200);

        exchange(admin, "DELETE", "/api/tokens/" + readId, null, 204);
        exchange(admin, "DELETE", "/api/tokens/" + readId, null, 204);
        JsonNode revoked = exchange(admin, "GET", "/api/tokens/" + readId, null, 200).json();
        assertFalse(revoked.get("active").asBoolean(), revoked.toString());
        assertFalse(revoked.get("revokedAt").isNull(), revoked.toString());
        answers.assertNoFailures();
    }

    @Test
    void auditTrail_pagesAndFilters_answersMatchSpec() {
        for (int i = 0; i < 3; i++) {
            exchange(admin, "POST", "/api/jobs", JOB.formatted("audited " + i, ""), 201);
        }
        JsonNode first = exchange(admin, "GET", "/api/audit?limit=2", null, 200).json();
        assertEquals(2, first.get("items").size(), first.toString());
        String cursor = first.get("nextCursor").asText();
        exchange(admin, "GET", "/api/audit?limit=2&cursor=" + cursor, null, 200);
        Instant from = Instant.now().minus(Duration.ofHours(1));
        exchange(admin, "GET", "/api/audit?actor=bootstrap&namespace=default&action=POST&target=job&from=" + from
                + "&to=" + from.plus(Duration.ofHours(2)), null, 200);
        for (String bad : List.of("/api/audit?from=yesterday", "/api/audit?namespace=Not%20Valid",
                "/api/audit?limit=0", "/api/audit?cursor=x", "/api/audit?actor=" + "a".repeat(101),
                "/api/audit?from=2026-11-25T10:00:00Z&to=2026-11-25T09:00:00Z")) {
            assertFalse(exchange(admin, "GET", bad, null, 400).json().get("field").isNull(), bad);
        }
        answers.assertNoFailures();
    }

    @Test
    void refusals_answersMatchSpec() {
        exchange(admin, "POST", "/api/namespaces", "{\"name\": \"team-x\"}", 201);
        assertEquals("name_taken", exchange(admin, "POST", "/api/namespaces", "{\"name\": \"team-x\"}", 409).error());
        for (String bad : List.of("{}", "{\"name\": \"Team X\"}", "{\"name\": \"-x\"}")) {
            assertEquals("name", exchange(admin, "POST", "/api/namespaces", bad, 400).json().get("field").asText(),
                    bad);
        }
        String secret = exchange(admin, "POST", "/api/tokens",
                "{\"name\": \"x-read\", \"namespace\": \"team-x\", \"role\": \"READ\"}", 201).json().get("secret")
                .asText();
        String xAdmin = exchange(admin, "POST", "/api/tokens",
                "{\"name\": \"x-admin\", \"namespace\": \"team-x\", \"role\": \"ADMIN\"}", 201).json().get("secret")
                .asText();
        assertEquals("name_taken", exchange(admin, "POST", "/api/tokens", "{\"name\": \"x-read\", \"role\": \"READ\"}",
                409).error());
        for (String[] bad : new String[][] {
                {"{\"role\": \"READ\"}", "name"},
                {"{\"name\": \" \", \"role\": \"READ\"}", "name"},
                {"{\"name\": \"t1\"}", "role"},
                {"{\"name\": \"t2\", \"role\": \"ROOT\"}", "role"},
                {"{\"name\": \"t3\", \"role\": \"READ\", \"namespace\": \"Bad\"}", "namespace"},
                {"{\"name\": \"t4\", \"role\": \"READ\", \"namespace\": \"ghost\"}", "namespace"},
                {"{\"name\": \"t5\", \"role\": \"READ\", \"expiresAt\": \"2020-01-01T00:00:00Z\"}", "expiresAt"}}) {
            assertEquals(bad[1], exchange(admin, "POST", "/api/tokens", bad[0], 400).json().get("field").asText(),
                    bad[0]);
        }
        exchange(admin, "GET", "/api/tokens/abc", null, 400);
        exchange(admin, "GET", "/api/tokens/999999999", null, 404);
        exchange(admin, "DELETE", "/api/tokens/999999999", null, 404);

        String otherJob = exchange(admin, "POST", "/api/jobs", JOB.formatted("default's", ""), 201).json().get("id")
                .asText();
        String otherInstance = exchange(admin, "POST", "/api/jobs/" + otherJob + "/run", "{\"delayMs\": 600000}", 201)
                .json().get("instanceId").asText();
        ApiClient reader = new ApiClient(app.baseUrl()).withToken(secret);
        ApiClient teamAdmin = new ApiClient(app.baseUrl()).withToken(xAdmin);
        exchange(reader, "GET", "/api/jobs/" + otherJob, null, 404);
        exchange(reader, "GET", "/api/instances/" + otherInstance, null, 404);
        exchange(reader, "GET", "/api/instances?jobId=" + otherJob, null, 404);
        exchange(reader, "GET", "/api/jobs?namespace=default", null, 404);
        exchange(reader, "GET", "/api/instances?namespace=default", null, 404);
        exchange(teamAdmin, "POST", "/api/instances/" + otherInstance + "/cancel", null, 404);
        assertEquals("NOT_FOUND", exchange(teamAdmin, "POST", "/api/instances/cancel", "{\"ids\": [\"" + otherInstance
                + "\"]}", 200).json().get("results").get(0).get("outcome").asText());
        exchange(teamAdmin, "POST", "/api/instances/rerun", "{\"jobId\": \"" + otherJob + "\", \"dryRun\": true}", 404);
        exchange(teamAdmin, "POST", "/api/jobs/" + otherJob + "/run", null, 404);
        exchange(teamAdmin, "PUT", "/api/jobs/" + otherJob, JOB.formatted("taken over", ""), 404);
        exchange(teamAdmin, "DELETE", "/api/jobs/" + otherJob, null, 404);
        exchange(teamAdmin, "POST", "/api/jobs", JOB.formatted("elsewhere", ", \"namespace\": \"default\""), 404);
        exchange(teamAdmin, "GET", "/api/audit?namespace=default", null, 404);
        assertEquals("namespace", exchange(admin, "POST", "/api/jobs",
                JOB.formatted("nowhere", ", \"namespace\": \"ghost\""), 400).json().get("field").asText());
        assertEquals("namespace", exchange(admin, "GET", "/api/jobs?namespace=Bad", null, 400).json().get("field")
                .asText());

        assertEquals("forbidden", exchange(reader, "POST", "/api/jobs", JOB.formatted("read only", ""), 403).error());
        exchange(reader, "POST", "/api/jobs/" + otherJob + "/run", null, 403);
        exchange(reader, "GET", "/api/tokens", null, 403);
        exchange(reader, "GET", "/api/audit", null, 403);
        exchange(teamAdmin, "POST", "/api/namespaces", "{\"name\": \"team-y\"}", 403);
        exchange(teamAdmin, "POST", "/api/tokens", "{\"name\": \"x-everything\", \"role\": \"READ\"}", 403);
        exchange(teamAdmin, "POST", "/api/tokens",
                "{\"name\": \"x-default\", \"namespace\": \"default\", \"role\": \"READ\"}", 404);
        exchange(teamAdmin, "GET", "/api/calendars/none", null, 404);
        exchange(teamAdmin, "GET", "/api/pools/none?namespace=default", null, 404);
        exchange(teamAdmin, "GET", "/api/cluster", null, 403);

        ApiClient anonymous = new ApiClient(app.baseUrl());
        ApiClient wrong = new ApiClient(app.baseUrl()).withToken("tw_not-a-token");
        for (ApiClient client : List.of(anonymous, wrong)) {
            exchange(client, "GET", "/api/whoami", null, 401);
            exchange(client, "GET", "/api/namespaces", null, 401);
            exchange(client, "POST", "/api/namespaces", "{\"name\": \"z\"}", 401);
            exchange(client, "GET", "/api/tokens", null, 401);
            exchange(client, "POST", "/api/tokens", "{\"name\": \"z\", \"role\": \"READ\"}", 401);
            exchange(client, "GET", "/api/tokens/1", null, 401);
            exchange(client, "DELETE", "/api/tokens/1", null, 401);
            exchange(client, "GET", "/api/audit", null, 401);
        }
        answers.assertNoFailures();
    }

    private ApiClient.Reply exchange(ApiClient client, String method, String pathAndQuery, String body, int status) {
        return answers.exchange(client, method, pathAndQuery, body, status);
    }
}
