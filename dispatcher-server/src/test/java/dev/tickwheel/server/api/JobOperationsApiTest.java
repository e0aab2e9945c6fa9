package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import dev.tickwheel.server.job.Job;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's operations fields through the API: retentionDays and alertUrl round-trip, signingSecret is write-only (never
 * in a response, shown as {@code signed}), a replace that omits it keeps it and {@code ""} removes it, and bad values
 * are 400s naming the field.
 */
class JobOperationsApiTest {

    private static final String SECRET = "whsec_0123456789abcdef";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static String job(String extra) {
        return """
                {"name": "ops", "schedule": {"type": "API"},
                 "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/hook"}%s}
                """.formatted(extra.isEmpty() ? "" : ", " + extra);
    }

    @Test
    void create_withOperations_showsThemAndHidesTheSecret() {
        ApiClient.Reply created = api.post("/api/jobs", job("\"retentionDays\": 30,"
                + " \"alertUrl\": \"https://alerts.example.com/tickwheel\", \"signingSecret\": \"" + SECRET + "\""));

        assertEquals(201, created.status(), created.toString());
        assertEquals(30, created.json().get("retentionDays").asInt());
        assertEquals("https://alerts.example.com/tickwheel", created.json().get("alertUrl").asText());
        assertTrue(created.json().get("signed").asBoolean());
        assertFalse(created.json().has("signingSecret"), created.toString());
        assertFalse(created.text().contains(SECRET), created.toString());
        Job stored = app.engine().jobs().get(created.json().get("id").asLong()).orElseThrow();
        assertEquals(SECRET, stored.operations().signingSecret());
    }

    @Test
    void create_withoutOperations_usesServerDefaults() {
        ApiClient.Reply created = api.post("/api/jobs", job(""));

        assertEquals(201, created.status(), created.toString());
        assertTrue(created.json().get("retentionDays").isNull(), created.toString());
        assertTrue(created.json().get("alertUrl").isNull(), created.toString());
        assertFalse(created.json().get("signed").asBoolean());
    }

    @Test
    void replace_withoutSecret_keepsIt_emptySecret_removesIt_newSecret_replacesIt() {
        String id = api.post("/api/jobs", job("\"signingSecret\": \"" + SECRET + "\"")).json().get("id").asText();

        ApiClient.Reply kept = api.put("/api/jobs/" + id, job("\"retentionDays\": 3"));
        assertEquals(200, kept.status(), kept.toString());
        assertTrue(kept.json().get("signed").asBoolean(), kept.toString());
        assertEquals(3, kept.json().get("retentionDays").asInt());
        assertEquals(SECRET, secretOf(id));

        ApiClient.Reply replaced = api.put("/api/jobs/" + id, job("\"signingSecret\": \"another-secret-0123456789\""));
        assertTrue(replaced.json().get("signed").asBoolean(), replaced.toString());
        assertEquals("another-secret-0123456789", secretOf(id));

        ApiClient.Reply removed = api.put("/api/jobs/" + id, job("\"signingSecret\": \"\""));
        assertEquals(200, removed.status(), removed.toString());
        assertFalse(removed.json().get("signed").asBoolean(), removed.toString());
        assertEquals(null, secretOf(id));
    }

    private static String secretOf(String id) {
        return app.engine().jobs().get(Long.parseLong(id)).orElseThrow().operations().signingSecret();
    }

    @Test
    void badOperations_are400sNamingTheField() {
        assertRefused(job("\"retentionDays\": 0"), "retentionDays");
        assertRefused(job("\"retentionDays\": 3651"), "retentionDays");
        assertRefused(job("\"retentionDays\": \"soon\""), "retentionDays");
        assertRefused(job("\"alertUrl\": \"ftp://example.com/x\""), "alertUrl");
        assertRefused(job("\"alertUrl\": \"not a url\""), "alertUrl");
        assertRefused(job("\"alertUrl\": \"/relative\""), "alertUrl");
        assertRefused(job("\"signingSecret\": \"short\""), "signingSecret");
        assertRefused(job("\"signingSecret\": \"0123456789abcdef\\u0007\""), "signingSecret");
        assertRefused(job("\"signingSecret\": \"" + "x".repeat(257) + "\""), "signingSecret");
    }

    private static void assertRefused(String body, String field) {
        ApiClient.Reply reply = api.post("/api/jobs", body);
        assertEquals(400, reply.status(), reply.toString());
        assertTrue(reply.message().contains("'" + field + "'"), "should name " + field + ": " + reply);
    }
}
