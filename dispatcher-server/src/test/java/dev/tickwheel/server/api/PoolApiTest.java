package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pool routes over HTTP against a whole server (H2, with a token): create, list, get, replace and delete with
 * their 404s and 409s, every refused field a 400 naming it (nothing stored), and writes that need the token.
 */
class PoolApiTest {

    private static final String TOKEN = "pool-token";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, TOKEN, false);
        api = new ApiClient(app.baseUrl()).withToken(TOKEN);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void lifecycle_create201_nameTaken409_listGet_replace_delete204_thenEach404() {
        ApiClient.Reply created = api.post("/api/pools", """
                {"name": "partner-api", "maxConcurrent": 4, "rate": {"permits": 50, "perMs": 1000}}""");
        assertEquals(201, created.status(), created.toString());
        assertEquals("partner-api", created.json().get("name").asText());
        assertEquals(4, created.json().get("maxConcurrent").asInt());
        assertEquals("{\"permits\":50,\"perMs\":1000}", created.json().get("rate").toString());
        assertTrue(created.json().get("createdAt").asText().endsWith("Z"), created.toString());

        ApiClient.Reply taken = api.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 9}");
        assertEquals(409, taken.status(), taken.toString());
        assertEquals("name_taken", taken.error());
        assertEquals("name", taken.json().get("field").asText());
        assertEquals(created.json(), api.get("/api/pools/partner-api").json(), "the stored pool is unchanged");

        ApiClient.Reply rateOnly = api.post("/api/pools", """
                {"name": "a-rate-only", "rate": {"permits": 1, "perMs": 60000}}""");
        assertEquals(201, rateOnly.status(), rateOnly.toString());
        assertEquals(0, rateOnly.json().get("maxConcurrent").asInt(), "absent: no limit");
        JsonNode listed = api.get("/api/pools").json();
        assertEquals(List.of(rateOnly.json(), created.json()), items(listed), "by name");
        assertTrue(listed.get("nextCursor").isNull());

        ApiClient.Reply replaced = api.put("/api/pools/partner-api",
                "{\"name\": \"partner-api\", \"maxConcurrent\": 2}");
        assertEquals(200, replaced.status(), replaced.toString());
        assertEquals(2, replaced.json().get("maxConcurrent").asInt());
        assertFalse(replaced.json().has("rate"), "a replace sets every limit; no rate is left out: " + replaced);
        assertEquals(created.json().get("createdAt"), replaced.json().get("createdAt"));
        assertEquals(replaced.json(), api.get("/api/pools/partner-api").json());

        assertEquals(204, api.delete("/api/pools/partner-api").status());
        assertEquals(404, api.get("/api/pools/partner-api").status());
        assertEquals("not_found", api.delete("/api/pools/partner-api").error());
        assertEquals(404, api.put("/api/pools/partner-api", "{\"maxConcurrent\": 1}").status());
        assertEquals(204, api.delete("/api/pools/a-rate-only").status());
    }

    @Test
    void delete_whileAJobNamesThePool_409PoolInUse_thenDeletedOnceNoJobDoes() throws SQLException {
        assertEquals(201, api.post("/api/pools", "{\"name\": \"in-use\", \"maxConcurrent\": 1}").status());
        ApiClient.Reply job = api.post("/api/jobs", """
                {"name": "pooled", "schedule": {"type": "API"},
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/pooled"}}""");
        assertEquals(201, job.status(), job.toString());
        String jobId = job.json().get("id").asText();
        namePool(jobId, "in-use");

        ApiClient.Reply refused = api.delete("/api/pools/in-use");
        assertEquals(409, refused.status(), refused.toString());
        assertEquals("pool_in_use", refused.error());
        assertEquals(200, api.get("/api/pools/in-use").status(), "nothing deleted");

        assertEquals(204, api.delete("/api/jobs/" + jobId).status());
        assertEquals(204, api.delete("/api/pools/in-use").status());
    }

    /**
     * Makes the job name the pool. Jobs have no pool field in the API yet, so this sets the job's row directly, on
     * the server's own H2 database (an embedded H2 database opened again in the same JVM is the same database).
     */
    private static void namePool(String jobId, String pool) throws SQLException {
        try (Connection connection = DriverManager.getConnection(app.engine().config().jdbcUrl());
                PreparedStatement ps = connection.prepareStatement("UPDATE tw_job SET pool_name = ? WHERE id = ?")) {
            ps.setString(1, pool);
            ps.setLong(2, Long.parseLong(jobId));
            assertEquals(1, ps.executeUpdate(), "job " + jobId);
        }
    }

    @Test
    void badFields_are400sNamingTheField_andStoreNothing() {
        assertRefused("POST", "/api/pools", "{\"maxConcurrent\": 1}", "name", "missing_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"has space\", \"maxConcurrent\": 1}", "name", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"" + "n".repeat(101) + "\", \"maxConcurrent\": 1}", "name",
                "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"idle\"}", "maxConcurrent", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"idle\", \"maxConcurrent\": 0, \"rate\": null}",
                "maxConcurrent", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"neg\", \"maxConcurrent\": -1}", "maxConcurrent",
                "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"big\", \"maxConcurrent\": 100001}", "maxConcurrent",
                "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"word\", \"maxConcurrent\": \"many\"}", "maxConcurrent",
                "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"flat\", \"rate\": 50}", "rate", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"half\", \"rate\": {\"perMs\": 1000}}", "rate.permits",
                "missing_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"half\", \"rate\": {\"permits\": 5}}", "rate.perMs",
                "missing_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"zero\", \"rate\": {\"permits\": 0, \"perMs\": 1000}}",
                "rate.permits", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"zero\", \"rate\": {\"permits\": 5, \"perMs\": 0}}",
                "rate.perMs", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"long\", \"rate\": {\"permits\": 5, \"perMs\": 86400001}}",
                "rate.perMs", "invalid_field");
        assertRefused("POST", "/api/pools", "{\"name\": \"burst\", \"rate\": {\"permits\": 5, \"perMs\": 10,"
                + " \"burst\": 2}}", "rate.burst", "unknown_field");
        for (String name : List.of("idle", "neg", "big", "word", "flat", "half", "zero", "long", "burst")) {
            assertEquals(404, api.get("/api/pools/" + name).status(), name + " was stored");
        }

        assertEquals(201, api.post("/api/pools", "{\"name\": \"kept\", \"maxConcurrent\": 3}").status());
        assertRefused("PUT", "/api/pools/kept", "{\"name\": \"other\", \"maxConcurrent\": 1}", "name", "invalid_field");
        assertRefused("PUT", "/api/pools/kept", "{}", "maxConcurrent", "invalid_field");
        assertRefused("PUT", "/api/pools/kept", "{\"rate\": {\"permits\": 5, \"perMs\": -1}}", "rate.perMs",
                "invalid_field");
        assertEquals(3, api.get("/api/pools/kept").json().get("maxConcurrent").asInt(), "unchanged");
        assertEquals(204, api.delete("/api/pools/kept").status());
    }

    private static void assertRefused(String method, String path, String body, String field, String error) {
        ApiClient.Reply reply = api.send(method, path, body);
        assertEquals(400, reply.status(), method + " " + body + ": " + reply);
        assertEquals(error, reply.error(), method + " " + body + ": " + reply);
        assertEquals(field, reply.json().get("field").asText(), method + " " + body + ": " + reply);
    }

    @Test
    void writes_andReads_needTheToken() {
        ApiClient anonymous = new ApiClient(app.baseUrl());
        assertEquals(401, anonymous.post("/api/pools", "{\"name\": \"open\", \"maxConcurrent\": 1}").status());
        assertEquals(201, api.post("/api/pools", "{\"name\": \"guarded\", \"maxConcurrent\": 1}").status());
        assertEquals(401, anonymous.put("/api/pools/guarded", "{\"maxConcurrent\": 2}").status());
        assertEquals(401, anonymous.delete("/api/pools/guarded").status());

        assertEquals(401, anonymous.get("/api/pools/guarded").status(), "reads need the token too");
        assertEquals(1, api.get("/api/pools/guarded").json().get("maxConcurrent").asInt(), "not replaced");
        assertEquals(404, api.get("/api/pools/open").status(), "not created");
        assertEquals(204, api.delete("/api/pools/guarded").status());
    }

    private static List<JsonNode> items(JsonNode page) {
        List<JsonNode> items = new ArrayList<>();
        page.get("items").forEach(items::add);
        return items;
    }
}
