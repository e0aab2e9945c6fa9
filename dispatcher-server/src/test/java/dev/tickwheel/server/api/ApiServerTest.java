package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every route and every client error against a real server on a random port with an H2 store, without a token. */
class ApiServerTest {

    @TempDir
    static Path dir;

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

    private static String apiJob(String name) {
        return """
                {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}}
                """.formatted(name, webhook.url());
    }

    private static String createApiJob(String name) {
        ApiClient.Reply created = api.post("/api/jobs", apiJob(name));
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private static long jobCount() {
        return api.get("/api/jobs?limit=1000").json().get("items").size();
    }

    private static void assertClientError(ApiClient.Reply reply, int status, String code, String... mentions) {
        assertEquals(status, reply.status(), reply.toString());
        assertEquals(code, reply.error(), reply.toString());
        for (String mention : mentions) {
            assertTrue(reply.message().contains(mention), "message should mention '" + mention + "': " + reply);
        }
    }

    // ---- jobs

    @Test
    void createJob_cron_returns201WithStringIdAndNextTriggerTime() {
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "nightly", "schedule": {"type": "CRON", "expression": "0 0 2 * * ?", "zone": "Europe/Berlin"},
                 "target": {"type": "WEBHOOK", "url": "%s"}, "params": {"dryRun": true},
                 "misfirePolicy": "SKIP", "retry": {"maxAttempts": 3, "backoffMs": 1000}}
                """.formatted(webhook.url()));
        assertEquals(201, reply.status(), reply.toString());
        JsonNode job = reply.json();
        assertTrue(job.get("id").isTextual(), "IDs travel as strings: " + job);
        assertTrue(Long.parseLong(job.get("id").asText()) > 0);
        assertTrue(Instant.parse(job.get("nextTriggerTime").asText()).isAfter(Instant.now()));
        assertEquals("Europe/Berlin", job.at("/schedule/zone").asText());
        assertEquals(true, job.at("/params/dryRun").asBoolean());
        assertEquals(3, job.at("/retry/maxAttempts").asInt());
        assertEquals("SKIP", job.get("misfirePolicy").asText());
    }

    @Test
    void createJob_deliveryPolicy_roundTripsAndAGetBodyCanBePutBack() {
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "careful", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"},
                 "delivery": "AT_MOST_ONCE", "timeoutMs": 2500, "maxConcurrent": 2, "overLimit": "SKIP"}
                """.formatted(webhook.url()));
        assertEquals(201, reply.status(), reply.toString());
        JsonNode job = reply.json();
        assertEquals("AT_MOST_ONCE", job.get("delivery").asText());
        assertEquals(2500, job.get("timeoutMs").asLong());
        assertEquals(2, job.get("maxConcurrent").asInt());
        assertEquals("SKIP", job.get("overLimit").asText());

        JsonNode defaults = api.get("/api/jobs/" + createApiJob("defaults")).json();
        assertEquals("AT_LEAST_ONCE", defaults.get("delivery").asText());
        assertTrue(defaults.get("timeoutMs").isNull(), "the server's deadline: " + defaults);
        assertTrue(defaults.get("maxConcurrent").isNull(), "no limit: " + defaults);
        assertTrue(defaults.get("overLimit").isNull(), "no limit, nothing over it: " + defaults);
        String body = """
                {"name": "defaults again", "schedule": {"type": "API"}, "target": %s, "delivery": %s,
                 "timeoutMs": null, "maxConcurrent": null, "overLimit": null}"""
                .formatted(defaults.get("target"), defaults.get("delivery"));
        assertEquals(200, api.put("/api/jobs/" + defaults.get("id").asText(), body).status());
    }

    @Test
    void createJob_retryCurveAndDelayList_roundTripInTheirOwnForm_andAGetBodyCanBePutBack() {
        JsonNode curve = api.post("/api/jobs", """
                {"name": "curve", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"},
                 "retry": {"maxAttempts": 6, "backoffMs": 1000, "multiplier": 2.5, "maxBackoffMs": 60000,
                           "jitter": "full"}}
                """.formatted(webhook.url())).json();
        assertEquals(6, curve.at("/retry/maxAttempts").asInt(), curve.toString());
        assertEquals(1000, curve.at("/retry/backoffMs").asLong());
        assertEquals(2.5, curve.at("/retry/multiplier").asDouble());
        assertEquals(60000, curve.at("/retry/maxBackoffMs").asLong());
        assertEquals("FULL", curve.at("/retry/jitter").asText());
        assertTrue(curve.at("/retry/delaysMs").isMissingNode(), "a curve has no list: " + curve);

        JsonNode list = api.post("/api/jobs", """
                {"name": "list", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"},
                 "retry": {"maxAttempts": 4, "delaysMs": [1000, 60000, 600000], "jitter": "EQUAL"}}
                """.formatted(webhook.url())).json();
        JsonNode stored = api.get("/api/jobs/" + list.get("id").asText()).json();
        assertEquals("[1000,60000,600000]", stored.at("/retry/delaysMs").toString(), stored.toString());
        assertEquals("EQUAL", stored.at("/retry/jitter").asText());
        assertTrue(stored.at("/retry/backoffMs").isMissingNode(), "a list has no curve: " + stored);
        assertTrue(stored.at("/retry/multiplier").isMissingNode(), "a list has no curve: " + stored);

        for (JsonNode job : List.of(curve, stored)) {
            String body = """
                    {"name": "%s again", "schedule": {"type": "API"}, "target": %s, "retry": %s}"""
                    .formatted(job.get("name").asText(), job.get("target"), job.get("retry"));
            ApiClient.Reply put = api.put("/api/jobs/" + job.get("id").asText(), body);
            assertEquals(200, put.status(), put.toString());
            assertEquals(job.get("retry"), put.json().get("retry"));
        }

        JsonNode plain = api.get("/api/jobs/" + createApiJob("plain")).json();
        assertEquals(1, plain.at("/retry/maxAttempts").asInt(), plain.toString());
        assertEquals(1.0, plain.at("/retry/multiplier").asDouble());
        assertEquals("NONE", plain.at("/retry/jitter").asText());
    }

    @Test
    void createJob_scheduleWindowAndJitter_roundTrip_andTheFirstTriggerIsTheStart() {
        JsonNode job = api.post("/api/jobs", """
                {"name": "windowed", "schedule": {"type": "CRON", "expression": "0 0 * * * ?", "jitterMs": 600000,
                  "spread": true, "startAt": "2031-01-01T00:00:00Z", "endAt": "2031-12-31T00:00:00Z", "maxRuns": 5},
                 "target": {"type": "WEBHOOK", "url": "%s"}}
                """.formatted(webhook.url())).json();
        JsonNode schedule = api.get("/api/jobs/" + job.get("id").asText()).json().get("schedule");
        assertEquals(600000, schedule.get("jitterMs").asLong(), schedule.toString());
        assertTrue(schedule.get("spread").asBoolean());
        assertEquals("2031-01-01T00:00:00Z", schedule.get("startAt").asText());
        assertEquals("2031-12-31T00:00:00Z", schedule.get("endAt").asText());
        assertEquals(5, schedule.get("maxRuns").asInt());
        assertEquals("2031-01-01T00:00:00Z", job.get("nextTriggerTime").asText(), "nothing before the start");

        JsonNode ended = api.post("/api/jobs", """
                {"name": "over", "schedule": {"type": "CRON", "expression": "0 0 * * * ?",
                  "endAt": "2020-01-01T00:00:00Z"}, "target": {"type": "WEBHOOK", "url": "%s"}}
                """.formatted(webhook.url())).json();
        assertTrue(ended.get("nextTriggerTime").isNull(), "a window that has ended: " + ended);

        JsonNode plain = api.get("/api/jobs/" + createApiJob("no window")).json().get("schedule");
        assertTrue(plain.get("jitterMs") == null && plain.get("maxRuns") == null, "unused fields left out: " + plain);
    }

    @Test
    void createJob_badDeliveryFields_return400NamingTheField() {
        String target = "{\"type\": \"WEBHOOK\", \"url\": \"" + webhook.url() + "\"}";
        String base = "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": " + target + ", ";
        assertClientError(api.post("/api/jobs", base + "\"delivery\": \"EXACTLY_ONCE\"}"), 400, "invalid_field",
                "delivery", "AT_LEAST_ONCE");
        assertClientError(api.post("/api/jobs", base + "\"timeoutMs\": 0}"), 400, "invalid_field", "timeoutMs");
        assertClientError(api.post("/api/jobs", base + "\"timeoutMs\": 3600001}"), 400, "invalid_field",
                "timeoutMs");
        assertClientError(api.post("/api/jobs", base + "\"maxConcurrent\": 0}"), 400, "invalid_field",
                "maxConcurrent");
        assertClientError(api.post("/api/jobs", base + "\"overLimit\": \"SKIP\"}"), 400, "invalid_field",
                "overLimit", "maxConcurrent");
        assertClientError(api.post("/api/jobs", base + "\"maxConcurrent\": 1, \"overLimit\": \"DROP\"}"), 400,
                "invalid_field", "overLimit");
    }

    @Test
    void getJob_existing_returnsIt() {
        String id = createApiJob("get me");
        ApiClient.Reply reply = api.get("/api/jobs/" + id);
        assertEquals(200, reply.status(), reply.toString());
        assertEquals("get me", reply.json().get("name").asText());
    }

    @Test
    void listJobs_withLimit_pagesByCursor() {
        createApiJob("page a");
        createApiJob("page b");
        ApiClient.Reply first = api.get("/api/jobs?limit=1");
        assertEquals(200, first.status(), first.toString());
        assertEquals(1, first.json().get("items").size());
        String cursor = first.json().get("nextCursor").asText();
        ApiClient.Reply second = api.get("/api/jobs?limit=1&cursor=" + cursor);
        assertEquals(1, second.json().get("items").size());
        assertFalse(first.json().at("/items/0/id").asText().equals(second.json().at("/items/0/id").asText()));
    }

    @Test
    void updateJob_newName_returnsUpdatedJob() {
        String id = createApiJob("before");
        ApiClient.Reply reply = api.put("/api/jobs/" + id, apiJob("after"));
        assertEquals(200, reply.status(), reply.toString());
        assertEquals("after", api.get("/api/jobs/" + id).json().get("name").asText());
    }

    @Test
    void disableThenEnable_flipsEnabled() {
        String id = createApiJob("toggle");
        ApiClient.Reply disabled = api.post("/api/jobs/" + id + "/disable", null);
        assertEquals(200, disabled.status(), disabled.toString());
        assertFalse(disabled.json().get("enabled").asBoolean());
        ApiClient.Reply enabled = api.post("/api/jobs/" + id + "/enable", null);
        assertEquals(200, enabled.status(), enabled.toString());
        assertTrue(enabled.json().get("enabled").asBoolean());
    }

    @Test
    void deleteJob_withWaitingInstance_returns204AndCancelsIt() {
        String id = createApiJob("to delete");
        String instanceId = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 600000}").json()
                .get("instanceId").asText();
        assertEquals(204, api.delete("/api/jobs/" + id).status());
        assertEquals(404, api.get("/api/jobs/" + id).status());
        assertEquals("CANCELLED", api.get("/api/instances/" + instanceId).json().get("status").asText());
    }

    @Test
    void runJob_withDelayAndParams_returns201AndWaitingInstance() {
        String id = createApiJob("run me");
        Instant before = Instant.now();
        ApiClient.Reply run = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 600000, \"params\": {\"a\": 1}}");
        assertEquals(201, run.status(), run.toString());
        assertTrue(run.json().get("instanceId").isTextual());
        Instant due = Instant.parse(run.json().get("expectedTriggerTime").asText());
        // The store keeps milliseconds: compare at that precision.
        Instant earliest = before.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).plusSeconds(600);
        assertTrue(!due.isBefore(earliest), "due " + due);
        JsonNode instance = api.get("/api/instances/" + run.json().get("instanceId").asText()).json();
        assertEquals("WAITING", instance.get("status").asText());
        assertEquals(id, instance.get("jobId").asText());
        assertEquals(1, instance.at("/params/a").asInt());
        assertEquals(0, instance.get("attempt").asInt());
        assertTrue(instance.get("actualTriggerTime").isNull());
    }

    @Test
    void runJob_withoutBody_firesNowAndDelivers() {
        String id = createApiJob("now");
        ApiClient.Reply run = api.post("/api/jobs/" + id + "/run", null);
        assertEquals(201, run.status(), run.toString());
        String instanceId = run.json().get("instanceId").asText();
        Await.until("instance " + instanceId + " succeeded", Duration.ofSeconds(10),
                () -> "SUCCEEDED".equals(api.get("/api/instances/" + instanceId).json().get("status").asText()));
        assertEquals(1, webhook.deliveriesOf(instanceId));
    }

    // ---- instances

    @Test
    void listInstances_byJobStatusLimitCursor_pages() {
        String id = createApiJob("many");
        for (int i = 0; i < 3; i++) {
            api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 600000}");
        }
        ApiClient.Reply first = api.get("/api/instances?jobId=" + id + "&status=waiting&limit=2");
        assertEquals(200, first.status(), first.toString());
        assertEquals(2, first.json().get("items").size());
        String cursor = first.json().get("nextCursor").asText();
        ApiClient.Reply rest = api.get("/api/instances?jobId=" + id + "&status=WAITING&limit=2&cursor=" + cursor);
        assertEquals(1, rest.json().get("items").size());
        assertTrue(rest.json().get("nextCursor").isNull());
    }

    @Test
    void cancel_waitingInstance_returns200ThenAlreadyFinished409() {
        String id = createApiJob("cancel me");
        String instanceId = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 600000}").json()
                .get("instanceId").asText();
        ApiClient.Reply cancelled = api.post("/api/instances/" + instanceId + "/cancel", null);
        assertEquals(200, cancelled.status(), cancelled.toString());
        assertEquals("CANCELLED", cancelled.json().get("outcome").asText());
        ApiClient.Reply again = api.post("/api/instances/" + instanceId + "/cancel", null);
        assertEquals(409, again.status(), again.toString());
        assertEquals("ALREADY_FINISHED", again.json().get("outcome").asText());
    }

    @Test
    void cancel_instanceInFlight_returns409AlreadyDispatched() {
        String id = createApiJob("in flight");
        webhook.hold();
        try {
            int arrivedBefore = webhook.arrived();
            String instanceId = api.post("/api/jobs/" + id + "/run", "{}").json().get("instanceId").asText();
            Await.until("the webhook call started", Duration.ofSeconds(10), () -> webhook.arrived() > arrivedBefore);
            ApiClient.Reply reply = api.post("/api/instances/" + instanceId + "/cancel", null);
            assertEquals(409, reply.status(), reply.toString());
            assertEquals("ALREADY_DISPATCHED", reply.json().get("outcome").asText());
        } finally {
            webhook.release();
        }
    }

    @Test
    void unknownIds_return404() {
        assertClientError(api.get("/api/jobs/999"), 404, "not_found", "999");
        assertClientError(api.put("/api/jobs/999", apiJob("x")), 404, "not_found", "999");
        assertClientError(api.delete("/api/jobs/999"), 404, "not_found", "999");
        assertClientError(api.post("/api/jobs/999/enable", null), 404, "not_found", "999");
        assertClientError(api.post("/api/jobs/999/disable", null), 404, "not_found", "999");
        assertClientError(api.post("/api/jobs/999/run", "{}"), 404, "not_found", "999");
        assertClientError(api.get("/api/instances/999"), 404, "not_found", "999");
        assertClientError(api.post("/api/instances/999/cancel", null), 404, "not_found", "999");
        assertClientError(api.get("/no/such/route"), 404, "not_found", "/no/such/route");
    }

    @Test
    void malformedIds_return400NamingTheParameter() {
        assertClientError(api.get("/api/jobs/abc"), 400, "invalid_id", "'id'", "abc");
        assertClientError(api.get("/api/instances/-5"), 400, "invalid_id", "-5");
        assertClientError(api.get("/api/instances?jobId=x1"), 400, "invalid_id", "jobId", "x1");
        assertClientError(api.get("/api/instances?cursor=zz"), 400, "invalid_field", "cursor", "zz");
        assertClientError(api.get("/api/instances?status=DONE"), 400, "invalid_field", "status", "DONE");
        assertClientError(api.get("/api/instances?limit=0"), 400, "invalid_field", "limit", "0");
        assertClientError(api.get("/api/jobs?limit=5000"), 400, "invalid_field", "limit", "5000");
    }

    // ---- bad bodies: each names the field and the value, and writes nothing

    @Test
    void createJob_invalidCron_returns400NamingExpression() {
        long before = jobCount();
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "bad", "schedule": {"type": "CRON", "expression": "0 0 25 * * ?"},
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(webhook.url()));
        assertClientError(reply, 400, "invalid_schedule", "schedule.expression");
        assertEquals(before, jobCount(), "nothing written");
    }

    @Test
    void createJob_unknownZone_returns400NamingZone() {
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "bad", "schedule": {"type": "CRON", "expression": "0 0 2 * * ?", "zone": "Mars/Olympus"},
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(webhook.url()));
        assertClientError(reply, 400, "invalid_schedule", "schedule.zone", "Mars/Olympus");
    }

    @Test
    void createJob_unknownScheduleType_returns400NamingType() {
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "bad", "schedule": {"type": "HOURLY"}, "target": {"type": "WEBHOOK", "url": "%s"}}"""
                .formatted(webhook.url()));
        assertClientError(reply, 400, "invalid_schedule", "schedule.type", "HOURLY");
    }

    @Test
    void createJob_negativeFixedDelay_returns400NamingDelayMs() {
        long before = jobCount();
        ApiClient.Reply reply = api.post("/api/jobs", """
                {"name": "bad", "schedule": {"type": "FIXED_DELAY", "delayMs": -5},
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(webhook.url()));
        assertClientError(reply, 400, "invalid_schedule", "schedule.delayMs", "-5");
        assertEquals(before, jobCount(), "nothing written");
    }

    @Test
    void runJob_negativeDelay_returns400AndCreatesNoInstance() {
        String id = createApiJob("negative");
        ApiClient.Reply reply = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": -1}");
        assertClientError(reply, 400, "invalid_field", "delayMs", "-1");
        assertEquals(0, api.get("/api/instances?jobId=" + id).json().get("items").size());
    }

    @Test
    void runJob_absurdDelay_returns400() {
        String id = createApiJob("absurd");
        assertClientError(api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 9223372036854775807}"), 400,
                "invalid_field", "delayMs");
    }

    @Test
    void createJob_missingFields_return400NamingEach() {
        assertClientError(api.post("/api/jobs", "{\"schedule\": {\"type\": \"API\"}}"), 400, "missing_field",
                "'name'");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\"}"), 400, "missing_field", "'schedule'");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}}"), 400,
                "missing_field", "'target'");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {}, \"target\": "
                + "{\"type\": \"WEBHOOK\", \"url\": \"http://h/\"}}"), 400, "invalid_schedule", "schedule.type");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, "
                + "\"target\": {\"type\": \"WEBHOOK\"}}"), 400, "missing_field", "target.url");
        assertClientError(api.post("/api/jobs", ""), 400, "missing_body");
    }

    @Test
    void createJob_malformedJson_returns400() {
        assertClientError(api.post("/api/jobs", "{\"name\": "), 400, "malformed_json");
        assertClientError(api.post("/api/jobs", "[1, 2]"), 400, "malformed_json");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\"} trailing"), 400, "malformed_json");
    }

    @Test
    void createJob_wrongTypesAndUnknownFields_return400NamingTheField() {
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"FIXED_RATE\", "
                + "\"periodMs\": \"soon\"}}"), 400, "invalid_field", "schedule.periodMs", "soon");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"ONE_SHOT\", "
                + "\"at\": \"tomorrow\"}}"), 400, "invalid_field", "schedule.at", "tomorrow");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"shedule\": {}}"), 400, "unknown_field",
                "shedule");
        for (String notABoolean : new String[] {"\"yes\"", "\"true\"", "1", "\"\""}) {
            String job = "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                    + " \"url\": \"http://127.0.0.1:9/\"}, \"enabled\": " + notABoolean + "}";
            assertClientError(api.post("/api/jobs", job), 400, "invalid_field", "'enabled'", "true or false");
        }
        assertClientError(api.post("/api/jobs", "{\"name\": \"a\\u0000b\", \"schedule\": {\"type\": \"API\"}}"),
                400, "invalid_field", "'name'", "NUL");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": "
                + "{\"type\": \"WEBHOOK\", \"url\": \"http://h/\\u0000\"}}"), 400, "invalid_field", "'target.url'", "NUL");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, "
                + "\"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://h/\"}, \"misfirePolicy\": \"NEVER\"}"),
                400, "invalid_field", "misfirePolicy", "NEVER");
        assertClientError(api.post("/api/jobs", "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, "
                + "\"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://h/\"}, \"retry\": {\"maxAttempts\": 0}}"),
                400, "invalid_field", "retry.maxAttempts", "0");
    }

    @Test
    void createJob_nonHttpWebhook_returns400() {
        for (String url : List.of("ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "/relative")) {
            assertClientError(api.post("/api/jobs", """
                    {"name": "x", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}}"""
                    .formatted(url)), 400, "invalid_target", "target.url");
        }
        assertClientError(api.post("/api/jobs", """
                {"name": "x", "schedule": {"type": "API"}, "target": {"type": "FTP", "url": "x"}}"""), 400,
                "invalid_target", "target.type", "FTP");
        assertClientError(api.post("/api/jobs", """
                {"name": "x", "schedule": {"type": "API"}, "target": {"type": "HANDLER", "name": "nope"}}"""), 400,
                "invalid_target", "target.name", "nope");
    }

    @Test
    void createJob_bodyOver64KiB_returns413() {
        String big = "{\"name\": \"" + "x".repeat(70 * 1024) + "\"}";
        assertClientError(api.post("/api/jobs", big), 413, "payload_too_large", "65536");
        String id = createApiJob("big run");
        assertClientError(api.post("/api/jobs/" + id + "/run", "{\"params\": \"" + "y".repeat(65 * 1024) + "\"}"),
                413, "payload_too_large");
    }

    @Test
    void mutatingRoutes_fuzzedBodies_neverAnswer5xx() {
        String id = createApiJob("fuzz target");
        List<String> bodies = List.of("", " ", "null", "0", "\"text\"", "[]", "{", "}", "{\"name\": null}",
                "{\"name\": 1e999}", "{\"delayMs\": 1.5}", "{\"delayMs\": \"9999999999999999999999\"}",
                "{\"name\": \"a\", \"schedule\": {\"type\": null}}", "{\"schedule\": []}", "{\"target\": 5}",
                "{\"name\": \"\\u0000\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"* * * * * * * *\"},"
                        + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://[::1\"}}",
                "{\"name\": \"x\", \"schedule\": {\"type\": \"FIXED_RATE\", \"periodMs\": 9223372036854775807},"
                        + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://h/\"}}",
                "{\"name\": \"x\", \"schedule\": {\"type\": \"ONE_SHOT\", \"at\": \"+999999999-12-31T23:59:59Z\"},"
                        + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://h/\"}}",
                "{\"name\": \"" + "n".repeat(300) + "\", \"schedule\": {\"type\": \"API\"},"
                        + " \"target\": {\"type\": \"HANDLER\", \"name\": \"\"}}",
                "\u00ff\u00fe garbage", "{\"params\": {\"deep\": " + "[".repeat(2000) + "]".repeat(2000) + "}}");
        for (String body : bodies) {
            for (String[] route : List.of(new String[] {"POST", "/api/jobs"}, new String[] {"PUT", "/api/jobs/" + id},
                    new String[] {"POST", "/api/jobs/" + id + "/run"})) {
                ApiClient.Reply reply = api.send(route[0], route[1], body);
                assertTrue(reply.status() < 500, route[0] + " " + route[1] + " with " + abbreviate(body)
                        + " answered " + reply);
                if (reply.status() >= 400) {
                    assertNotNull(reply.error(), "error code in " + reply);
                    assertFalse(reply.message().isBlank(), "message in " + reply);
                }
            }
        }
    }

    private static String abbreviate(String body) {
        return body.length() > 80 ? body.substring(0, 80) + "…" : body;
    }

    // ---- health, metrics, dashboard

    @Test
    void health_running_returns200WithDetails() {
        ApiClient.Reply reply = api.get("/health");
        assertEquals(200, reply.status(), reply.toString());
        assertEquals("UP", reply.json().get("status").asText());
        assertEquals("UP", reply.json().get("store").asText());
        assertEquals("UP", reply.json().get("wheels").asText());
        assertTrue(reply.json().get("loaderRuns").asLong() >= 1);
    }

    @Test
    void metrics_afterDispatch_exposeEngineAndDispatchMeters() {
        String id = createApiJob("metrics");
        String instanceId = api.post("/api/jobs/" + id + "/run", "{}").json().get("instanceId").asText();
        Await.until("instance delivered", Duration.ofSeconds(10), () -> webhook.deliveriesOf(instanceId) == 1);
        Await.until("success counted", Duration.ofSeconds(10), () -> api.get("/metrics").text()
                .lines().anyMatch(l -> l.startsWith("tickwheel_dispatch_total{outcome=\"success\",target=\"WEBHOOK\"}")
                        && !l.endsWith(" 0.0")));
        ApiClient.Reply reply = api.get("/metrics");
        assertEquals(200, reply.status());
        assertTrue(reply.contentType().startsWith("text/plain"), reply.contentType());
        for (String name : List.of("tickwheel_timer_scheduled_total{wheel=\"precise\"}",
                "tickwheel_timer_scheduled_total{wheel=\"coarse\"}", "tickwheel_timer_fired_total{wheel=\"precise\"}",
                "tickwheel_timer_cancelled_total{wheel=\"precise\"}", "tickwheel_timer_deferred_total{wheel=\"precise\"}",
                "tickwheel_fire_lateness_seconds_bucket{le=\"0.001\"}", "tickwheel_fire_lateness_seconds_count",
                "tickwheel_wheel_pending{wheel=\"precise\"}", "tickwheel_wheel_pending{wheel=\"coarse\"}",
                "tickwheel_dispatch_queue_depth", "tickwheel_loader_runs_total", "tickwheel_loader_failures_total",
                "tickwheel_loader_duration_seconds_count", "tickwheel_loader_duration_seconds_sum",
                "tickwheel_dispatch_total{outcome=\"failure\",target=\"WEBHOOK\"}",
                "tickwheel_dispatch_total{outcome=\"retry\",target=\"HANDLER\"}")) {
            assertTrue(reply.text().contains(name + " "), "metrics should contain " + name);
        }
    }

    @Test
    void dashboard_root_servesHtmlAndAssets() {
        ApiClient.Reply page = api.get("/");
        assertEquals(200, page.status());
        assertTrue(page.contentType().startsWith("text/html"), page.contentType());
        // Relative, so that the console works where an application mounts it under a path.
        assertTrue(page.text().contains("src=\"assets/dashboard.js\""), page.text());
        assertEquals(200, api.get("/assets/dashboard.js").status());
        assertEquals(200, api.get("/assets/dashboard.css").status());
    }

    @Test
    void numbersInRequests_acceptStringsAndNumbers() {
        String id = createApiJob("ids");
        ApiClient.Reply asString = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": \"600000\"}");
        assertEquals(201, asString.status(), asString.toString());
        ApiClient.Reply asNumber = api.post("/api/jobs/" + id + "/run", "{\"delayMs\": 600000}");
        assertEquals(201, asNumber.status(), asNumber.toString());
        assertNull(asNumber.json().get("nonexistent"));
    }
}
