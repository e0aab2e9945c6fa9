package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's {@code priority} and {@code pool} and a run's {@code priority} over HTTP against a whole server (H2): shown
 * back as stored, defaults, every refused value a 400 naming its field with nothing stored, and a pool in use that
 * cannot be deleted.
 */
class JobPriorityAndPoolApiTest {

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

    private static String job(String name, String extra) {
        return """
                {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK",
                 "url": "http://127.0.0.1:9/none"}%s}""".formatted(name, extra);
    }

    @Test
    void job_priorityAndPool_storedAndShown_defaultsFivAndNone_overLimitSkipWithAPool() {
        assertEquals(201, api.post("/api/pools", "{\"name\": \"partners\", \"maxConcurrent\": 3}").status());
        ApiClient.Reply plain = api.post("/api/jobs", job("plain", ""));
        assertEquals(201, plain.status(), plain.toString());
        assertEquals(5, plain.json().get("priority").asInt(), "the default priority");
        assertTrue(plain.json().get("pool").isNull(), plain.toString());

        ApiClient.Reply pooled = api.post("/api/jobs", job("pooled",
                ", \"priority\": 8, \"pool\": \"partners\", \"overLimit\": \"SKIP\""));
        assertEquals(201, pooled.status(), pooled.toString());
        assertEquals(8, pooled.json().get("priority").asInt());
        assertEquals("partners", pooled.json().get("pool").asText());
        assertEquals("SKIP", pooled.json().get("overLimit").asText(), "SKIP applies to the pool's limits");
        String id = pooled.json().get("id").asText();
        assertEquals(pooled.json(), api.get("/api/jobs/" + id).json());

        ApiClient.Reply inUse = api.delete("/api/pools/partners");
        assertEquals(409, inUse.status(), inUse.toString());
        assertEquals("pool_in_use", inUse.error());

        ApiClient.Reply moved = api.put("/api/jobs/" + id, job("pooled", ", \"priority\": 2"));
        assertEquals(200, moved.status(), moved.toString());
        assertEquals(2, moved.json().get("priority").asInt());
        assertTrue(moved.json().get("pool").isNull(), "a replace without pool leaves the pool");
        assertEquals(204, api.delete("/api/pools/partners").status(), "no job names it any more");
    }

    @Test
    void job_badPriorityOrUnknownPoolOrSkipWithoutALimit_400NamingTheField_nothingStored() {
        int before = api.get("/api/jobs").json().get("items").size();
        assertBad(job("bad", ", \"priority\": 10"), "priority");
        assertBad(job("bad", ", \"priority\": -1"), "priority");
        assertBad(job("bad", ", \"pool\": \"nope\""), "pool");
        assertBad(job("bad", ", \"overLimit\": \"SKIP\""), "overLimit");
        assertEquals(before, api.get("/api/jobs").json().get("items").size(), "nothing was stored");
    }

    @Test
    void run_ownPriority_shownOnItsInstance_badOne400NamingTheField() {
        String jobId = api.post("/api/jobs", job("runs", "")).json().get("id").asText();
        ApiClient.Reply urgent = api.post("/api/jobs/" + jobId + "/run", "{\"delayMs\": 600000, \"priority\": 9}");
        assertEquals(201, urgent.status(), urgent.toString());
        JsonNode instance = api.get("/api/instances/" + urgent.json().get("instanceId").asText()).json();
        assertEquals(9, instance.get("priority").asInt(), instance.toString());

        ApiClient.Reply ordinary = api.post("/api/jobs/" + jobId + "/run", "{\"delayMs\": 600000}");
        JsonNode plain = api.get("/api/instances/" + ordinary.json().get("instanceId").asText()).json();
        assertFalse(plain.has("priority"), "absent: the job's: " + plain);

        ApiClient.Reply bad = api.post("/api/jobs/" + jobId + "/run", "{\"priority\": 12}");
        assertEquals(400, bad.status(), bad.toString());
        assertEquals("priority", bad.json().get("field").asText());
        ApiClient.Reply badInBatch = api.post("/api/jobs/" + jobId + "/runs",
                "{\"runs\": [{\"priority\": 3}, {\"priority\": 99}]}");
        assertEquals(400, badInBatch.status(), badInBatch.toString());
        assertEquals("runs[1].priority", badInBatch.json().get("field").asText());
    }

    private static void assertBad(String body, String field) {
        ApiClient.Reply reply = api.post("/api/jobs", body);
        assertEquals(400, reply.status(), reply.toString());
        assertEquals(field, reply.json().get("field").asText(), reply.toString());
    }
}
