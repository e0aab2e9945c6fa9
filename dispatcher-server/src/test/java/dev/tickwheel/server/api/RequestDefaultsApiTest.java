package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import dev.tickwheel.server.job.Job;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every default docs/openapi.yaml documents in a request ({@link OpenApiDefaults}), sent explicitly, is accepted and
 * means what leaving it out means: the same status, the same answer (IDs and times aside) and, for a job, the same
 * stored definition. Generated clients send every default they know (an openapi-generator Java client sends
 * {@code "overLimit": "WAIT"} and {@code "delayMs": 0} beside {@code at}), so a refused default breaks them. Each
 * default is sent alone and all of an operation's together; a default on an operation this test has no base request
 * for fails the test, so a new one cannot go unchecked.
 */
class RequestDefaultsApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> VOLATILE_FIELDS = Set.of("id", "instanceId", "createdAt", "updatedAt");
    /** A fixed due time a day ahead, so that two runs made a moment apart answer the same. */
    private static final String AT = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).toString();
    private static final String JOB = """
            {"name": "defaults", "schedule": {"type": "API"},
             "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/defaults"}, "params": {"p": 1}}""";

    /** The request each operation with a documented default is tried on, without the default. */
    private static final Map<String, String> BASE_BODIES = Map.of(
            "POST /api/jobs", JOB,
            "PUT /api/jobs/{id}", JOB,
            "POST /api/jobs/{id}/run", "{\"at\": \"" + AT + "\", \"params\": [1]}",
            "POST /api/jobs/{id}/runs",
            "{\"runs\": [{\"at\": \"" + AT + "\"}, {\"at\": \"" + AT + "\", \"key\": \"k\"}]}",
            "GET /api/jobs", "",
            "GET /api/instances", "",
            "GET /api/audit", "");

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

    @Test
    void readDefaults_findTheOnesThisTestWasWrittenFor() throws IOException {
        Set<String> found = OpenApiDefaults.read().stream().map(d -> d.operation() + " " + d.field())
                .collect(Collectors.toSet());

        for (String known : List.of("POST /api/jobs overLimit", "POST /api/jobs retry.maxAttempts",
                "PUT /api/jobs/{id} delivery", "POST /api/jobs/{id}/run delayMs",
                "POST /api/jobs/{id}/runs runs[].delayMs", "GET /api/instances limit")) {
            assertTrue(found.contains(known), "the walk of docs/openapi.yaml should find " + known + ": " + found);
        }
    }

    @TestFactory
    Stream<DynamicTest> documentedDefault_sentExplicitly_meansWhatLeavingItOutMeans() throws IOException {
        Map<String, List<OpenApiDefaults.Default>> byOperation = new TreeMap<>(OpenApiDefaults.read().stream()
                .collect(Collectors.groupingBy(OpenApiDefaults.Default::operation)));
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, List<OpenApiDefaults.Default>> operation : byOperation.entrySet()) {
            for (OpenApiDefaults.Default value : operation.getValue()) {
                tests.add(DynamicTest.dynamicTest(value.toString(), () -> assertSameAsAbsent(List.of(value))));
            }
            tests.add(DynamicTest.dynamicTest(operation.getKey() + ": all its defaults at once",
                    () -> assertSameAsAbsent(operation.getValue())));
        }
        return tests.stream();
    }

    /** Sends the operation's base request without and with {@code defaults}; both answers must be the same. */
    private static void assertSameAsAbsent(List<OpenApiDefaults.Default> defaults) throws IOException {
        String operation = defaults.get(0).operation();
        String base = BASE_BODIES.get(operation);
        if (base == null) {
            throw new AssertionError(operation + " documents defaults " + defaults + " but this test has no base"
                    + " request for it: add one to BASE_BODIES");
        }
        String method = operation.substring(0, operation.indexOf(' '));
        String path = operation.substring(operation.indexOf(' ') + 1);

        ApiClient.Reply without = send(method, path, base, List.of());
        ApiClient.Reply with = send(method, path, base, defaults);

        assertTrue(without.status() / 100 == 2, "the base request should succeed: " + without);
        assertEquals(without.status(), with.status(), "status with " + defaults + ": " + with);
        assertEquals(comparable(without.json()), comparable(with.json()), "answer with " + defaults);
        if (operation.equals("POST /api/jobs") || operation.equals("PUT /api/jobs/{id}")) {
            assertEquals(definition(without.json()), definition(with.json()), "stored job with " + defaults);
        }
    }

    private static ApiClient.Reply send(String method, String pathTemplate, String base,
            List<OpenApiDefaults.Default> defaults) throws IOException {
        String path = pathTemplate.contains("{id}") ? pathTemplate.replace("{id}", newJobId()) : pathTemplate;
        if (path.contains("{")) {
            throw new AssertionError("no value for the path parameters of " + pathTemplate);
        }
        List<String> query = new ArrayList<>();
        for (OpenApiDefaults.Default value : defaults) {
            if (!value.inBody()) {
                query.add(value.field() + "=" + URLEncoder.encode(value.value().asText(), StandardCharsets.UTF_8));
            }
        }
        if (!query.isEmpty()) {
            path += "?" + String.join("&", query);
        }
        if (base.isEmpty()) {
            return api.send(method, path, null);
        }
        JsonNode body = JSON.readTree(base);
        for (OpenApiDefaults.Default value : defaults) {
            if (value.inBody()) {
                set(body, value.field(), value.value());
            }
        }
        return api.send(method, path, body.toString());
    }

    /** A job of its own for each call, so that runs by key and replaces cannot see each other. */
    private static String newJobId() {
        ApiClient.Reply created = api.post("/api/jobs", JOB);
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    /** Sets {@code field} (a dotted path, {@code []} for every item of an array) to {@code value}, making parents. */
    private static void set(JsonNode node, String field, JsonNode value) {
        int dot = field.indexOf('.');
        String head = dot < 0 ? field : field.substring(0, dot);
        ObjectNode object = (ObjectNode) node;
        if (dot < 0) {
            object.set(head, value);
        } else if (head.endsWith("[]")) {
            JsonNode items = object.get(head.substring(0, head.length() - 2));
            assertTrue(items instanceof ArrayNode && !items.isEmpty(), "the base body needs items in " + head);
            items.forEach(item -> set(item, field.substring(dot + 1), value));
        } else {
            JsonNode child = object.has(head) ? object.get(head) : object.putObject(head);
            set(child, field.substring(dot + 1), value);
        }
    }

    /** The answer without what differs between two calls: IDs (each call has its own job) and write times. */
    private static JsonNode comparable(JsonNode answer) {
        JsonNode copy = answer.deepCopy();
        strip(copy);
        return copy;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(VOLATILE_FIELDS);
            object.remove("jobId");
        }
        node.forEach(RequestDefaultsApiTest::strip);
    }

    /** What a stored job does, without its ID, times and version. */
    private static List<Object> definition(JsonNode answer) {
        Job job = app.engine().jobs().get(answer.get("id").asLong()).orElseThrow();
        return List.of(job.name(), job.schedule(), job.target(), String.valueOf(job.params()), job.enabled(),
                job.misfirePolicy(), job.retryPolicy(), job.delivery(), job.operations());
    }
}
