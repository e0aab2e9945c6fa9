package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.EdgeCondition;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.InstanceStatus;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import dev.tickwheel.client.model.Workflow;
import dev.tickwheel.client.model.WorkflowEdge;
import dev.tickwheel.client.model.WorkflowNode;
import dev.tickwheel.client.model.WorkflowNodeRun;
import dev.tickwheel.client.model.WorkflowNodeStatus;
import dev.tickwheel.client.model.WorkflowRequest;
import dev.tickwheel.client.model.WorkflowRun;
import dev.tickwheel.client.model.WorkflowRunRequest;
import dev.tickwheel.client.model.WorkflowRunStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflows through the client, against a real server in its own JVM (H2) and a real webhook receiver: a diamond of
 * webhook jobs run to its end with params and a key, the same key answering the same run, a cancel while a node is
 * in flight, definitions the server refuses naming the field, unknown IDs, and which calls are repeated when an
 * answer is lost ({@link DroppingProxy}). The JSON shapes are checked without a server at the end.
 */
class WorkflowClientTest {

    private static final Duration FIRE_BOUND = Duration.ofSeconds(30);
    private static final RetryPolicy QUICK_RETRIES = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(20));
    private static final long UNKNOWN_ID = 987_654_321L;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path data;

    private static H2Server server;
    private static WebhookReceiver receiver;
    private static TickwheelClient client;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, null);
        receiver = new WebhookReceiver();
        client = TickwheelClient.builder(server.baseUrl()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        receiver.close();
        server.close();
    }

    private static Job webhookJob(String name) {
        return client.jobs().create(JobRequest.builder(name + " " + UUID.randomUUID(), Schedule.api(),
                Target.webhook(receiver.url())).build());
    }

    /** A job whose call only accepts the work: its instance stays DISPATCHING until a report to its callback URL. */
    private static Job callbackJob(String name) {
        return client.jobs().create(JobRequest.builder(name + " " + UUID.randomUUID(), Schedule.api(),
                Target.webhook(receiver.url())).completesByCallback(Duration.ofMinutes(5)).build());
    }

    /** The body of the one webhook call the receiver got for {@code instanceId}, which must have come already. */
    private static JsonNode callOf(long instanceId) throws Exception {
        List<JsonNode> calls = new ArrayList<>();
        for (WebhookReceiver.Call call : receiver.all()) {
            JsonNode body = JSON.readTree(call.body());
            if (body.path("instanceId").asText().equals(Long.toString(instanceId))) {
                calls.add(body);
            }
        }
        assertEquals(1, calls.size(), "webhook calls for instance " + instanceId + ": " + calls);
        return calls.get(0);
    }

    private static WorkflowRun awaitOver(long runId) {
        return Await.until(() -> client.workflows().getRun(runId), run -> run.status() != WorkflowRunStatus.RUNNING,
                FIRE_BOUND, "run " + runId + " over");
    }

    @Test
    void diamond_runWithParamsAndKey_succeedsNodeByNode_andTheSameKeyAnswersTheSameRun() throws Exception {
        Map<String, Job> jobs = Map.of("a", webhookJob("a"), "b", webhookJob("b"), "c", webhookJob("c"),
                "d", webhookJob("d"));
        String name = "diamond " + UUID.randomUUID();
        Workflow created = client.workflows().create(WorkflowRequest.builder(name)
                .node("a", jobs.get("a").id()).node("b", jobs.get("b").id())
                .node("c", jobs.get("c").id()).node("d", jobs.get("d").id())
                .edge("a", "b", EdgeCondition.SUCCEEDED).edge("a", "c", EdgeCondition.SUCCEEDED)
                .edge("b", "d", EdgeCondition.SUCCEEDED).edge("c", "d", EdgeCondition.SUCCEEDED)
                .build());

        assertTrue(created.id() > 0, "id " + created.id());
        assertEquals(name, created.name());
        assertEquals(List.of(new WorkflowNode("a", jobs.get("a").id()), new WorkflowNode("b", jobs.get("b").id()),
                new WorkflowNode("c", jobs.get("c").id()), new WorkflowNode("d", jobs.get("d").id())),
                created.nodes());
        assertEquals(List.of(new WorkflowEdge("a", "b", EdgeCondition.SUCCEEDED),
                new WorkflowEdge("a", "c", EdgeCondition.SUCCEEDED), new WorkflowEdge("b", "d", EdgeCondition.SUCCEEDED),
                new WorkflowEdge("c", "d", EdgeCondition.SUCCEEDED)), created.edges());
        assertNotNull(created.createdAt());
        assertEquals(created, client.workflows().get(created.id()));
        assertTrue(client.workflows().list().contains(created), "listed");

        String key = "nightly 2026-11-27/ü"; // a space, a slash and a non-ASCII letter: the key is in the body
        WorkflowRun started = client.workflows().run(created.id(),
                WorkflowRunRequest.now().withKey(key).withParams(Map.of("day", "2026-11-27")));

        assertEquals(Boolean.TRUE, started.created());
        assertEquals(created.id(), started.workflowId());
        assertEquals(key, started.key());
        assertEquals("2026-11-27", started.params().get("day").asText());
        assertEquals(WorkflowRunStatus.RUNNING, started.status());
        assertEquals(List.of(WorkflowNodeStatus.WAITING, WorkflowNodeStatus.PENDING, WorkflowNodeStatus.PENDING,
                WorkflowNodeStatus.PENDING), started.nodes().stream().map(WorkflowNodeRun::status).toList(),
                "the answer is read in the start's transaction: only the first node has its instance");
        assertNotNull(started.node("a").instanceId());
        assertNull(started.node("d").instanceId());

        WorkflowRun done = awaitOver(started.id());
        assertEquals(WorkflowRunStatus.SUCCEEDED, done.status());
        assertNull(done.created(), "only a start's answer says created");
        assertEquals(List.of("a", "b", "c", "d"), done.nodes().stream().map(WorkflowNodeRun::id).toList());
        Set<Long> instanceIds = new HashSet<>();
        for (WorkflowNodeRun node : done.nodes()) {
            assertEquals(WorkflowNodeStatus.SUCCEEDED, node.status(), node.toString());
            Instance instance = client.instances().get(node.instanceId());
            assertEquals(InstanceStatus.SUCCEEDED, instance.status());
            assertEquals(started.id(), instance.workflowRunId());
            assertEquals(node.id(), instance.workflowNode());
            assertEquals(jobs.get(node.id()).id(), instance.jobId());
            assertEquals("2026-11-27", instance.params().get("day").asText(), "the run's params, not the job's");
            assertEquals(node.id(), callOf(instance.id()).get("workflowNode").asText(), "called once, as its node");
            instanceIds.add(instance.id());
        }
        assertEquals(4, instanceIds.size(), "one instance per node");
        assertEquals(started.node("a").instanceId(), done.node("a").instanceId());
        JsonNode joinCall = callOf(done.node("d").instanceId());
        assertEquals(Long.toString(started.id()), joinCall.get("workflowRunId").asText());
        assertEquals(Long.toString(done.node("b").instanceId()), joinCall.get("upstream").get("b").get("instanceId")
                .asText(), "the join's call carries both parents");
        assertEquals(Long.toString(done.node("c").instanceId()), joinCall.get("upstream").get("c").get("instanceId")
                .asText());

        WorkflowRun again = client.workflows().run(created.id(), WorkflowRunRequest.now().withKey(key)
                .withParams("ignored"));
        assertEquals(Boolean.FALSE, again.created());
        assertEquals(started.id(), again.id());
        assertEquals(WorkflowRunStatus.SUCCEEDED, again.status());
        assertEquals("2026-11-27", again.params().get("day").asText(), "the repeat's params are ignored");
        assertEquals(done.nodes(), again.nodes(), "no node ran again");

        assertEquals(done, client.workflows().cancelRun(started.id()), "a run that is over is answered as it is");
        assertEquals(done, client.workflows().getRun(started.id()));

        Instance plain = client.instances().get(client.jobs().run(jobs.get("a").id(),
                RunRequest.after(Duration.ofHours(1))).instanceId());
        assertNull(plain.workflowRunId(), "an instance of no workflow");
        assertNull(plain.workflowNode());
    }

    @Test
    void cancel_whileTheFirstNodeIsInFlight_skipsTheRest_andARepeatAnswersTheRunAsItIs() throws Exception {
        Job slow = callbackJob("slow");
        Job next = webhookJob("next");
        Workflow workflow = client.workflows().create(WorkflowRequest.builder("cancel " + UUID.randomUUID())
                .node("slow", slow.id()).node("after", next.id()).node("onFailure", next.id())
                .edge("slow", "after", EdgeCondition.ALWAYS).edge("slow", "onFailure", EdgeCondition.FAILED)
                .build());
        assertEquals(List.of(EdgeCondition.ALWAYS, EdgeCondition.FAILED),
                client.workflows().get(workflow.id()).edges().stream().map(WorkflowEdge::on).toList());
        WorkflowRun started = client.workflows().run(workflow.id(), WorkflowRunRequest.now());
        assertEquals(Boolean.TRUE, started.created());
        assertNull(started.key());
        assertNull(started.params());
        long slowInstance = started.node("slow").instanceId();
        Await.until(() -> client.instances().get(slowInstance), i -> i.callbackDeadline() != null, FIRE_BOUND,
                "the first node's call accepted, awaiting its report");

        WorkflowRun cancelled = client.workflows().cancelRun(started.id());

        assertEquals(WorkflowRunStatus.CANCELLED, cancelled.status());
        assertEquals(WorkflowNodeStatus.DISPATCHING, cancelled.node("slow").status(), "in flight: it runs on");
        assertEquals(WorkflowNodeStatus.SKIPPED, cancelled.node("after").status());
        assertNull(cancelled.node("after").instanceId());
        assertEquals(WorkflowNodeStatus.SKIPPED, cancelled.node("onFailure").status());
        assertEquals(cancelled, client.workflows().cancelRun(started.id()), "a repeat changes nothing");

        String callbackUrl = callOf(slowInstance).get("callbackUrl").asText();
        HttpResponse<String> reported = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(callbackUrl))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"outcome\": \"SUCCEEDED\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, reported.statusCode(), reported.body());
        WorkflowRun after = client.workflows().getRun(started.id());
        assertEquals(WorkflowRunStatus.CANCELLED, after.status());
        assertEquals(WorkflowNodeStatus.SUCCEEDED, after.node("slow").status());
        assertEquals(WorkflowNodeStatus.SKIPPED, after.node("after").status(), "its end started nothing");
        assertEquals(0, client.instances().list(InstanceQuery.all().job(next.id())).items().size());
    }

    @Test
    void definitions_areRefusedNamingTheField_aCycleAsEdges() {
        long job = webhookJob("any").id();

        ValidationException cycle = assertThrows(ValidationException.class, () -> client.workflows().create(
                WorkflowRequest.builder("cycle").node("a", job).node("b", job).node("c", job)
                        .edge("c", "a", EdgeCondition.SUCCEEDED)
                        .edge("a", "b", EdgeCondition.SUCCEEDED).edge("b", "a", EdgeCondition.ALWAYS).build()));
        assertEquals(400, cycle.httpStatus());
        assertEquals("edges", cycle.field());
        assertTrue(cycle.getMessage().contains("a -> b -> a"), cycle.getMessage());
        assertEquals(1, cycle.attempts(), "a create is never repeated");

        assertEquals("nodes[1].jobId", assertThrows(ValidationException.class, () -> client.workflows().create(
                WorkflowRequest.builder("no job").node("a", job).node("b", UNKNOWN_ID).build())).field());
        assertEquals("edges[0].to", assertThrows(ValidationException.class, () -> client.workflows().create(
                WorkflowRequest.builder("no node").node("a", job).edge("a", "z", EdgeCondition.SUCCEEDED).build()))
                .field());
        assertEquals("nodes", assertThrows(ValidationException.class, () -> client.workflows().create(
                WorkflowRequest.builder("empty").build())).field());
        assertEquals("nodes[0].id", assertThrows(ValidationException.class, () -> client.workflows().create(
                WorkflowRequest.builder("bad id").node("a b", job).build())).field());
        assertThrows(IllegalArgumentException.class, () -> WorkflowRequest.builder("unknown")
                .node("a", job).node("b", job).edge("a", "b", EdgeCondition.UNKNOWN).build());
        assertThrows(IllegalArgumentException.class, () -> WorkflowRequest.builder(" ").node("a", job).build());
        assertThrows(IllegalArgumentException.class, () -> WorkflowRunRequest.now().withKey(""));
    }

    @Test
    void unknownWorkflowAndRun_areNotFound_syncAndAsync() {
        assertEquals(404, assertThrows(NotFoundException.class, () -> client.workflows().get(UNKNOWN_ID))
                .httpStatus());
        assertThrows(NotFoundException.class, () -> client.workflows().run(UNKNOWN_ID, WorkflowRunRequest.now()));
        NotFoundException noRun = assertThrows(NotFoundException.class, () -> client.workflows().getRun(UNKNOWN_ID));
        assertTrue(noRun.getMessage().contains("workflow run " + UNKNOWN_ID), noRun.getMessage());
        assertThrows(NotFoundException.class, () -> client.workflows().cancelRun(UNKNOWN_ID));
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> client.workflows().getRunAsync(UNKNOWN_ID).get());
        assertInstanceOf(NotFoundException.class, async.getCause());
    }

    /**
     * A workflow of one node whose job completes by callback: its instance stays in flight, so a run of it stays
     * RUNNING whatever the timing.
     */
    private static Workflow inFlightWorkflow(Job job) {
        return client.workflows().create(WorkflowRequest.builder("in flight " + UUID.randomUUID())
                .node("first", job.id()).build());
    }

    /** A new client through {@code proxy}: its first call opens a fresh connection, which the proxy looks at. */
    private static TickwheelClient through(DroppingProxy proxy) {
        return TickwheelClient.builder(proxy.baseUrl()).retryPolicy(QUICK_RETRIES).build();
    }

    @Test
    void keyedRun_answerLost_isRepeated_andTheServerAnswersTheOneRunTheFirstAttemptStarted() throws Exception {
        Job first = callbackJob("first");
        Workflow workflow = inFlightWorkflow(first);
        String runLine = "POST /api/workflows/" + workflow.id() + "/run ";

        WorkflowRun run;
        try (DroppingProxy proxy = new DroppingProxy(server.port()); TickwheelClient throughProxy = through(proxy)) {
            proxy.dropAnswers(runLine, 1);
            run = throughProxy.workflows().run(workflow.id(), WorkflowRunRequest.now().withKey("once"));
            assertEquals(1, proxy.dropped(), "the first attempt's answer was lost after the server answered");
            assertEquals(2, proxy.heads(runLine).size(), "the run was sent twice");
        }

        assertEquals(Boolean.FALSE, run.created(), "the repeat found the run the first attempt started");
        assertEquals(List.of(run.node("first").instanceId()), client.instances()
                .list(InstanceQuery.all().job(first.id())).items().stream().map(Instance::id).toList(), "one run");
    }

    @Test
    void unkeyedRun_answerLost_isNotRepeated_andTheCallerIsToldItMayHaveBeenMade() throws Exception {
        Job first = callbackJob("first");
        Workflow workflow = inFlightWorkflow(first);
        String runLine = "POST /api/workflows/" + workflow.id() + "/run ";

        try (DroppingProxy proxy = new DroppingProxy(server.port()); TickwheelClient throughProxy = through(proxy)) {
            proxy.dropAnswers(runLine, 1);
            UnavailableException lost = assertThrows(UnavailableException.class,
                    () -> throughProxy.workflows().run(workflow.id(), WorkflowRunRequest.now()));
            assertEquals(1, lost.attempts());
            assertTrue(lost.getMessage().contains("not safe to repeat"), lost.getMessage());
            assertEquals(1, proxy.heads(runLine).size(), "sent once");
        }
        List<Instance> made = client.instances().list(InstanceQuery.all().job(first.id())).items();
        assertEquals(1, made.size(), "the server started it: why an unkeyed run must not be repeated blindly");
        assertNotNull(made.get(0).workflowRunId(), "a page's instances name their run too");
        assertEquals(WorkflowRunStatus.RUNNING, client.workflows().getRun(made.get(0).workflowRunId()).status());
    }

    @Test
    void cancelRun_answerLost_isRepeated_andTheRepeatAnswersTheRunCancelled() throws Exception {
        WorkflowRun run = client.workflows().run(inFlightWorkflow(callbackJob("first")).id(), WorkflowRunRequest.now());
        String cancelLine = "POST /api/workflow-runs/" + run.id() + "/cancel ";

        WorkflowRun cancelled;
        try (DroppingProxy proxy = new DroppingProxy(server.port()); TickwheelClient throughProxy = through(proxy)) {
            proxy.dropAnswers(cancelLine, 1);
            cancelled = throughProxy.workflows().cancelRun(run.id());
            assertEquals(1, proxy.dropped(), "the first cancel took effect, its answer was lost");
            assertEquals(2, proxy.heads(cancelLine).size(), "repeated");
        }

        assertEquals(WorkflowRunStatus.CANCELLED, cancelled.status(), "the repeat answers the run as it is");
        assertEquals(cancelled, client.workflows().getRun(run.id()));
    }

    @Test
    void json_idsAreStringsOnTheWire_andUnknownStatusesReadAsUnknown() throws Exception {
        ObjectMapper json = ClientJson.newMapper();
        WorkflowRequest request = WorkflowRequest.builder("n").node("a", 7).node("b", 8)
                .edge("a", "b", EdgeCondition.FAILED).build();
        assertEquals(JSON.readTree("{\"name\": \"n\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"7\"},"
                        + " {\"id\": \"b\", \"jobId\": \"8\"}], \"edges\": [{\"from\": \"a\", \"to\": \"b\","
                        + " \"on\": \"FAILED\"}]}"),
                JSON.readTree(ClientJson.body(json, request)));
        assertEquals(JSON.readTree("{}"), JSON.readTree(ClientJson.body(json, WorkflowRunRequest.now())));
        assertEquals(JSON.readTree("{\"key\": \"k\", \"params\": [1]}"),
                JSON.readTree(ClientJson.body(json, WorkflowRunRequest.now().withParams(List.of(1)).withKey("k"))));

        WorkflowRun read = json.readValue(("{\"id\": \"12\", \"workflowId\": \"34\", \"status\": \"PAUSED\","
                + " \"nodes\": [{\"id\": \"a\", \"status\": \"STARTED\", \"instanceId\": \"56\"},"
                + " {\"id\": \"b\", \"status\": \"SKIPPED\", \"instanceId\": null}], \"later\": true}")
                .getBytes(StandardCharsets.UTF_8), WorkflowRun.class);
        assertEquals(12, read.id());
        assertEquals(34, read.workflowId());
        assertEquals(WorkflowRunStatus.UNKNOWN, read.status());
        assertEquals(new WorkflowNodeRun("a", WorkflowNodeStatus.UNKNOWN, 56L), read.node("a"));
        assertEquals(WorkflowNodeStatus.SKIPPED, read.node("b").status());
        assertNull(read.node("z"));
        Workflow workflow = json.readValue("{\"id\": \"1\", \"name\": \"w\", \"nodes\": [{\"id\": \"a\", \"jobId\":"
                + " \"2\"}], \"edges\": [{\"from\": \"a\", \"to\": \"a\", \"on\": \"SOMETIMES\"}]}", Workflow.class);
        assertEquals(new WorkflowNode("a", 2), workflow.nodes().get(0));
        assertEquals(EdgeCondition.UNKNOWN, workflow.edges().get(0).on());
    }
}
