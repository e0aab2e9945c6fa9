package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.server.Await;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delivery guarantee with real server processes: {@code kill -9} while calls to a slow receiver are in flight,
 * a second server on the same files, and a job whose webhook is the server itself across a restart. Assertions are on
 * what the receiver got (every instance, its key) and on the store as the API shows it.
 */
@ProcessLane
class DeliveryProcessTest {

    private static final int INSTANCES = 300;
    private static final int CALL_LIMIT = 250;
    /** A graceful stop lets calls end for up to 10 s; more is a hung server. */
    private static final Duration STOP_BOUND = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private String[] args(String... more) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--db-url",
                "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void kill9_withCallsInFlightToASlowReceiver_restartDeliversEveryInstance_repeatsCarryTheSameKey()
            throws Exception {
        String[] args = args("--max-calls-in-flight", Integer.toString(CALL_LIMIT),
                "--max-calls-per-host", Integer.toString(CALL_LIMIT));
        List<String> created = new ArrayList<>();
        String jobId;
        int maxDispatching = 0;
        try (WebhookReceiver receiver = new WebhookReceiver(Duration.ofSeconds(1), 16)) {
            try (ServerProcess first = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args))) {
                ApiClient api = new ApiClient(first.awaitBaseUrl(Duration.ofSeconds(60)));
                ApiClient.Reply job = api.post("/api/jobs", """
                        {"name": "slow target", "schedule": {"type": "API"},
                         "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}"""
                        .formatted(receiver.url()));
                assertEquals(201, job.status(), job.toString());
                jobId = job.json().get("id").asText();
                for (int i = 0; i < INSTANCES; i++) {
                    ApiClient.Reply run = api.post("/api/jobs/" + jobId + "/run", "{\"delayMs\": " + i + "}");
                    assertEquals(201, run.status(), run.toString());
                    created.add(run.json().get("instanceId").asText());
                }
                // Calls pile up at the 1 s receiver: at most CALL_LIMIT at once, and no more rows DISPATCHING.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (receiver.arrived() < 200 && System.nanoTime() < until) {
                    maxDispatching = Math.max(maxDispatching, count(api, jobId, "DISPATCHING"));
                }
                assertTrue(receiver.arrived() >= 200, "calls in flight before the kill: " + receiver.arrived());
                first.kill(); // SIGKILL with ~200 calls in flight, none answered yet
            }
            int arrivedBeforeKill = receiver.arrived();
            assertTrue(maxDispatching <= CALL_LIMIT, "DISPATCHING rows never exceed the calls in flight: "
                    + maxDispatching);

            try (ServerProcess second = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args))) {
                ApiClient api = new ApiClient(second.awaitBaseUrl(Duration.ofSeconds(60)));
                Await.until(() -> "every instance settled; last lines " + second.tail(), Duration.ofSeconds(60),
                        () -> count(api, jobId, "WAITING") == 0 && count(api, jobId, "DISPATCHING") == 0);
                List<JsonNode> instances = new ArrayList<>();
                api.get("/api/instances?limit=1000&jobId=" + jobId).json().get("items").forEach(instances::add);
                assertEquals(INSTANCES, instances.size());
                Set<String> ids = new HashSet<>();
                int repeated = 0;
                for (JsonNode instance : instances) {
                    String id = instance.get("id").asText();
                    ids.add(id);
                    assertEquals("SUCCEEDED", instance.get("status").asText(), "nothing fails because of the crash: "
                            + instance);
                    assertEquals(1, instance.get("attempt").asInt(), "a crash consumes no attempt: " + instance);
                    List<String> keys = receiver.keysOf(id);
                    assertTrue(!keys.isEmpty(), "instance " + id + " was never delivered");
                    assertEquals(Set.of(id + "-1"), new HashSet<>(keys), "every delivery of " + id + " has its key");
                    repeated += keys.size() - 1;
                }
                assertEquals(new HashSet<>(created), ids);
                assertTrue(repeated > 0, "the kill cut calls in flight (" + arrivedBeforeKill + " had arrived)");
                assertTrue(repeated <= CALL_LIMIT, "only calls in flight at the kill are repeated: " + repeated);
                second.terminate(STOP_BOUND);
            }
        }
    }

    @Test
    void secondServerProcess_onTheSameH2Files_exitsWithOneClearLine() throws Exception {
        try (ServerProcess first = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args()))) {
            first.awaitBaseUrl(Duration.ofSeconds(60));
            try (ServerProcess second = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args()))) {
                int exit = second.awaitExit(Duration.ofSeconds(60));

                assertEquals(3, exit, "exit code for a store in use; output " + second.output());
                List<String> errors = second.output().stream().filter(l -> l.startsWith("tickwheel: ")).toList();
                assertEquals(1, errors.size(), second.output().toString());
                assertTrue(errors.get(0).contains("in use by another process"), errors.get(0));
                assertTrue(second.output().stream().noneMatch(l -> l.startsWith("\tat ")), "no stack trace: "
                        + second.output());
            }
        }
    }

    @Test
    void restart_overdueCallToTheServerItself_succeeds_becauseSchedulingStartsAfterTheListener() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String[] args = {"--port", Integer.toString(port), "--demo", "--db-url",
                "jdbc:h2:file:" + dir.resolve("self").toAbsolutePath()};
        String instanceId;
        try (ServerProcess first = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args))) {
            ApiClient api = new ApiClient(first.awaitBaseUrl(Duration.ofSeconds(60)));
            ApiClient.Reply job = api.post("/api/jobs", """
                    {"name": "calls itself", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:%d/demo/echo"}}""".formatted(port));
            assertEquals(201, job.status(), job.toString());
            ApiClient.Reply run = api.post("/api/jobs/" + job.json().get("id").asText() + "/run",
                    "{\"delayMs\": 1500}");
            instanceId = run.json().get("instanceId").asText();
            first.kill(); // it is due while the server is down
        }
        try (ServerProcess second = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args))) {
            ApiClient api = new ApiClient(second.awaitBaseUrl(Duration.ofSeconds(60)));
            Await.until("the overdue call ends", Duration.ofSeconds(30), () -> !List.of("WAITING", "DISPATCHING")
                    .contains(api.get("/api/instances/" + instanceId).json().get("status").asText()));
            JsonNode instance = api.get("/api/instances/" + instanceId).json();
            assertEquals("SUCCEEDED", instance.get("status").asText(), instance.toString());
            second.terminate(STOP_BOUND);
        }
    }

    private static int count(ApiClient api, String jobId, String status) {
        return api.get("/api/instances?limit=1000&jobId=" + jobId + "&status=" + status).json().get("items").size();
    }
}
