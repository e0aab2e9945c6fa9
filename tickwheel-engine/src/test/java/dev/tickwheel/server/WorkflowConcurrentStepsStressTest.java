package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.CallbackService.Outcome;
import dev.tickwheel.server.CallbackService.Report;
import dev.tickwheel.server.dispatch.webhook.WebhookInvoker;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.Workflow.Edge;
import dev.tickwheel.server.workflow.Workflow.Node;
import dev.tickwheel.server.workflow.Workflow.On;
import dev.tickwheel.server.workflow.WorkflowRun;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two parents of one node ending at the very same moment, many times: the fan-in of a diamond (a → b, a → c, b and c →
 * d) whose b and c complete by callback, reported from two threads released together by a barrier, so that their
 * steps (each the parent's final status, the run's lock, the next node's decision) run at once. Every run must end
 * SUCCEEDED with d created once and run once; the run never ends while a node is still open.
 *
 * On H2 and on PostgreSQL.
 *
 * <p>Why it should hold: each step locks the run's row first ({@code SELECT … FOR UPDATE}), so the second waits for the
 * first to commit and then reads its node status; only the second sees both parents final and starts d.
 */
class WorkflowConcurrentStepsStressTest {

    private static final int RUNS = 60;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    private final Map<Long, String> callbackUrls = new ConcurrentHashMap<>();
    private final Map<Long, Integer> calls = new ConcurrentHashMap<>();
    private HttpServer receiver;
    private TickwheelServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void fanInParentsReportedAtOnce_onH2_theJoinStartsOnce_andEveryRunSucceeds() throws Exception {
        fanIn("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath());
    }

    @Test
    void fanInParentsReportedAtOnce_onPostgres_theJoinStartsOnce_andEveryRunSucceeds() throws Exception {
        var db = dev.tickwheel.server.store.jdbc.PostgresTestDatabase.createSchema();
        try {
            fanIn(db.jdbcUrl());
        } finally {
            stop();
            server = null;
            receiver = null;
            db.dropSchema();
        }
    }

    private void fanIn(String jdbcUrl) throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        receiver.setExecutor(Executors.newFixedThreadPool(8));
        receiver.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            long id = Long.parseLong(exchange.getRequestHeaders().getFirst("Tickwheel-Instance-Id"));
            calls.merge(id, 1, Integer::sum);
            String url = exchange.getRequestHeaders().getFirst(WebhookInvoker.CALLBACK_URL_HEADER);
            if (url != null) {
                callbackUrls.put(id, url);
            }
            exchange.sendResponseHeaders(url == null ? 200 : 202, -1);
            exchange.close();
        });
        receiver.start();
        String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/";
        server = TickwheelServer.builder().jdbcUrl(jdbcUrl)
                .callbackBaseUrl("http://tickwheel.test").build().start();
        Job now = job("now", url, Completion.IMMEDIATE);
        Job later = job("later", url, Completion.callback(600_000));
        Workflow diamond = server.workflows().create("fan-in", List.of(new Node("a", now.id()),
                new Node("b", later.id()), new Node("c", later.id()), new Node("d", now.id())),
                List.of(new Edge("a", "b", On.SUCCEEDED), new Edge("a", "c", On.SUCCEEDED),
                        new Edge("b", "d", On.SUCCEEDED), new Edge("c", "d", On.SUCCEEDED)), ScheduleSpec.api());

        ExecutorService reporters = Executors.newFixedThreadPool(2);
        List<Long> runs = new ArrayList<>();
        try {
            for (int i = 0; i < RUNS; i++) {
                long runId = server.workflows().run(diamond.id(), null, null).run().id();
                runs.add(runId);
                long b = awaitAwaiting(runId, "b");
                long c = awaitAwaiting(runId, "c");
                CyclicBarrier together = new CyclicBarrier(2);
                List<Future<CallbackService.Verdict>> reports = new ArrayList<>();
                for (long parent : new long[] {b, c}) {
                    String token = callbackUrls.get(parent).substring(callbackUrls.get(parent).lastIndexOf('/') + 1);
                    reports.add(reporters.submit(() -> {
                        together.await(10, TimeUnit.SECONDS);
                        return server.callbacks().report(token, new Report(Outcome.SUCCEEDED, null, null), null)
                                .verdict();
                    }));
                }
                for (Future<CallbackService.Verdict> report : reports) {
                    assertEquals(CallbackService.Verdict.APPLIED, report.get(10, TimeUnit.SECONDS));
                }
            }
            for (long runId : runs) {
                Await.until(() -> "run " + runId + " over: " + server.workflows().getRun(runId), WAIT,
                        () -> server.workflows().getRun(runId).orElseThrow().status() != WorkflowRun.Status.RUNNING);
                WorkflowRun run = server.workflows().getRun(runId).orElseThrow();
                Map<String, String> statuses = run.nodes().stream().collect(Collectors.toMap(WorkflowRun.NodeRun::node,
                        WorkflowRun.NodeRun::status));
                assertEquals(Map.of("a", "SUCCEEDED", "b", "SUCCEEDED", "c", "SUCCEEDED", "d", "SUCCEEDED"), statuses,
                        "run " + runId);
                assertEquals(WorkflowRun.Status.SUCCEEDED, run.status());
                assertEquals(1, calls.get(run.nodes().get(3).instanceId()), "the join called once");
            }
        } finally {
            reporters.shutdownNow();
        }
    }

    private Job job(String name, String url, Completion completion) {
        return server.jobs().create(new JobSpec(name, ScheduleSpec.api(), Target.webhook(url), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE,
                0, 0, DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, null, completion),
                JobOperations.DEFAULT, false));
    }

    /** The node's instance, once its call was accepted (it awaits its report). */
    private long awaitAwaiting(long runId, String node) {
        long[] instance = {0};
        Await.until(() -> "node " + node + " of run " + runId + " awaiting its report", WAIT, () -> {
            Long id = server.workflows().getRun(runId).orElseThrow().nodes().stream()
                    .filter(n -> n.node().equals(node)).findFirst().orElseThrow().instanceId();
            if (id == null || !callbackUrls.containsKey(id)) {
                return false;
            }
            instance[0] = id;
            return server.instances().history(id).orElseThrow().instance().callbackDeadline() != null;
        });
        return instance[0];
    }
}
