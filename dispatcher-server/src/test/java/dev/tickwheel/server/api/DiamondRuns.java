package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Runs of a diamond workflow (a, then b and c, then d) whose steps call a {@link LedgerReceiver}, for the process
 * tests that kill servers under them: creating them, and checking afterwards that every run SUCCEEDED, every node has
 * one instance called under its one key ({@code <instanceId>-1}), no call belongs to anything else (no step doubled),
 * and no child was called before its parents.
 */
public final class DiamondRuns {

    private static final String[][] EDGES = {{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}};

    private final List<String> runs;

    private DiamondRuns(List<String> runs) {
        this.runs = List.copyOf(runs);
    }

    /** Creates the job and the workflow through {@code api}, then {@code count} keyed runs, each through the next API. */
    public static DiamondRuns start(List<ApiClient> apis, String receiverUrl, int count) {
        ApiClient api = apis.get(0);
        String jobId = api.post("/api/jobs", """
                {"name": "step", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"},
                 "retry": {"maxAttempts": 1}}""".formatted(receiverUrl)).json().get("id").asText();
        ApiClient.Reply workflow = api.post("/api/workflows", """
                {"name": "diamond", "nodes": [{"id": "a", "jobId": "%1$s"}, {"id": "b", "jobId": "%1$s"},
                  {"id": "c", "jobId": "%1$s"}, {"id": "d", "jobId": "%1$s"}],
                 "edges": [{"from": "a", "to": "b", "on": "SUCCEEDED"}, {"from": "a", "to": "c", "on": "SUCCEEDED"},
                  {"from": "b", "to": "d", "on": "SUCCEEDED"}, {"from": "c", "to": "d", "on": "SUCCEEDED"}]}"""
                .formatted(jobId));
        assertEquals(201, workflow.status(), workflow.toString());
        String workflowId = workflow.json().get("id").asText();
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ApiClient.Reply run = apis.get(i % apis.size()).post("/api/workflows/" + workflowId + "/run",
                    "{\"key\": \"run-" + i + "\"}");
            assertEquals(201, run.status(), run.toString());
            runs.add(run.json().get("id").asText());
        }
        return new DiamondRuns(runs);
    }

    /** True once no run is RUNNING. */
    public boolean allOver(ApiClient api) {
        for (String run : runs) {
            if (api.get("/api/workflow-runs/" + run).json().get("status").asText().equals("RUNNING")) {
                return false;
            }
        }
        return true;
    }

    /**
     * Asserts the invariants (see the class comment); returns a line on what the receiver got.
     *
     * @param read reads a path from a running server
     */
    public String check(Function<String, JsonNode> read, LedgerReceiver ledger) {
        Map<String, Set<String>> keysByInstance = new HashMap<>();
        for (Delivery d : ledger.all()) {
            keysByInstance.computeIfAbsent(Long.toString(d.instanceId()), id -> new HashSet<>())
                    .add(d.idempotencyKey());
        }
        Set<String> named = new HashSet<>();
        List<String> problems = new ArrayList<>();
        for (String runId : runs) {
            JsonNode run = read.apply("/api/workflow-runs/" + runId);
            if (!run.get("status").asText().equals("SUCCEEDED")) {
                problems.add("run " + runId + ": " + run);
            }
            Map<String, String> instanceOf = new HashMap<>();
            for (JsonNode node : run.get("nodes")) {
                String instance = node.get("instanceId").asText();
                instanceOf.put(node.get("id").asText(), instance);
                named.add(instance);
                if (!node.get("status").asText().equals("SUCCEEDED")) {
                    problems.add("run " + runId + " node " + node);
                }
                if (!Set.of(instance + "-1").equals(keysByInstance.get(instance))) {
                    problems.add("node " + node + " was called under " + keysByInstance.get(instance));
                }
            }
            for (String[] edge : EDGES) {
                OptionalLong parent = ledger.firstDeliveryMs(Long.parseLong(instanceOf.get(edge[0])));
                OptionalLong child = ledger.firstDeliveryMs(Long.parseLong(instanceOf.get(edge[1])));
                if (parent.isEmpty() || child.isEmpty() || child.getAsLong() < parent.getAsLong()) {
                    problems.add("run " + runId + ": " + edge[1] + " called before " + edge[0]);
                }
            }
        }
        assertAll("diamond runs",
                () -> assertEquals(List.of(), problems),
                () -> assertEquals(named, keysByInstance.keySet(), "no step doubled: every call was a node's"),
                () -> assertEquals(runs.size() * 4, named.size(), "every node of every run has its own instance"));
        return ledger.size() + " calls for " + named.size() + " steps, " + ledger.repeatsWithSameKey()
                + " made again under the same key";
    }
}
