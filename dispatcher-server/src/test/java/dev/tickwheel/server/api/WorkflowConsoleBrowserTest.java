package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The console's workflow pages in headless Chromium against a whole server (H2) and a real webhook receiver: the list,
 * a workflow's graph drawn in columns by longest path, a run started with the Run button and followed to its end with
 * each node's status in the graph and links to its instances (and back from an instance), Cancel on a running run,
 * and the JSON create form with the server's 400.
 */
class WorkflowConsoleBrowserTest {

    @TempDir
    Path dir;

    private final WebhookReceiver receiver = new WebhookReceiver();
    private TickwheelApplication app;
    private ApiClient api;
    private ConsolePage console;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        // Node c's call fails; every other call succeeds.
        receiver.answerWith(call -> "c".equals(call.path("workflowNode").asText())
                ? new WebhookReceiver.Answer(500, "{\"error\": \"branch c broke\"}")
                : new WebhookReceiver.Answer(200, null));
        app = TestServers.start(dir.resolve("store"), null, false);
        api = new ApiClient(app.baseUrl());
        console = ConsolePage.start(dir.resolve("chromium-profile"), app.baseUrl(), ConsoleBrowserTest.BROWSER_ZONE);
        browser = console.browser();
    }

    @AfterEach
    void stop() throws Exception {
        ConsolePage.closeAll(console, app, receiver);
    }

    @Test
    void diamondWithAFailingBranch_runFromTheConsole_theRunPageDrawsEachNodesStatus_andLinksToItsInstancesAndBack() {
        String prepare = createJob("prepare");
        String publish = createJob("publish");
        // a fans out to b and c and joins in d, which needs both to succeed; c fails, so d is skipped and alert runs.
        String name = "diamond <img src=x onerror=\"window.pwned=1\">";
        String workflowId = createWorkflow(name, """
                "nodes": [{"id": "a", "jobId": "%1$s"}, {"id": "b", "jobId": "%2$s"}, {"id": "c", "jobId": "%2$s"},
                          {"id": "d", "jobId": "%1$s"}, {"id": "alert", "jobId": "%2$s"}],
                "edges": [{"from": "a", "to": "b", "on": "SUCCEEDED"}, {"from": "a", "to": "c", "on": "SUCCEEDED"},
                          {"from": "b", "to": "d", "on": "SUCCEEDED"}, {"from": "c", "to": "d", "on": "SUCCEEDED"},
                          {"from": "c", "to": "alert", "on": "FAILED"}]""".formatted(prepare, publish));

        console.load("#/workflows");
        String row = "#workflows tr[data-workflow-id='" + workflowId + "']";
        assertEquals(name, console.text(row + " td.workflow-name"), "the name as text, never markup");
        assertEquals("5", console.text(row + " td.workflow-nodes"));
        assertEquals("5", console.text(row + " td.workflow-edges"));
        console.click(row + " td.workflow-name a");
        console.awaitReady();
        assertEquals("#/workflows/" + workflowId, console.hash());
        assertEquals(name, console.text("#workflow-title"));

        // The graph: a node per workflow node with its job's name, an edge per edge labelled with its condition, and
        // each node in the column of its longest path from the root (d after b and c, though a leads to it too).
        assertEquals(List.of("a", "b", "c", "d", "alert"), nodeIds());
        assertEquals("prepare", console.text(node("a") + " .dag-node-detail"));
        assertEquals("publish", console.text(node("c") + " .dag-node-detail"));
        assertEquals("#/jobs/" + publish, attribute(node("b") + " a", "href"));
        assertEquals(List.of("SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "FAILED"),
                console.texts("#workflow-dag g.dag-edge .dag-edge-label"));
        assertEquals("FAILED", console.text("#workflow-dag g.dag-edge[data-from='c'][data-to='alert'] .dag-edge-label"));
        Map<String, Double> left = nodeLefts();
        assertEquals(left.get("b"), left.get("c"), "b and c in one column: " + left);
        assertEquals(left.get("d"), left.get("alert"), "d and alert in one column: " + left);
        assertTrue(left.get("a") < left.get("b") && left.get("b") < left.get("d"), "a, then b and c, then d: " + left);
        assertEquals(List.of("a", "a", "b", "c", "c"), console.texts("#workflow-edges tbody tr td:first-child"));
        assertEquals("publish", console.text("#workflow-nodes tr[data-node='b'] td.job"));

        // Run it from the console, with a key and params.
        console.click("#run-workflow");
        console.type("#workflow-run-form input[name='key']", "order-7");
        console.type("#workflow-run-form textarea[name='params']", "{\"order\": 7}");
        console.click("#workflow-run-form .run-submit");
        String runId = console.text(".run-result a.workflow-run-link");
        assertTrue(runId.matches("\\d+"), runId);
        JsonNode started = api.get("/api/workflow-runs/" + runId).json();
        assertEquals("order-7", started.get("key").asText(), started.toString());
        assertEquals(7, started.at("/params/order").asInt(), started.toString());
        assertEquals(workflowId, started.get("workflowId").asText());

        console.click(".run-result a.workflow-run-link");
        console.awaitReady();
        assertEquals("#/workflow-runs/" + runId, console.hash());
        assertEquals("Workflows", console.text("nav a.active"));
        console.awaitText("#run-status", "FAILED"); // the page refreshes until the run is over
        assertTrue(browser.findElements(By.id("cancel-run")).isEmpty(), "no Cancel on a run that is over");
        assertEquals("order-7", console.text("dd.key"));
        assertTrue(console.text("pre.params").contains("\"order\": 7"), console.text("pre.params"));
        assertEquals(name, console.text("dd.workflow a"));

        JsonNode run = api.get("/api/workflow-runs/" + runId).json();
        assertEquals("FAILED", run.get("status").asText(), run.toString());
        Map<String, String> expected = Map.of("a", "SUCCEEDED", "b", "SUCCEEDED", "c", "FAILED", "d", "SKIPPED",
                "alert", "SUCCEEDED");
        Map<String, String> instances = new LinkedHashMap<>();
        for (JsonNode n : run.get("nodes")) {
            String id = n.get("id").asText();
            assertEquals(expected.get(id), n.get("status").asText(), run.toString());
            String status = expected.get(id);
            assertEquals(status, console.text(node(id) + " .dag-node-detail"), "node " + id);
            assertTrue(attribute(node(id), "class").contains("status-" + status), attribute(node(id), "class"));
            assertEquals(status, console.text("#workflow-run-nodes tr[data-node='" + id + "'] td.status"));
            if (!n.path("instanceId").isNull() && !n.path("instanceId").isMissingNode()) {
                instances.put(id, n.get("instanceId").asText());
                assertEquals("#/instances/" + n.get("instanceId").asText(), attribute(node(id) + " a", "href"),
                        "node " + id + " links to its instance");
            }
        }
        assertEquals(List.of("a", "b", "c", "alert"), List.copyOf(instances.keySet()), "d was skipped: no instance");
        assertTrue(browser.findElements(By.cssSelector(node("d") + " a")).isEmpty(), "a skipped node links nowhere");
        assertEquals("—", console.text("#workflow-run-nodes tr[data-node='d'] td.instance"));

        // A node's link opens its instance, whose page links back to the run.
        console.click(node("c") + " a");
        console.awaitReady();
        assertEquals("#/instances/" + instances.get("c"), console.hash());
        console.awaitText("#instance-status", "FAILED");
        assertEquals(runId + " node c", console.text("dd.workflow-run"));
        console.click("dd.workflow-run a");
        console.awaitReady();
        assertEquals("#/workflow-runs/" + runId, console.hash());
        console.awaitText("#run-status", "FAILED");
        assertEquals(Boolean.FALSE, console.script("return window.pwned === 1;"));

        // An instance that is no workflow's step has no such field.
        String alone = api.post("/api/jobs/" + prepare + "/run", "{\"delayMs\": 600000}").json().get("instanceId").asText();
        console.load("#/instances/" + alone);
        assertTrue(browser.findElements(By.cssSelector("dd.workflow-run")).isEmpty(), "not a workflow step");
    }

    @Test
    void cancelOnARunningRun_pendingNodesTurnSkipped_theCallUnderWayRunsToItsEnd_andNothingElseStarts() {
        String step = createJob("step");
        String workflowId = createWorkflow("chain", """
                "nodes": [{"id": "a", "jobId": "%1$s"}, {"id": "b", "jobId": "%1$s"}, {"id": "c", "jobId": "%1$s"},
                          {"id": "d", "jobId": "%1$s"}],
                "edges": [{"from": "a", "to": "b", "on": "SUCCEEDED"}, {"from": "a", "to": "c", "on": "ALWAYS"},
                          {"from": "b", "to": "d", "on": "SUCCEEDED"}, {"from": "c", "to": "d", "on": "SUCCEEDED"}]"""
                .formatted(step));
        receiver.hold(); // a's call waits at the receiver: a stays DISPATCHING
        String runId = api.post("/api/workflows/" + workflowId + "/run", "").json().get("id").asText();

        console.load("#/workflow-runs/" + runId);
        console.awaitText("#run-status", "RUNNING");
        console.awaitText(node("a") + " .dag-node-detail", "DISPATCHING");
        for (String pending : List.of("b", "c", "d")) {
            assertEquals("PENDING", console.text(node(pending) + " .dag-node-detail"), "node " + pending);
        }
        console.click("#cancel-run");

        console.awaitText("#run-status", "CANCELLED");
        console.awaitTextContaining("#message", "cancelled");
        console.until(() -> "the Cancel button is gone", b -> b.findElements(By.id("cancel-run")).isEmpty());
        for (String pending : List.of("b", "c", "d")) {
            assertEquals("SKIPPED", console.text(node(pending) + " .dag-node-detail"), "node " + pending);
            assertTrue(attribute(node(pending), "class").contains("status-SKIPPED"), attribute(node(pending), "class"));
            assertTrue(browser.findElements(By.cssSelector(node(pending) + " a")).isEmpty(), "node " + pending);
        }
        assertEquals("DISPATCHING", console.text(node("a") + " .dag-node-detail"), "a's call is still under way");

        // Released, a's call ends; the page follows it (a node is still changing) and nothing else starts.
        receiver.release();
        console.awaitText(node("a") + " .dag-node-detail", "SUCCEEDED");
        JsonNode run = api.get("/api/workflow-runs/" + runId).json();
        assertEquals("CANCELLED", run.get("status").asText(), run.toString());
        for (JsonNode n : run.get("nodes")) {
            if (!n.get("id").asText().equals("a")) {
                assertEquals("SKIPPED", n.get("status").asText(), run.toString());
                assertTrue(n.path("instanceId").isNull() || n.path("instanceId").isMissingNode(), run.toString());
            }
        }
        assertEquals(1, receiver.arrived(), "only a was called");
        assertEquals("CANCELLED", console.text("#run-status"));
    }

    @Test
    void createForm_aCycleIsRefusedNamingItsField_thenAWorkflowIsCreatedAndShown() {
        String step = createJob("step");
        console.load("#/workflows");
        assertEquals("No workflows yet.", console.text("#workflows tbody tr.empty"));
        console.click("#new-workflow");
        console.awaitReady();
        assertEquals("#/workflows/new", console.hash());

        console.type("#f-definition", "{\"name\": \"loop\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"" + step + "\"},"
                + " {\"id\": \"b\", \"jobId\": \"" + step + "\"}], \"edges\": [{\"from\": \"a\", \"to\": \"b\","
                + " \"on\": \"SUCCEEDED\"}, {\"from\": \"b\", \"to\": \"a\", \"on\": \"ALWAYS\"}]}");
        console.click("#save-workflow");
        String problem = console.awaitTextContaining("#form-error", "a -> b -> a");
        assertEquals("edges", console.text("#form-error .error-field"), problem);
        assertEquals("#/workflows/new", console.hash(), "a refused form stays open");

        console.type("#f-definition", "{\"name\": \"broken");
        console.click("#save-workflow");
        console.awaitTextContaining("#form-error", "not valid JSON");

        console.type("#f-definition", "{\"name\": \"pair\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"" + step + "\"},"
                + " {\"id\": \"b\", \"jobId\": \"" + step + "\"}], \"edges\": [{\"from\": \"a\", \"to\": \"b\","
                + " \"on\": \"ALWAYS\"}]}");
        console.click("#save-workflow");
        console.until(() -> "the workflow page opens", b -> console.hash().matches("#/workflows/\\d+"));
        console.awaitReady();
        console.awaitTextContaining("#message", "workflow \"pair\" created");
        assertEquals("pair", console.text("#workflow-title"));
        assertEquals(List.of("a", "b"), nodeIds());
        String workflowId = console.hash().substring("#/workflows/".length());
        assertEquals("ALWAYS", api.get("/api/workflows/" + workflowId).json().at("/edges/0/on").asText());
        assertEquals(1, api.get("/api/workflows").json().get("items").size(), "the cycle was not created");
    }

    private static String node(String id) {
        return "#workflow-dag g.dag-node[data-node='" + id + "']";
    }

    private List<String> nodeIds() {
        return console.until(() -> "the graph's nodes", b -> b.findElements(By.cssSelector("#workflow-dag g.dag-node"))
                .stream().map(e -> e.getDomAttribute("data-node")).toList());
    }

    /** Each node's left edge on the page, by node id. */
    private Map<String, Double> nodeLefts() {
        Map<String, Double> left = new LinkedHashMap<>();
        for (WebElement g : browser.findElements(By.cssSelector("#workflow-dag g.dag-node"))) {
            left.put(g.getDomAttribute("data-node"), ((Number) ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeScript("return arguments[0].getBoundingClientRect().left;", g)).doubleValue());
        }
        return left;
    }

    /** The attribute as written (getDomAttribute: an SVG element's href and class properties are not strings). */
    private String attribute(String css, String name) {
        return console.until(() -> css + " has " + name, b -> b.findElement(By.cssSelector(css)).getDomAttribute(name));
    }

    private String createJob(String name) {
        ApiClient.Reply created = api.post("/api/jobs", "{\"name\": \"" + name + "\", \"schedule\": {\"type\": \"API\"},"
                + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"" + receiver.url() + "\"}}");
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    /** A workflow named name whose nodes and edges are the JSON members given. */
    private String createWorkflow(String name, String nodesAndEdges) {
        ApiClient.Reply created = api.post("/api/workflows", "{\"name\": " + quoted(name) + ", " + nodesAndEdges + "}");
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
