package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflows over HTTP against a whole server (H2) and a real receiver: the contract's routes and bodies, a diamond run
 * whose join gets its parents' outputs in {@code upstream}, a key, a cancel, and the 400s and 404s.
 */
class WorkflowApiTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver receiver;
    static String jobId;

    @BeforeAll
    static void start() {
        receiver = new WebhookReceiver();
        // Each step answers its node's name as its output.
        receiver.answerWith(call -> new WebhookReceiver.Answer(200, call.has("workflowNode")
                ? "{\"node\": \"" + call.get("workflowNode").asText() + "\"}" : null));
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        jobId = api.post("/api/jobs", """
                {"name": "step", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}}"""
                .formatted(receiver.url())).json().get("id").asText();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        receiver.close();
    }

    private static String diamond(String name) {
        ApiClient.Reply created = api.post("/api/workflows", """
                {"name": "%s", "schedule": {"type": "API"},
                 "nodes": [{"id": "a", "jobId": "%s"}, {"id": "b", "jobId": "%s"}, {"id": "c", "jobId": "%s"},
                           {"id": "d", "jobId": "%s"}],
                 "edges": [{"from": "a", "to": "b", "on": "SUCCEEDED"}, {"from": "a", "to": "c", "on": "SUCCEEDED"},
                           {"from": "b", "to": "d", "on": "SUCCEEDED"}, {"from": "c", "to": "d", "on": "ALWAYS"}]}"""
                .formatted(name, jobId, jobId, jobId, jobId));
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private static JsonNode awaitEnd(String runId) {
        Await.until(() -> "run " + runId + " over", WAIT, () -> !api.get("/api/workflow-runs/" + runId).json()
                .get("status").asText().equals("RUNNING"));
        return api.get("/api/workflow-runs/" + runId).json();
    }

    @Test
    void diamond_createdRunAndRead_theJoinsCallCarriesUpstream() throws Exception {
        String id = diamond("diamond");
        JsonNode workflow = api.get("/api/workflows/" + id).json();
        assertEquals(4, workflow.get("nodes").size());
        assertEquals("ALWAYS", workflow.at("/edges/3/on").asText());

        ApiClient.Reply run = api.post("/api/workflows/" + id + "/run", "{\"params\": {\"order\": 5}}");
        assertEquals(201, run.status(), run.toString());
        assertEquals("RUNNING", run.json().get("status").asText());
        String runId = run.json().get("id").asText();
        assertEquals(id, run.json().get("workflowId").asText());

        JsonNode done = awaitEnd(runId);
        assertEquals("SUCCEEDED", done.get("status").asText(), done.toString());
        Map<String, String> instances = new HashMap<>();
        for (JsonNode node : done.get("nodes")) {
            assertEquals("SUCCEEDED", node.get("status").asText(), done.toString());
            instances.put(node.get("id").asText(), node.get("instanceId").asText());
        }
        JsonNode d = JSON.readTree(receiver.deliveries(instances.get("d")).get(0).body());
        assertEquals(runId, d.get("workflowRunId").asText());
        assertEquals("d", d.get("workflowNode").asText());
        assertEquals(instances.get("b"), d.at("/upstream/b/instanceId").asText());
        assertEquals("SUCCEEDED", d.at("/upstream/c/status").asText());
        assertEquals("c", d.at("/upstream/c/output/node").asText(), d.toString());
        assertEquals(5, d.at("/params/order").asInt());
        JsonNode dInstance = api.get("/api/instances/" + instances.get("d")).json();
        assertEquals(runId, dInstance.get("workflowRunId").asText());
        assertEquals("d", dInstance.get("workflowNode").asText());
        assertEquals(1, receiver.deliveriesOf(instances.get("a")), "each node called once");
    }

    @Test
    void scheduledWorkflow_hasATriggerJobWithItsSchedule() {
        ApiClient.Reply created = api.post("/api/workflows", """
                {"name": "nightly", "schedule": {"type": "CRON", "expression": "0 0 3 * * ?", "zone": "UTC"},
                 "nodes": [{"id": "a", "jobId": "%s"}]}""".formatted(jobId));
        assertEquals(201, created.status(), created.toString());
        String trigger = created.json().get("triggerJobId").asText();
        JsonNode job = api.get("/api/jobs/" + trigger).json();
        assertEquals("workflow: nightly", job.get("name").asText());
        assertEquals("0 0 3 * * ?", job.at("/schedule/expression").asText());
        assertEquals("tickwheel.workflow-trigger", job.at("/target/name").asText());
        assertTrue(api.get("/api/workflows/" + diamond("api only")).json().get("triggerJobId").isNull());
    }

    @Test
    void run_withKey_201Then200WithTheSameRun() {
        String id = diamond("keyed");
        ApiClient.Reply first = api.post("/api/workflows/" + id + "/run", "{\"key\": \"order-1\"}");
        ApiClient.Reply again = api.post("/api/workflows/" + id + "/run", "{\"key\": \"order-1\"}");
        assertEquals(201, first.status(), first.toString());
        assertEquals(200, again.status(), again.toString());
        assertEquals(first.json().get("id"), again.json().get("id"));
        assertFalse(again.json().get("created").asBoolean());
        assertEquals("order-1", again.json().get("key").asText());
        awaitEnd(first.json().get("id").asText());
    }

    @Test
    void cancel_ofAFinishedRun_answersItAsItIs_unknownRunsAndWorkflows404() {
        String id = diamond("cancel");
        String runId = api.post("/api/workflows/" + id + "/run", "").json().get("id").asText();
        JsonNode done = awaitEnd(runId);
        ApiClient.Reply cancel = api.post("/api/workflow-runs/" + runId + "/cancel", "");
        assertEquals(200, cancel.status(), cancel.toString());
        assertEquals(done.get("status"), cancel.json().get("status"));
        assertEquals(404, api.get("/api/workflow-runs/12345").status());
        assertEquals(404, api.post("/api/workflow-runs/12345/cancel", "").status());
        assertEquals(404, api.post("/api/workflows/12345/run", "").status());
        assertEquals(404, api.get("/api/workflows/12345").status());
    }

    @Test
    void badDefinitions_400NamingTheField_aCycleNamed() {
        ApiClient.Reply cycle = api.post("/api/workflows", """
                {"name": "loop", "nodes": [{"id": "a", "jobId": "%s"}, {"id": "b", "jobId": "%s"}],
                 "edges": [{"from": "a", "to": "b", "on": "SUCCEEDED"}, {"from": "b", "to": "a", "on": "ALWAYS"}]}"""
                .formatted(jobId, jobId));
        assertEquals(400, cycle.status(), cycle.toString());
        assertEquals("edges", cycle.json().get("field").asText());
        assertTrue(cycle.message().contains("a -> b -> a"), cycle.toString());
        String[][] cases = {
            {"{\"name\": \"x\", \"nodes\": []}", "nodes"},
            {"{\"nodes\": [{\"id\": \"a\", \"jobId\": \"" + jobId + "\"}]}", "name"},
            {"{\"name\": \"x\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"42\"}]}", "nodes[0].jobId"},
            {"{\"name\": \"x\", \"nodes\": [{\"id\": \"a b\", \"jobId\": \"" + jobId + "\"}]}", "nodes[0].id"},
            {"{\"name\": \"x\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"" + jobId + "\"}], \"edges\": [{\"from\":"
                    + " \"a\", \"to\": \"a\", \"on\": \"LATER\"}]}", "edges[0].on"},
            {"{\"name\": \"x\", \"schedule\": {\"type\": \"CRON\", \"expression\": \"not cron\"}, \"nodes\": [{\"id\":"
                    + " \"a\", \"jobId\": \"" + jobId + "\"}]}", "schedule.expression"},
        };
        for (String[] c : cases) {
            ApiClient.Reply bad = api.post("/api/workflows", c[0]);
            assertEquals(400, bad.status(), c[0] + " -> " + bad);
            assertEquals(c[1], bad.json().get("field").asText(), c[0] + " -> " + bad);
        }
        ApiClient.Reply badKey = api.post("/api/workflows/" + diamond("key check") + "/run", "{\"key\": \"\"}");
        assertEquals("key", badKey.json().get("field").asText(), badKey.toString());
        // The steps' own keys: a caller's run cannot take one first, and so cannot stand in for a step.
        ApiClient.Reply reserved = api.post("/api/jobs/" + jobId + "/run", "{\"key\": \"tickwheel:wf-1-a\"}");
        assertEquals(400, reserved.status(), reserved.toString());
        assertEquals("key", reserved.json().get("field").asText(), reserved.toString());
    }
}
