package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a token: every request needs {@code Authorization: Bearer <token>}, reads too; /health, /metrics, the console's
 * page and the API's documentation stay open.
 */
class ApiAuthTest {

    private static final String TOKEN = "s3cret-token";
    private static final String JOB = """
            {"name": "auth", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""";

    @TempDir
    static Path dir;

    static TickwheelApplication app;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, TOKEN, false);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void post_withoutToken_returns401() {
        ApiClient.Reply reply = new ApiClient(app.baseUrl()).post("/api/jobs", JOB);
        assertEquals(401, reply.status(), reply.toString());
        assertEquals("unauthorized", reply.error());
        assertTrue(reply.message().contains("Authorization"), reply.toString());
    }

    @Test
    void mutations_withWrongToken_return401AndWriteNothing() {
        ApiClient wrong = new ApiClient(app.baseUrl()).withToken("s3cret-tokeN");
        assertEquals(401, wrong.post("/api/jobs", JOB).status());
        assertEquals(401, wrong.put("/api/jobs/1", JOB).status());
        assertEquals(401, wrong.delete("/api/jobs/1").status());
        assertEquals(401, wrong.post("/api/instances/1/cancel", null).status());
        assertEquals(401, new ApiClient(app.baseUrl()).withToken("").post("/api/jobs", JOB).status());
        assertEquals(404, new ApiClient(app.baseUrl()).withToken(TOKEN).get("/api/jobs/1").status(),
                "nothing written");
    }

    @Test
    void mutations_withToken_succeed() {
        ApiClient client = new ApiClient(app.baseUrl()).withToken(TOKEN);
        ApiClient.Reply created = client.post("/api/jobs", JOB);
        assertEquals(201, created.status(), created.toString());
        String id = created.json().get("id").asText();
        assertEquals(201, client.post("/api/jobs/" + id + "/run", "{\"delayMs\": 60000}").status());
        assertEquals(200, client.post("/api/jobs/" + id + "/disable", null).status());
        assertEquals(204, client.delete("/api/jobs/" + id).status());
    }

    @Test
    void reads_withoutToken_return401_butHealthMetricsConsoleAndDocsStayOpen() {
        ApiClient anonymous = new ApiClient(app.baseUrl());
        ApiClient.Reply jobs = anonymous.get("/api/jobs");
        assertEquals(401, jobs.status(), jobs.toString());
        assertEquals("unauthorized", jobs.error());
        assertEquals(401, anonymous.get("/api/instances").status());
        assertEquals(401, anonymous.get("/api/instances/1").status());
        assertEquals(200, new ApiClient(app.baseUrl()).withToken(TOKEN).get("/api/jobs").status());
        assertEquals(200, anonymous.get("/health").status());
        assertEquals(200, anonymous.get("/metrics").status());
        assertEquals(200, anonymous.get("/").status());
        assertEquals(200, anonymous.get("/openapi.yaml").status());
    }

    @Test
    void settings_nonLoopbackHostWithoutToken_refusedWithReason() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new ApiSettings("0.0.0.0", 7700, null, false));
        assertTrue(refused.getMessage().contains("--token"), refused.getMessage());
        assertTrue(refused.getMessage().contains("0.0.0.0"), refused.getMessage());
        assertEquals("0.0.0.0", new ApiSettings("0.0.0.0", 7700, "t", false).host());
        assertEquals("localhost", new ApiSettings("localhost", 7700, null, false).host());
    }
}
