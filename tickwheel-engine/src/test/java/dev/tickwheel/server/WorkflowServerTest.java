package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.Workflow.Edge;
import dev.tickwheel.server.workflow.Workflow.Node;
import dev.tickwheel.server.workflow.Workflow.On;
import dev.tickwheel.server.workflow.WorkflowRun;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflows through the whole engine on its embedded H2 store, with in-process handlers: a diamond (fan-out and
 * fan-in, parents' outputs handed down), a failure edge and the branch it skips, a key, a cancel while a node runs,
 * a node cancelled by itself (stepped by the loader pass's sweep), and the definitions refused.
 */
class WorkflowServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDir;

    /** Node names in the order their handler ran. */
    private final List<String> order = new CopyOnWriteArrayList<>();
    /** Each node's upstream as its handler saw it. */
    private final Map<String, String> upstreams = new ConcurrentHashMap<>();
    private final CountDownLatch gate = new CountDownLatch(1);
    private TickwheelServer server;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();

    @BeforeEach
    void start() {
        server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .handler("ok", ctx -> {
                    String node = ctx.workflow().node();
                    order.add(node);
                    upstreams.put(node, ctx.workflow().upstream());
                    ctx.setOutput("{\"from\": \"" + node + "\"}");
                })
                .handler("boom", ctx -> {
                    order.add(ctx.workflow().node());
                    throw new IllegalStateException("boom in " + ctx.workflow().node());
                })
                .handler("gate", ctx -> {
                    order.add(ctx.workflow().node());
                    if (!gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never opened the gate");
                    }
                })
                .build()
                .start();
        for (String handler : List.of("ok", "boom", "gate")) {
            jobs.put(handler, server.jobs().create(JobSpec.of(handler, ScheduleSpec.api(), Target.handler(handler))));
        }
    }

    @AfterEach
    void stop() {
        gate.countDown();
        if (server != null) {
            server.close();
        }
    }

    private Node node(String id, String handler) {
        return new Node(id, jobs.get(handler).id());
    }

    private WorkflowRun awaitEnd(long runId) {
        Await.until(() -> "run " + runId + " over: " + server.workflows().getRun(runId), WAIT,
                () -> server.workflows().getRun(runId).orElseThrow().status() != WorkflowRun.Status.RUNNING);
        return server.workflows().getRun(runId).orElseThrow();
    }

    private static Map<String, String> statuses(WorkflowRun run) {
        return run.nodes().stream().collect(Collectors.toMap(WorkflowRun.NodeRun::node, WorkflowRun.NodeRun::status));
    }

    @Test
    void diamond_fansOutAndIn_eachNodeOnce_theJoinSeesBothParentsOutputs() throws Exception {
        Workflow diamond = server.workflows().create("diamond",
                List.of(node("a", "ok"), node("b", "ok"), node("c", "ok"), node("d", "ok")),
                List.of(new Edge("a", "b", On.SUCCEEDED), new Edge("a", "c", On.SUCCEEDED),
                        new Edge("b", "d", On.SUCCEEDED), new Edge("c", "d", On.SUCCEEDED)), ScheduleSpec.api());

        WorkflowService.Started started = server.workflows().run(diamond.id(), null, "{\"order\": 7}");

        assertTrue(started.created());
        assertEquals(WorkflowRun.Status.RUNNING, started.run().status());
        WorkflowRun done = awaitEnd(started.run().id());
        assertEquals(WorkflowRun.Status.SUCCEEDED, done.status());
        assertEquals(Map.of("a", "SUCCEEDED", "b", "SUCCEEDED", "c", "SUCCEEDED", "d", "SUCCEEDED"), statuses(done));
        assertEquals(4, order.size(), "each node once: " + order);
        assertEquals("a", order.get(0));
        assertEquals("d", order.get(3), "the join after both parents: " + order);
        JsonNode upstream = JSON.readTree(upstreams.get("d"));
        assertEquals(2, upstream.size(), upstream.toString());
        for (String parent : List.of("b", "c")) {
            WorkflowRun.NodeRun parentRun = done.nodes().stream().filter(n -> n.node().equals(parent)).findFirst()
                    .orElseThrow();
            assertEquals(Long.toString(parentRun.instanceId()), upstream.at("/" + parent + "/instanceId").asText());
            assertEquals("SUCCEEDED", upstream.at("/" + parent + "/status").asText());
            assertEquals(parent, upstream.at("/" + parent + "/output/from").asText());
        }
        assertEquals("{}", upstreams.get("a"), "a root has no parents");
        long dInstance = done.nodes().get(3).instanceId();
        var d = server.instances().history(dInstance).orElseThrow().instance();
        assertEquals("{\"order\": 7}", d.params(), "the run's params go to every node");
        assertEquals(started.run().id(), d.workflow().runId());
    }

    @Test
    void failureEdgeRuns_theSuccessBranchIsSkipped_alwaysRunsAfterEither_theRunFails() {
        Workflow flow = server.workflows().create("compensate",
                List.of(node("charge", "boom"), node("ship", "ok"), node("notify", "ok"), node("refund", "ok"),
                        node("audit", "ok")),
                List.of(new Edge("charge", "ship", On.SUCCEEDED), new Edge("ship", "notify", On.SUCCEEDED),
                        new Edge("charge", "refund", On.FAILED), new Edge("refund", "audit", On.ALWAYS)), ScheduleSpec.api());

        WorkflowRun done = awaitEnd(server.workflows().run(flow.id(), null, null).run().id());

        assertEquals(Map.of("charge", "FAILED", "ship", "SKIPPED", "notify", "SKIPPED", "refund", "SUCCEEDED",
                "audit", "SUCCEEDED"), statuses(done));
        assertEquals(WorkflowRun.Status.FAILED, done.status(), "a node failed, even one an edge went on from");
        assertEquals(List.of("charge", "refund", "audit"), order);
        assertNull(done.nodes().get(1).instanceId(), "a skipped node gets no instance");
    }

    @Test
    void sameKey_answersTheSameRun_andStartsNothing() {
        Workflow one = server.workflows().create("one", List.of(node("only", "ok")), List.of(), ScheduleSpec.api());

        WorkflowService.Started first = server.workflows().run(one.id(), "order-42", null);
        WorkflowService.Started again = server.workflows().run(one.id(), "order-42", null);

        assertTrue(first.created());
        assertFalse(again.created());
        assertEquals(first.run().id(), again.run().id());
        awaitEnd(first.run().id());
        assertEquals(List.of("only"), order);
        assertEquals("order-42", again.run().key());
    }

    @Test
    void cancel_skipsWhatIsPending_theRunningNodeEndsAndStartsNothing() {
        Workflow flow = server.workflows().create("cancel me", List.of(node("slow", "gate"), node("next", "ok")),
                List.of(new Edge("slow", "next", On.ALWAYS)), ScheduleSpec.api());
        long runId = server.workflows().run(flow.id(), null, null).run().id();
        Await.until("the first node running", WAIT, () -> order.contains("slow"));

        var cancel = server.workflows().cancelRun(runId).orElseThrow();

        assertTrue(cancel.changed());
        assertEquals(WorkflowRun.Status.CANCELLED, cancel.run().status());
        assertEquals("SKIPPED", statuses(cancel.run()).get("next"));
        gate.countDown();
        Await.until("the running node ended", WAIT,
                () -> statuses(server.workflows().getRun(runId).orElseThrow()).get("slow").equals("SUCCEEDED"));
        WorkflowRun after = server.workflows().getRun(runId).orElseThrow();
        assertEquals(WorkflowRun.Status.CANCELLED, after.status());
        assertEquals("SKIPPED", statuses(after).get("next"));
        assertFalse(server.workflows().cancelRun(runId).orElseThrow().changed(), "over already");
        assertEquals(List.of("slow"), order, "nothing started after the cancel");
    }

    @Test
    void nodeInstanceCancelledByItself_isSteppedByTheSweep() throws Exception {
        // A node whose call fails and waits 10 minutes for its retry: cancelled then, outside any settle.
        Job unreachable = server.jobs().create(JobSpec.of("unreachable", ScheduleSpec.api(),
                Target.webhook("http://127.0.0.1:9/none")).withRetry(new RetryPolicy(2, 600_000)));
        Workflow flow = server.workflows().create("swept", List.of(new Node("call", unreachable.id()),
                node("after", "ok")), List.of(new Edge("call", "after", On.ALWAYS)), ScheduleSpec.api());
        long runId = server.workflows().run(flow.id(), null, null).run().id();
        long call = server.workflows().getRun(runId).orElseThrow().nodes().get(0).instanceId();
        Await.until("the call failed once and waits for its retry", WAIT, () -> {
            var row = server.instances().history(call).orElseThrow().instance();
            return row.status() == InstanceStatus.WAITING && row.attempt() == 1;
        });

        assertTrue(server.instances().cancel(call).outcome().name().equals("CANCELLED"));
        server.passNow();

        WorkflowRun done = awaitEnd(runId);
        assertEquals(Map.of("call", "CANCELLED", "after", "SUCCEEDED"), statuses(done));
        assertEquals(WorkflowRun.Status.FAILED, done.status());
    }

    @Test
    void scheduledWorkflow_itsTriggerJobStartsARunPerTrigger_eachRunOnce() throws Exception {
        Workflow scheduled = server.workflows().create("every second", List.of(node("tick", "ok")), List.of(),
                ScheduleSpec.fixedRate(1_000, java.time.Instant.now()));
        assertTrue(scheduled.triggerJobId() != null);
        Job trigger = server.jobs().get(scheduled.triggerJobId()).orElseThrow();
        assertEquals("workflow: every second", trigger.name());
        assertEquals(WorkflowService.TRIGGER_HANDLER, trigger.target().value());

        Await.until("two runs started by the schedule", WAIT, () -> server.instances()
                .list(trigger.id(), InstanceStatus.SUCCEEDED, null, null, null, 10).items().size() >= 2);
        for (var triggered : server.instances().list(trigger.id(), InstanceStatus.SUCCEEDED, null, null, null, 10)
                .items()) {
            long runId = Long.parseLong(JSON.readTree(triggered.output()).get("workflowRunId").asText());
            WorkflowRun run = server.workflows().getRun(runId).orElseThrow();
            assertEquals("trigger-" + triggered.id(), run.key(), "keyed by its trigger: a repeat starts nothing new");
            assertEquals(scheduled.id(), run.workflowId());
        }
        assertThrows(IllegalArgumentException.class, () -> TickwheelServer.builder()
                .handler(WorkflowService.TRIGGER_HANDLER, ctx -> { }), "the trigger's handler name is reserved");
    }

    @Test
    void definitionsThatAreNoDag_orNameNoJob_areRefusedNamingTheField() {
        var cycle = assertThrows(Workflow.InvalidWorkflowException.class, () -> server.workflows().create("loop",
                List.of(node("a", "ok"), node("b", "ok"), node("c", "ok")),
                List.of(new Edge("a", "b", On.SUCCEEDED), new Edge("b", "c", On.SUCCEEDED),
                        new Edge("c", "a", On.ALWAYS)), ScheduleSpec.api()));
        assertEquals("edges", cycle.field());
        assertTrue(cycle.getMessage().contains("a -> b -> c -> a"), cycle.getMessage());
        var unknownJob = assertThrows(Workflow.InvalidWorkflowException.class, () -> server.workflows().create("x",
                List.of(node("a", "ok"), new Node("b", 123_456)), List.of(), ScheduleSpec.api()));
        assertEquals("nodes[1].jobId", unknownJob.field());
        var twice = assertThrows(Workflow.InvalidWorkflowException.class, () -> server.workflows().create("x",
                List.of(node("a", "ok"), node("a", "ok")), List.of(), ScheduleSpec.api()));
        assertEquals("nodes[1].id", twice.field());
        var dangling = assertThrows(Workflow.InvalidWorkflowException.class, () -> server.workflows().create("x",
                List.of(node("a", "ok")), List.of(new Edge("a", "z", On.ALWAYS)), ScheduleSpec.api()));
        assertEquals("edges[0].to", dangling.field());
        assertEquals(List.of(), server.workflows().list(), "nothing was stored");
    }
}
