package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.InstanceStatus;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.RunResult;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries that do not duplicate: a proxy between the client and a real server loses answers ({@link DroppingProxy}).
 * A keyed run whose answer is lost is repeated and the server answers the instance the first attempt made: one
 * instance, one webhook call. An unkeyed run whose answer is lost is not repeated: the caller gets an exception. A
 * 503 is retried for a read and not for a create; each attempt asks the token supplier again.
 */
class TickwheelClientRetryTest {

    private static final Duration FIRE_BOUND = Duration.ofSeconds(20);
    private static final RetryPolicy QUICK_RETRIES = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(20));

    @TempDir
    static Path data;

    private static H2Server server;
    private static WebhookReceiver receiver;
    private static TickwheelClient direct;

    private DroppingProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, null);
        receiver = new WebhookReceiver();
        direct = TickwheelClient.builder(server.baseUrl()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        direct.close();
        receiver.close();
        server.close();
    }

    @BeforeEach
    void startProxy() throws Exception {
        proxy = new DroppingProxy(server.port());
    }

    @AfterEach
    void stopProxy() throws Exception {
        proxy.close();
    }

    /** A new client through the proxy: its first call opens a fresh connection, which the proxy looks at. */
    private TickwheelClient throughProxy() {
        return TickwheelClient.builder(proxy.baseUrl()).retryPolicy(QUICK_RETRIES).build();
    }

    private static Job job() {
        return direct.jobs().create(JobRequest.builder("retry " + UUID.randomUUID(), Schedule.api(),
                Target.webhook(receiver.url())).build());
    }

    @Test
    void keyedRun_answerLost_isRepeated_andTheServerAnswersTheOneInstanceTheFirstAttemptMade() throws Exception {
        Job job = job();
        String runLine = "POST /api/jobs/" + job.id() + "/run ";
        proxy.dropAnswers(runLine, 1);

        RunResult result;
        try (TickwheelClient client = throughProxy()) {
            result = client.jobs().run(job.id(), RunRequest.now().withKey("order-1"));
        }

        assertEquals(1, proxy.dropped(), "the first attempt's answer was lost after the server answered");
        assertEquals(2, proxy.heads(runLine).size(), "the run was sent twice");
        assertFalse(result.created(), "the repeat found the instance the first attempt made");
        List<Instance> instances = direct.instances().list(InstanceQuery.all().job(job.id())).items();
        assertEquals(List.of(result.instanceId()), instances.stream().map(Instance::id).toList());
        assertEquals("order-1", instances.get(0).key());
        WebhookReceiver.Call call = receiver.next(FIRE_BOUND);
        assertTrue(call.body().contains("\"" + result.instanceId() + "\""), call.body());
        Await.until(() -> direct.instances().get(result.instanceId()), i -> i.status() == InstanceStatus.SUCCEEDED,
                FIRE_BOUND, "SUCCEEDED");
        assertEquals(1, receiver.all().stream().filter(c -> c.body().contains("\"" + result.instanceId() + "\""))
                .count(), "one webhook call for the key");
    }

    @Test
    void unkeyedRun_answerLost_isNotRepeated_andTheCallerIsToldItMayHaveBeenMade() {
        Job job = job();
        String runLine = "POST /api/jobs/" + job.id() + "/run ";
        proxy.dropAnswers(runLine, 1);

        UnavailableException lost;
        try (TickwheelClient client = throughProxy()) {
            lost = assertThrows(UnavailableException.class, () -> client.jobs().run(job.id(),
                    RunRequest.after(Duration.ofHours(1))));
        }

        assertEquals(UnavailableException.CONNECTION_FAILED, lost.code());
        assertEquals(1, lost.attempts());
        assertTrue(lost.getMessage().contains("not safe to repeat"), lost.getMessage());
        assertEquals(1, proxy.heads(runLine).size(), "sent once");
        assertEquals(1, direct.instances().list(InstanceQuery.all().job(job.id())).items().size(),
                "the server made it: why an unkeyed run must not be repeated blindly");
    }

    @Test
    void keyedBatch_answerLost_isRepeated_andCreatesNothingNew() {
        Job job = job();
        String runsLine = "POST /api/jobs/" + job.id() + "/runs ";
        proxy.dropAnswers(runsLine, 1);

        List<RunResult> results;
        try (TickwheelClient client = throughProxy()) {
            results = client.jobs().runAll(job.id(), List.of(RunRequest.after(Duration.ofHours(1)).withKey("k-1"),
                    RunRequest.after(Duration.ofHours(1)).withKey("k-2")));
        }

        assertEquals(2, proxy.heads(runsLine).size());
        assertTrue(results.stream().noneMatch(RunResult::created), results.toString());
        assertEquals(2, direct.instances().list(InstanceQuery.all().job(job.id())).items().size());
    }

    @Test
    void batchWithAnUnkeyedItem_answerLost_isNotRepeated() {
        Job job = job();
        String runsLine = "POST /api/jobs/" + job.id() + "/runs ";
        proxy.dropAnswers(runsLine, 1);

        try (TickwheelClient client = throughProxy()) {
            assertThrows(UnavailableException.class, () -> client.jobs().runAll(job.id(), List.of(
                    RunRequest.after(Duration.ofHours(1)).withKey("k-1"), RunRequest.after(Duration.ofHours(1)))));
        }

        assertEquals(1, proxy.heads(runsLine).size());
    }

    @Test
    void cancel_answerLost_isRepeated_andTheRepeatSaysAlreadyFinishedCancelled() {
        Job job = job();
        RunResult run = direct.jobs().run(job.id(), RunRequest.after(Duration.ofHours(1)));
        String cancelLine = "POST /api/instances/" + run.instanceId() + "/cancel ";
        proxy.dropAnswers(cancelLine, 1);

        ConflictException repeat;
        try (TickwheelClient client = throughProxy()) {
            repeat = assertThrows(ConflictException.class, () -> client.instances().cancel(run.instanceId()));
        }

        assertEquals(2, proxy.heads(cancelLine).size());
        assertEquals(2, repeat.attempts());
        assertEquals("ALREADY_FINISHED", repeat.code());
        assertEquals(InstanceStatus.CANCELLED, repeat.instanceStatus(), "it will never run");
    }

    @Test
    void read_answered503_isRetried_untilTheServerAnswers() {
        Job job = job();
        String getLine = "GET /api/jobs/" + job.id() + " ";
        proxy.answer503(getLine, 2);

        try (TickwheelClient client = throughProxy()) {
            assertEquals(job.name(), client.jobs().get(job.id()).name());
        }

        assertEquals(3, proxy.heads(getLine).size());
    }

    @Test
    void read_answered503_onEveryAttempt_isUnavailable_withTheServersCode() {
        Job job = job();
        String getLine = "GET /api/jobs/" + job.id() + " ";
        proxy.answer503(getLine, 10);

        UnavailableException unavailable;
        try (TickwheelClient client = throughProxy()) {
            unavailable = assertThrows(UnavailableException.class, () -> client.jobs().get(job.id()));
        }

        assertEquals(503, unavailable.httpStatus());
        assertEquals("store_unavailable", unavailable.code());
        assertEquals(3, unavailable.attempts());
        assertEquals(3, proxy.heads(getLine).size());
    }

    @Test
    void create_answered503_isNotRetried() {
        String createLine = "POST /api/jobs ";
        proxy.answer503(createLine, 10);

        UnavailableException unavailable;
        try (TickwheelClient client = throughProxy()) {
            unavailable = assertThrows(UnavailableException.class, () -> client.jobs().create(JobRequest.builder(
                    "never", Schedule.api(), Target.webhook(receiver.url())).build()));
        }

        assertEquals(1, unavailable.attempts());
        assertEquals(1, proxy.heads(createLine).size());
    }

    @Test
    void retry_asksTheTokenSupplierAgain() {
        Job job = job();
        String getLine = "GET /api/jobs/" + job.id() + " ";
        proxy.answer503(getLine, 1);
        Iterator<String> tokens = Stream.of("token-1", "token-2").iterator();

        try (TickwheelClient client = TickwheelClient.builder(proxy.baseUrl()).retryPolicy(QUICK_RETRIES)
                .tokenSupplier(tokens::next).build()) {
            client.jobs().get(job.id());
        }

        assertEquals(List.of("Bearer token-1", "Bearer token-2"),
                proxy.heads(getLine).stream().map(h -> h.header("Authorization")).toList());
    }

    @Test
    void keyedRun_answerLost_isRepeated_alsoInTheAsyncForm() throws Exception {
        Job job = job();
        String runLine = "POST /api/jobs/" + job.id() + "/run ";
        proxy.dropAnswers(runLine, 1);

        RunResult result;
        try (TickwheelClient client = throughProxy()) {
            result = client.jobs().runAsync(job.id(), RunRequest.after(Duration.ofHours(1)).withKey("async-1"))
                    .get();
        }

        assertFalse(result.created());
        assertEquals(2, proxy.heads(runLine).size());
        assertEquals(List.of(result.instanceId()), direct.instances().list(InstanceQuery.all().job(job.id())).items()
                .stream().map(Instance::id).toList());
    }
}
