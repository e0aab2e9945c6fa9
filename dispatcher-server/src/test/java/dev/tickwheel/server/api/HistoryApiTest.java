package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history API against a real server (H2, no token): jobs searched by name and paged by an opaque cursor,
 * instances newest first with their job's name, lateness and filters, one instance with its attempts, and the 400s
 * of bad parameters, each naming its parameter in {@code field}.
 */
class HistoryApiTest {

    /** Nothing listens on the discard port: every call fails at once, so a retried job ends FAILED quickly. */
    private static final String REFUSING_URL = "http://127.0.0.1:9/refused";

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

    private static String createJob(String name, String extra) {
        ApiClient.Reply created = api.post("/api/jobs", """
                {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}%s}"""
                .formatted(name.replace("\\", "\\\\"), REFUSING_URL, extra));
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private static String runLater(String jobId) {
        ApiClient.Reply run = api.post("/api/jobs/" + jobId + "/run", "{\"delayMs\": 600000}");
        assertEquals(201, run.status(), run.toString());
        return run.json().get("instanceId").asText();
    }

    private static String query(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** The names of every job a search finds, following the cursor {@code limit} at a time. */
    private static List<String> searchedNames(String name, int limit) {
        return allItems("/api/jobs?name=" + query(name), limit).stream().map(job -> job.get("name").asText())
                .toList();
    }

    /** The ids of every instance a filter lets through, following the cursor {@code limit} at a time. */
    private static List<Long> listed(String filters, int limit) {
        return allItems("/api/instances?" + filters, limit).stream().map(item -> item.get("id").asLong()).toList();
    }

    /** Every item of a listing, page after page. */
    private static List<JsonNode> allItems(String pathAndQuery, int limit) {
        List<JsonNode> items = new ArrayList<>();
        String cursor = null;
        do {
            ApiClient.Reply page = api.get(pathAndQuery + "&limit=" + limit
                    + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, page.status(), page.toString());
            page.json().get("items").forEach(items::add);
            cursor = page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asText();
        } while (cursor != null);
        return items;
    }

    private static void assertBadParameter(String pathAndQuery, String code, String field, String mention) {
        ApiClient.Reply reply = api.get(pathAndQuery);
        assertEquals(400, reply.status(), reply.toString());
        assertEquals(code, reply.error(), reply.toString());
        assertEquals(field, reply.json().path("field").asText(null), reply.toString());
        assertTrue(reply.message().contains(mention), "message should mention '" + mention + "': " + reply);
    }

    // ---- jobs

    @Test
    void jobs_searchedByName_caseInsensitiveInNameOrderAcrossPages() {
        createJob("srch-beta", "");
        createJob("srch-alpha 2", "");
        createJob("srch-Alpha 1", "");
        createJob("srch-50% off", "");
        createJob("srch-500 off", "");
        createJob("srch_under", "");

        assertEquals(List.of("srch-Alpha 1", "srch-alpha 2"), searchedNames("SRCH-ALPHA", 1));
        assertEquals(List.of("srch-50% off"), searchedNames("0%", 10), "% matches itself");
        assertEquals(List.of("srch_under"), searchedNames("h_", 10), "_ matches itself");
        assertEquals(6, searchedNames("srch", 4).size());
        assertEquals(List.of(), searchedNames("srch-gamma", 10));
    }

    @Test
    void jobs_nextCursor_isOpaqueAndAMalformedOneIsA400NamingCursor() {
        createJob("opaque a", "");
        createJob("opaque b", "");
        ApiClient.Reply first = api.get("/api/jobs?name=opaque&limit=1");
        String cursor = first.json().get("nextCursor").asText();
        assertFalse(cursor.matches("[0-9]+"), "not an id: " + cursor);
        assertEquals("opaque b", api.get("/api/jobs?name=opaque&limit=1&cursor=" + cursor).json()
                .at("/items/0/name").asText());

        Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
        for (String bad : List.of("!!!", "abc", base64.encodeToString("12:".getBytes(StandardCharsets.UTF_8)),
                base64.encodeToString("x:name".getBytes(StandardCharsets.UTF_8)),
                base64.encodeToString("-3:name".getBytes(StandardCharsets.UTF_8)),
                base64.encodeToString("5:a\0b".getBytes(StandardCharsets.UTF_8)),
                base64.encodeToString(new byte[] {'5', ':', (byte) 0xC3, (byte) 0x28}))) {
            assertBadParameter("/api/jobs?cursor=" + query(bad), "invalid_field", "cursor", "cursor");
        }
        assertBadParameter("/api/jobs?name=" + "n".repeat(201), "invalid_field", "name", "200");
        assertBadParameter("/api/jobs?name=a%00b", "invalid_field", "name", "NUL");
        assertBadParameter("/api/jobs?limit=1001", "invalid_field", "limit", "1001");
    }

    // ---- instances

    @Test
    void instances_newestFirstWithJobNameAndNoLatenessWhileWaiting() {
        String jobId = createJob("newest first", "");
        List<String> runs = List.of(runLater(jobId), runLater(jobId), runLater(jobId));

        JsonNode page = api.get("/api/instances?jobId=" + jobId).json();

        List<String> ids = new ArrayList<>();
        page.get("items").forEach(item -> ids.add(item.get("id").asText()));
        assertEquals(List.of(runs.get(2), runs.get(1), runs.get(0)), ids);
        for (JsonNode item : page.get("items")) {
            assertEquals("newest first", item.get("jobName").asText());
            assertTrue(item.get("latenessMs").isNull(), item.toString());
            assertFalse(item.has("attempts"), "attempts only in the answer about one instance: " + item);
        }
        assertEquals(204, api.delete("/api/jobs/" + jobId).status());
        JsonNode orphan = api.get("/api/instances?jobId=" + jobId + "&limit=1").json().at("/items/0");
        assertTrue(orphan.get("jobName").isNull(), "the job is deleted: " + orphan);
        assertEquals("CANCELLED", orphan.get("status").asText());
    }

    @Test
    void instances_filtersCombine_creationTimeRangeFromInclusiveToExclusive() {
        String jobId = createJob("filtered", "");
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            runs.add(Long.parseLong(runLater(jobId)));
        }
        assertEquals(200, api.post("/api/instances/" + runs.get(4) + "/cancel", null).status());
        Instant from = SnowflakeIdGenerator.timestampOf(runs.get(1));
        Instant to = SnowflakeIdGenerator.timestampOf(runs.get(5));
        // The oracle: the runs created in [from, to), newest first; the bounds are the runs' own creation times, so
        // runs created in the same millisecond as a bound fall on its side by the rule (from in, to out).
        List<Long> expected = runs.stream()
                .filter(id -> !SnowflakeIdGenerator.timestampOf(id).isBefore(from)
                        && SnowflakeIdGenerator.timestampOf(id).isBefore(to))
                .sorted(java.util.Comparator.reverseOrder()).toList();
        assertTrue(expected.contains(runs.get(1)) && !expected.contains(runs.get(5)), expected.toString());

        assertEquals(expected, listed("jobId=" + jobId + "&from=" + from + "&to=" + to, 2));
        assertEquals(expected.stream().filter(id -> !id.equals(runs.get(4))).toList(),
                listed("jobId=" + jobId + "&status=waiting&from=" + from + "&to=" + to, 1));
        assertEquals(List.of(runs.get(4)), listed("jobId=" + jobId + "&status=CANCELLED", 5));
        assertEquals(List.of(), listed("jobId=" + jobId + "&from=" + to + "&to=" + to, 5), "an empty range");
    }

    @Test
    void instances_badParameters_are400sNamingTheParameter() {
        assertBadParameter("/api/instances?from=yesterday", "invalid_field", "from", "yesterday");
        assertBadParameter("/api/instances?to=2026-13-01T00:00:00Z", "invalid_field", "to", "2026-13-01");
        assertBadParameter("/api/instances?from=2026-11-25T10:00:00Z&to=2026-11-25T09:00:00Z", "invalid_field",
                "from", "'to'");
        assertBadParameter("/api/instances?status=DONE", "invalid_field", "status", "DONE");
        assertBadParameter("/api/instances?jobId=x1", "invalid_id", "jobId", "x1");
        assertBadParameter("/api/instances?cursor=zz", "invalid_field", "cursor", "zz");
        assertBadParameter("/api/instances?cursor=-4", "invalid_field", "cursor", "-4");
        assertBadParameter("/api/instances?limit=0", "invalid_field", "limit", "0");
        assertBadParameter("/api/instances/abc", "invalid_id", "id", "abc");
        // Far outside the id range, still valid: nothing was created then.
        assertEquals(0, api.get("/api/instances?from=2100-01-01T00:00:00Z").json().get("items").size());
        assertEquals(200, api.get("/api/instances?from=1900-01-01T00:00:00Z&to=%2B1000000-01-01T00:00:00Z").status());
    }

    @Test
    void instance_retriedUntilFailed_showsEveryAttempt() {
        String jobId = createJob("always refused", ", \"retry\": {\"maxAttempts\": 3, \"backoffMs\": 0}");
        ApiClient.Reply run = api.post("/api/jobs/" + jobId + "/run", null);
        String instanceId = run.json().get("instanceId").asText();
        Await.until("the third attempt failed", Duration.ofSeconds(20),
                () -> "FAILED".equals(api.get("/api/instances/" + instanceId).json().path("status").asText()));

        JsonNode instance = api.get("/api/instances/" + instanceId).json();

        assertEquals("always refused", instance.get("jobName").asText());
        assertTrue(instance.get("latenessMs").asLong() >= 0, "never early: " + instance);
        JsonNode attempts = instance.get("attempts");
        assertEquals(3, attempts.size(), instance.toString());
        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            JsonNode attempt = attempts.get(i);
            outcomes.add(attempt.get("outcome").asText());
            assertEquals(i + 1, attempt.get("attempt").asInt());
            assertFalse(attempt.get("startedAt").isNull(), attempt.toString());
            assertFalse(attempt.get("endedAt").isNull(), attempt.toString());
            assertFalse(attempt.get("error").asText("").isEmpty(), attempt.toString());
            assertTrue(attempt.get("node").isInt() && attempt.get("epoch").isNumber(), attempt.toString());
            assertTrue(attempt.get("latenessMs").asLong() >= 0, attempt.toString());
        }
        assertEquals(List.of("RETRIED", "RETRIED", "FAILED"), outcomes);
        assertEquals(instance.get("actualTriggerTime"), attempts.get(2).get("startedAt"), "the row is the last");
        assertNotEquals(attempts.get(0).get("startedAt"), attempts.get(2).get("startedAt"));

        JsonNode waiting = api.get("/api/instances/" + runLater(jobId)).json();
        assertEquals(0, waiting.get("attempts").size(), "never claimed: " + waiting);
    }
}
