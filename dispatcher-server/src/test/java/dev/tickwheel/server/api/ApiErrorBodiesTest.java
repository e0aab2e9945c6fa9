package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every error body is {@code {"error", "message", "field"}}: {@code field} names the request field or parameter when
 * the problem is one field's, and no message ever shows a Java class, a package or an exception's name, however the
 * request is broken (bodies Jackson cannot bind, wrong JSON types, bad paths and query parameters).
 */
class ApiErrorBodiesTest {

    /** A package-qualified name ({@code java.lang.}, {@code com.fasterxml.}, {@code dev.tickwheel.}) or "Exception". */
    private static final Pattern JAVA_LEAK =
            Pattern.compile("\\b(java|javax|jakarta|com|org|dev|io)\\.[a-z]+\\.|Exception");
    private static final String TARGET = "\"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://127.0.0.1:9/x\"}";
    private static final String VALID = "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, " + TARGET + "}";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static String jobId;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        jobId = api.post("/api/jobs", VALID).json().get("id").asText();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    /** A request, and the field its error must name (null: no single field is at fault). */
    private record Bad(String method, String path, String body, String field) {
    }

    private static Bad post(String body, String field) {
        return new Bad("POST", "/api/jobs", body, field);
    }

    private static Bad get(String pathAndQuery, String field) {
        return new Bad("GET", pathAndQuery, null, field);
    }

    /** A job on an hourly cron with {@code fields} added to its schedule. */
    private static String cron(String fields) {
        return "{\"name\": \"x\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"0 0 * * * ?\", " + fields
                + "}, " + TARGET + "}";
    }

    private static String job(String fields) {
        return "{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, " + TARGET + ", " + fields + "}";
    }

    @Test
    void badRequests_nameTheirFieldAndNeverAJavaClass() {
        List<Bad> requests = new ArrayList<>(List.of(
                post("{\"schedule\": {\"type\": \"API\"}, " + TARGET + "}", "name"),
                post("{\"name\": \" \", \"schedule\": {\"type\": \"API\"}, " + TARGET + "}", "name"),
                post("{\"name\": \"" + "n".repeat(201) + "\", \"schedule\": {\"type\": \"API\"}, " + TARGET + "}",
                        "name"),
                post("{\"name\": \"a\\u0000b\", \"schedule\": {\"type\": \"API\"}, " + TARGET + "}", "name"),
                post("{\"name\": {\"a\": 1}, \"schedule\": {\"type\": \"API\"}, " + TARGET + "}", "name"),
                post("{\"name\": [\"x\"]}", "name"),
                post("{\"name\": \"x\", " + TARGET + "}", "schedule"),
                post("{\"name\": \"x\", \"schedule\": \"daily\", " + TARGET + "}", "schedule"),
                post("{\"name\": \"x\", \"schedule\": [], " + TARGET + "}", "schedule"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"0 0 25 * * ?\"}, "
                        + TARGET + "}", "schedule.expression"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"0 0 2 * * ?\","
                        + " \"zone\": \"Mars/Olympus\"}, " + TARGET + "}", "schedule.zone"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"WEEKLY\"}, " + TARGET + "}", "schedule.type"),
                post("{\"name\": \"x\", \"schedule\": {}, " + TARGET + "}", "schedule.type"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"FIXED_DELAY\", \"delayMs\": -5}, " + TARGET + "}",
                        "schedule.delayMs"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"FIXED_RATE\", \"periodMs\": \"soon\"}, "
                        + TARGET + "}", "schedule.periodMs"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"ONE_SHOT\", \"at\": \"tomorrow\"}, "
                        + TARGET + "}", "schedule.at"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}}", "target"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": 5}", "target"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {}}", "target.type"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"FTP\"}}",
                        "target.type"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\"}}",
                        "target.url"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                        + " \"url\": \"http://[::1\"}}", "target.url"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                        + " \"url\": \"ftp://h/\"}}", "target.url"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"HANDLER\","
                        + " \"name\": \"nope\"}}", "target.name"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"HANDLER\"}}",
                        "target.name"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"HANDLER\","
                        + " \"name\": \"h\", \"url\": \"http://h/\"}}", "target.url"),
                post(job("\"retry\": {\"maxAttempts\": 0}"), "retry.maxAttempts"),
                post(job("\"retry\": {\"maxAttempts\": 99999999999}"), "retry.maxAttempts"),
                post(job("\"retry\": {\"backoffMs\": -1}"), "retry.backoffMs"),
                post(job("\"retry\": []"), "retry"),
                post(job("\"retry\": {\"multiplier\": 0.5}"), "retry.multiplier"),
                post(job("\"retry\": {\"multiplier\": 101}"), "retry.multiplier"),
                post(job("\"retry\": {\"backoffMs\": 1000, \"maxBackoffMs\": 999}"), "retry.maxBackoffMs"),
                post(job("\"retry\": {\"maxBackoffMs\": 86400001}"), "retry.maxBackoffMs"),
                post(job("\"retry\": {\"jitter\": \"HALF\"}"), "retry.jitter"),
                post(job("\"retry\": {\"delaysMs\": []}"), "retry.delaysMs"),
                post(job("\"retry\": {\"delaysMs\": [1000, -1]}"), "retry.delaysMs"),
                post(job("\"retry\": {\"delaysMs\": [1000, null]}"), "retry.delaysMs"),
                post(job("\"retry\": {\"delaysMs\": [1000], \"backoffMs\": 5}"), "retry.delaysMs"),
                post(job("\"retry\": {\"delaysMs\": [1000], \"multiplier\": 2}"), "retry.delaysMs"),
                post(job("\"retry\": {\"delaysMs\": \"1000\"}"), "retry.delaysMs"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\", \"jitterMs\": 1000}, " + TARGET + "}",
                        "schedule.jitterMs"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"FIXED_DELAY\", \"delayMs\": 1000,"
                        + " \"maxRuns\": 3}, " + TARGET + "}", "schedule.maxRuns"),
                post(cron("\"jitterMs\": -1"), "schedule.jitterMs"),
                post(cron("\"jitterMs\": 86400001"), "schedule.jitterMs"),
                post(cron("\"spread\": true"), "schedule.spread"),
                post(cron("\"startAt\": \"2030-01-02T00:00:00Z\", \"endAt\": \"2030-01-01T00:00:00Z\""),
                        "schedule.endAt"),
                post(cron("\"maxRuns\": 0"), "schedule.maxRuns"),
                post(cron("\"startAt\": \"tomorrow\""), "schedule.startAt"),
                post(job("\"misfirePolicy\": \"NEVER\""), "misfirePolicy"),
                post(job("\"delivery\": \"TWICE\""), "delivery"),
                post(job("\"timeoutMs\": 0"), "timeoutMs"),
                post(job("\"maxConcurrent\": 0"), "maxConcurrent"),
                post(job("\"overLimit\": \"SKIP\""), "overLimit"),
                post(job("\"enabled\": \"yes\""), "enabled"),
                post(job("\"enabled\": 1"), "enabled"),
                post(job("\"nmae\": 1"), "nmae"),
                post("{\"name\": \"x\", \"schedule\": {\"type\": \"API\", \"every\": 5}, " + TARGET + "}",
                        "schedule.every"),
                post("", null),
                post("null", null),
                post("[1, 2]", null),
                post("\"text\"", null),
                post("42", null),
                post("{\"name\": ", null),
                post("{\"name\": \"x\"} trailing", null),
                post("{\"name\": 1e999}", "schedule"),
                post("\u00ff\u00fe garbage", null),
                post("{\"params\": {\"deep\": " + "[".repeat(2000) + "]".repeat(2000) + "}}", "params"),
                post("{\"name\": \"x\", \"params\": " + "9".repeat(2000) + "}", null),
                new Bad("PUT", "/api/jobs/abc", VALID, "id"),
                new Bad("PUT", "/api/jobs/" + "9".repeat(30), VALID, "id"),
                new Bad("DELETE", "/api/jobs/0", null, "id"),
                new Bad("POST", "/api/jobs/-1/run", null, "id"),
                new Bad("POST", "/api/instances/1.5/cancel", null, "id"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "{\"delayMs\": -1}", "delayMs"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "{\"delayMs\": \"soon\"}", "delayMs"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "{\"delayMs\": 1.5}", "delayMs"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "{\"delayMs\": 9999999999999999999999}", "delayMs"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "{\"params\": 1, \"extra\": 2}", "extra"),
                new Bad("POST", "/api/jobs/" + jobId + "/run", "[]", null),
                get("/api/jobs/abc", "id"),
                get("/api/instances/%20", "id"),
                get("/api/jobs?limit=x", "limit"),
                get("/api/jobs?limit=-1", "limit"),
                get("/api/jobs?cursor=%25%25", "cursor"),
                get("/api/jobs?cursor=AAAA", "cursor"),
                get("/api/jobs?name=" + "q".repeat(300), "name"),
                get("/api/instances?limit=99999999999", "limit"),
                get("/api/instances?jobId=0", "jobId"),
                get("/api/instances?jobId=99999999999999999999", "jobId"),
                get("/api/instances?status=%00", "status"),
                get("/api/instances?from=2026-11-25", "from"),
                get("/api/instances?to=now", "to"),
                get("/api/instances?from=2026-11-25T10:00:00Z&to=2026-11-24T10:00:00Z", "from"),
                get("/api/instances?cursor=1e5", "cursor"),
                get("/no/such/route", null)));
        List<String> problems = new ArrayList<>();
        for (Bad bad : requests) {
            ApiClient.Reply reply = api.send(bad.method(), bad.path(), bad.body());
            String what = bad.method() + " " + abbreviated(bad.path()) + " " + abbreviated(String.valueOf(bad.body()))
                    + " -> " + abbreviated(reply.toString());
            JsonNode json = reply.json();
            if (reply.status() < 400 || reply.status() >= 500) {
                problems.add("not a client error: " + what);
            } else if (!json.path("error").isTextual() || !json.path("message").isTextual() || !json.has("field")) {
                problems.add("not an error body: " + what);
            } else {
                if (JAVA_LEAK.matcher(reply.text()).find()) {
                    problems.add("names a Java class or exception: " + what);
                }
                String field = json.get("field").isNull() ? null : json.get("field").asText();
                if (!java.util.Objects.equals(bad.field(), field)) {
                    problems.add("field " + field + " instead of " + bad.field() + ": " + what);
                }
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " of " + requests.size() + " bad answers:\n"
                + String.join("\n", problems));
    }

    @Test
    void errorBody_shapeIsErrorMessageField() {
        ApiClient.Reply reply = api.get("/api/instances?from=yesterday");

        assertEquals(400, reply.status());
        assertEquals(List.of("error", "message", "field"), fieldNames(reply.json()));
        assertEquals("from", reply.json().get("field").asText());
        assertTrue(api.get("/no/such/route").json().get("field").isNull());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String abbreviated(String text) {
        return text.length() <= 160 ? text : text.substring(0, 160) + "…";
    }
}
