package dev.tickwheel.openapi.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.Poll;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.openapi.client.ApiClient;
import dev.tickwheel.openapi.client.ApiException;
import dev.tickwheel.openapi.client.ApiResponse;
import dev.tickwheel.openapi.client.api.AccessApi;
import dev.tickwheel.openapi.client.api.ClusterApi;
import dev.tickwheel.openapi.client.api.InstancesApi;
import dev.tickwheel.openapi.client.api.JobsApi;
import dev.tickwheel.openapi.client.api.OperationsApi;
import dev.tickwheel.openapi.client.api.RunsApi;
import dev.tickwheel.openapi.client.model.Attempt;
import dev.tickwheel.openapi.client.model.Caller;
import dev.tickwheel.openapi.client.model.CancelInstancesRequest;
import dev.tickwheel.openapi.client.model.CancelInstancesRequestIdsInner;
import dev.tickwheel.openapi.client.model.CancelOutcome;
import dev.tickwheel.openapi.client.model.Cluster;
import dev.tickwheel.openapi.client.model.Health;
import dev.tickwheel.openapi.client.model.Instance;
import dev.tickwheel.openapi.client.model.InstancePage;
import dev.tickwheel.openapi.client.model.Job;
import dev.tickwheel.openapi.client.model.JobRequest;
import dev.tickwheel.openapi.client.model.NamespaceRequest;
import dev.tickwheel.openapi.client.model.RescheduleOutcome;
import dev.tickwheel.openapi.client.model.RescheduleRequest;
import dev.tickwheel.openapi.client.model.Retry;
import dev.tickwheel.openapi.client.model.RunJobBatchRequest;
import dev.tickwheel.openapi.client.model.RunRequest;
import dev.tickwheel.openapi.client.model.RunResult;
import dev.tickwheel.openapi.client.model.Schedule;
import dev.tickwheel.openapi.client.model.Status;
import dev.tickwheel.openapi.client.model.Target;
import dev.tickwheel.openapi.client.model.Token;
import dev.tickwheel.openapi.client.model.TokenRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client that openapi-generator makes from docs/openapi.yaml (java generator, native library: this module's
 * pom), used as a new user would against a real server in a JVM of its own (H2, a bearer token): jobs created with the
 * generated models (which send every default the spec documents), runs with and without a key, the instance read and
 * listed, cancelled and rescheduled, each call the server makes checked at the webhook, a namespace and a token
 * created, used, listed and revoked through the generated AccessApi, and the errors (400, 401, 403, 404, 409) read
 * through the generated {@link ApiException}.
 */
class GeneratedJavaClientTest {

    private static final String TOKEN = "client-check-token";
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String UNKNOWN_ID = "999999999";

    @TempDir
    static Path dataDir;

    static WebhookSink webhook;
    static ServerProcess server;
    static String baseUrl;
    static ApiClient client;
    static JobsApi jobs;
    static RunsApi runs;
    static InstancesApi instances;

    @BeforeAll
    static void start() throws IOException {
        webhook = new WebhookSink();
        server = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of("--port", "0",
                "--db-url", "jdbc:h2:file:" + dataDir.resolve("tickwheel").toAbsolutePath(), "--token", TOKEN));
        baseUrl = server.awaitBaseUrl(BOUND);
        OperationsApi operations = new OperationsApi(client(null));
        Poll.until(() -> "GET /health answering UP; last lines: " + server.tail(), BOUND, () -> {
            try {
                return operations.getHealth().getStatus() == Health.StatusEnum.UP;
            } catch (ApiException e) {
                return false; // 503 while the store or the wheels are not up yet
            }
        });
        client = client("Bearer " + TOKEN);
        jobs = new JobsApi(client);
        runs = new RunsApi(client);
        instances = new InstancesApi(client);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            if (server != null) {
                server.terminate(Duration.ofSeconds(30)); // SIGTERM, the graceful stop; killed if it hangs
            }
        } finally {
            if (webhook != null) {
                webhook.close();
            }
        }
    }

    /** A client of the server; {@code authorization} null for none (the native library leaves auth to the user). */
    private static ApiClient client(String authorization) {
        ApiClient apiClient = new ApiClient();
        apiClient.updateBaseUri(baseUrl);
        if (authorization != null) {
            apiClient.setRequestInterceptor(request -> request.header("Authorization", authorization));
        }
        return apiClient;
    }

    private static JobRequest webhookJob(String name) {
        return new JobRequest().name(name)
                .schedule(new Schedule().type(Schedule.TypeEnum.API))
                .target(new Target().type(Target.TypeEnum.WEBHOOK).url(webhook.url()))
                .params(Map.of("report", "daily"));
    }

    private static OffsetDateTime anHourAhead() {
        return OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).truncatedTo(ChronoUnit.SECONDS);
    }

    @Test
    void createJob_generatedModelWithItsDefaults_isCreatedAndReadBack() throws ApiException {
        Job created = jobs.createJob(webhookJob("client check: create"));

        assertNotNull(created.getId());
        assertEquals("client check: create", created.getName());
        assertEquals(webhook.url(), created.getTarget().getUrl());
        assertEquals(Map.of("report", "daily"), created.getParams());
        assertEquals(Boolean.TRUE, created.getEnabled());
        assertEquals(Job.MisfirePolicyEnum.FIRE_ONCE_NOW, created.getMisfirePolicy());
        assertEquals(Job.DeliveryEnum.AT_LEAST_ONCE, created.getDelivery());
        assertNull(created.getMaxConcurrent());
        assertNull(created.getOverLimit(), "the WAIT the model sent means no limit, shown as null");
        assertEquals(1, created.getRetry().getMaxAttempts());
        assertEquals(created, jobs.getJob(created.getId()));
        assertTrue(jobs.listJobs("client check: create", null, null, null).getItems().stream()
                .anyMatch(j -> j.getId().equals(created.getId())));
    }

    @Test
    void clusterAndHealth_oneMember_answerAsDocumented() throws ApiException {
        Cluster cluster = new ClusterApi(client).getCluster();
        Health health = new OperationsApi(client).getHealth();

        assertEquals(1, cluster.getNodes().size(), cluster.toString());
        assertTrue(cluster.getNodes().get(0).getSelf());
        assertTrue(cluster.getNodes().get(0).getLive());
        assertEquals(cluster.getNodeId(), cluster.getNodes().get(0).getNodeId());
        assertEquals(Health.StatusEnum.UP, health.getStatus());
        assertEquals(Health.StoreEnum.UP, health.getStore());
    }

    @Test
    void replaceEnableDisable_concurrencyLimit_roundTrips() throws ApiException {
        String id = jobs.createJob(webhookJob("client check: replace")).getId();

        Job replaced = jobs.replaceJob(id, webhookJob("client check: replaced").maxConcurrent(2)
                .overLimit(JobRequest.OverLimitEnum.SKIP).retry(new Retry().maxAttempts(3).backoffMs(1000L)));

        assertEquals(id, replaced.getId());
        assertEquals("client check: replaced", replaced.getName());
        assertEquals(2, replaced.getMaxConcurrent());
        assertEquals(Job.OverLimitEnum.SKIP, replaced.getOverLimit());
        assertEquals(3, replaced.getRetry().getMaxAttempts());
        assertEquals(1000L, replaced.getRetry().getBackoffMs());
        assertFalse(jobs.disableJob(id).getEnabled());
        assertTrue(jobs.enableJob(id).getEnabled());
    }

    @Test
    void runJob_withoutKey_createsAnInstanceThatCallsTheWebhook() throws Exception {
        String jobId = jobs.createJob(webhookJob("client check: run now")).getId();

        ApiResponse<RunResult> answer = runs.runJobWithHttpInfo(jobId, new RunRequest().params(Map.of("n", 1)));

        assertEquals(201, answer.getStatusCode());
        RunResult run = answer.getData();
        assertTrue(run.getCreated());
        assertNull(run.getKey());
        WebhookSink.Call call = webhook.awaitCall(run.getInstanceId(), BOUND);
        assertEquals("POST", call.method());
        assertEquals(run.getInstanceId() + "-1", call.header("Idempotency-Key"));
        assertEquals(run.getInstanceId(), call.body().get("instanceId").asText());
        assertEquals(jobId, call.body().get("jobId").asText());
        assertEquals(1, call.body().get("params").get("n").asInt(), call.body().toString());

        Instance done = awaitStatus(run.getInstanceId(), Status.SUCCEEDED);
        assertEquals(jobId, done.getJobId());
        assertEquals(1, done.getAttempt());
        List<Attempt> attempts = done.getAttempts();
        assertEquals(1, attempts.size(), attempts.toString());
        assertEquals(Attempt.OutcomeEnum.SUCCEEDED, attempts.get(0).getOutcome());
        assertEquals(1, webhook.callsFor(run.getInstanceId()).size());
    }

    @Test
    void runJob_sameKeyTwice_answersTheSameInstance() throws ApiException {
        String jobId = jobs.createJob(webhookJob("client check: keyed run")).getId();
        OffsetDateTime at = anHourAhead();

        // The generated RunRequest sends its default delayMs 0 beside at.
        ApiResponse<RunResult> first = runs.runJobWithHttpInfo(jobId, new RunRequest().key("order-1001").at(at));
        ApiResponse<RunResult> again = runs.runJobWithHttpInfo(jobId, new RunRequest().key("order-1001")
                .delayMs(5_000L));

        assertEquals(201, first.getStatusCode());
        assertTrue(first.getData().getCreated());
        assertEquals(at.toInstant(), first.getData().getExpectedTriggerTime().toInstant());
        assertEquals(200, again.getStatusCode());
        assertFalse(again.getData().getCreated());
        String instanceId = first.getData().getInstanceId();
        assertEquals(instanceId, again.getData().getInstanceId());
        assertEquals(at.toInstant(), again.getData().getExpectedTriggerTime().toInstant(), "the first call's time");
        assertEquals(instanceId, runs.getRunByKey(jobId, "order-1001").getId());

        Instance instance = instances.getInstance(instanceId);
        assertEquals(Status.WAITING, instance.getStatus());
        assertEquals("order-1001", instance.getKey());
        assertTrue(instance.getAttempts().isEmpty());
        InstancePage byKey = instances.listInstances(jobId, "order-1001", null, null, null, null, null, null);
        assertEquals(List.of(instanceId), byKey.getItems().stream().map(Instance::getId).toList());
    }

    @Test
    void listInstances_byJobAndStatus_newestFirst() throws ApiException {
        String jobId = jobs.createJob(webhookJob("client check: list")).getId();
        String older = runs.runJob(jobId, new RunRequest().delayMs(600_000L)).getInstanceId();
        String newer = runs.runJob(jobId, new RunRequest().delayMs(600_000L)).getInstanceId();
        assertEquals(CancelOutcome.OutcomeEnum.CANCELLED, instances.cancelInstance(older).getOutcome());

        InstancePage all = instances.listInstances(jobId, null, null, null, null, null, 10, null);
        InstancePage waiting = instances.listInstances(jobId, null, Status.WAITING, null, null, null, null, null);
        InstancePage firstPage = instances.listInstances(jobId, null, null, null, null, null, 1, null);
        InstancePage secondPage = instances.listInstances(jobId, null, null, null, null, null, 1,
                firstPage.getNextCursor());

        assertEquals(List.of(newer, older), all.getItems().stream().map(Instance::getId).toList());
        assertNull(all.getNextCursor());
        assertEquals(List.of(newer), waiting.getItems().stream().map(Instance::getId).toList());
        assertEquals(List.of(newer), firstPage.getItems().stream().map(Instance::getId).toList());
        assertEquals(List.of(older), secondPage.getItems().stream().map(Instance::getId).toList());
    }

    @Test
    void cancel_waitingInstance_isCancelled_andASecondCancelIs409() throws Exception {
        String jobId = jobs.createJob(webhookJob("client check: cancel")).getId();
        String instanceId = runs.runJob(jobId, new RunRequest().delayMs(600_000L)).getInstanceId();

        CancelOutcome cancelled = instances.cancelInstance(instanceId);

        assertEquals(CancelOutcome.OutcomeEnum.CANCELLED, cancelled.getOutcome());
        assertEquals(CancelOutcome.StatusEnum.CANCELLED, cancelled.getStatus());
        assertEquals(Status.CANCELLED, instances.getInstance(instanceId).getStatus());
        ApiException again = assertThrows(ApiException.class, () -> instances.cancelInstance(instanceId));
        assertEquals(409, again.getCode());
        CancelOutcome conflict = client.getObjectMapper().readValue(again.getResponseBody(), CancelOutcome.class);
        assertEquals(CancelOutcome.OutcomeEnum.ALREADY_FINISHED, conflict.getOutcome());
        assertEquals(instanceId, conflict.getInstanceId());
        assertTrue(webhook.callsFor(instanceId).isEmpty());
    }

    @Test
    void cancelByKeyAndInBatch_answerOneOutcomeEach() throws ApiException {
        String jobId = jobs.createJob(webhookJob("client check: batch")).getId();
        List<RunResult> made = runs.runJobBatch(jobId, new RunJobBatchRequest().runs(List.of(
                new RunRequest().key("a").delayMs(600_000L), new RunRequest().key("b").at(anHourAhead())))).getRuns();
        assertEquals(List.of("a", "b"), made.stream().map(RunResult::getKey).toList());

        assertEquals(CancelOutcome.OutcomeEnum.CANCELLED, runs.cancelRunByKey(jobId, "a").getOutcome());
        List<CancelOutcome> results = instances.cancelInstances(new CancelInstancesRequest().ids(List.of(
                new CancelInstancesRequestIdsInner(made.get(1).getInstanceId()),
                new CancelInstancesRequestIdsInner(Long.parseLong(UNKNOWN_ID))))).getResults();

        assertEquals(List.of(CancelOutcome.OutcomeEnum.CANCELLED, CancelOutcome.OutcomeEnum.NOT_FOUND),
                results.stream().map(CancelOutcome::getOutcome).toList());
        assertEquals(Status.CANCELLED, runs.getRunByKey(jobId, "a").getStatus());
    }

    @Test
    void reschedule_waitingInstanceToNow_callsTheWebhook_andOnceRunIs409() throws Exception {
        String jobId = jobs.createJob(webhookJob("client check: reschedule")).getId();
        String instanceId = runs.runJob(jobId, new RunRequest().key("later").delayMs(600_000L)).getInstanceId();

        RescheduleOutcome moved = runs.rescheduleRunByKey(jobId, "later", new RescheduleRequest().delayMs(0L));

        assertEquals(RescheduleOutcome.OutcomeEnum.RESCHEDULED, moved.getOutcome());
        assertEquals(instanceId, moved.getInstanceId());
        WebhookSink.Call call = webhook.awaitCall(instanceId, BOUND);
        assertEquals("later", call.body().get("key").asText());
        awaitStatus(instanceId, Status.SUCCEEDED);
        ApiException late = assertThrows(ApiException.class,
                () -> instances.rescheduleInstance(instanceId, new RescheduleRequest().at(anHourAhead())));
        assertEquals(409, late.getCode());
        RescheduleOutcome kept = client.getObjectMapper().readValue(late.getResponseBody(), RescheduleOutcome.class);
        assertEquals(RescheduleOutcome.OutcomeEnum.ALREADY_FINISHED, kept.getOutcome());
        assertEquals(1, webhook.callsFor(instanceId).size());
    }

    @Test
    void deleteJob_cancelsItsWaitingInstance_andTheJobIsThen404() throws ApiException, IOException {
        String jobId = jobs.createJob(webhookJob("client check: delete")).getId();
        String instanceId = runs.runJob(jobId, new RunRequest().delayMs(600_000L)).getInstanceId();

        ApiResponse<Void> deleted = jobs.deleteJobWithHttpInfo(jobId);

        assertEquals(204, deleted.getStatusCode());
        assertEquals(Status.CANCELLED, instances.getInstance(instanceId).getStatus());
        assertError(404, "not_found", null, () -> jobs.getJob(jobId));
    }

    @Test
    void unknownJobOrInstance_is404WithTheErrorBody() throws IOException {
        assertError(404, "not_found", null, () -> jobs.getJob(UNKNOWN_ID));
        assertError(404, "not_found", null, () -> runs.runJob(UNKNOWN_ID, new RunRequest()));
        assertError(404, "not_found", null, () -> instances.getInstance(UNKNOWN_ID));
        assertError(404, "not_found", null, () -> instances.cancelInstance(UNKNOWN_ID));
    }

    @Test
    void invalidRequests_are400NamingTheField() throws IOException, ApiException {
        assertError(400, "invalid_field", "retry.maxAttempts",
                () -> jobs.createJob(webhookJob("client check: bad").retry(new Retry().maxAttempts(0))));
        assertError(400, "invalid_field", "overLimit",
                () -> jobs.createJob(webhookJob("client check: bad").overLimit(JobRequest.OverLimitEnum.SKIP)));
        assertError(400, "invalid_target", "target.url",
                () -> jobs.createJob(webhookJob("client check: bad").target(new Target()
                        .type(Target.TypeEnum.WEBHOOK).url("ftp://example.com/x"))));
        assertError(400, "invalid_schedule", "schedule.expression",
                () -> jobs.createJob(webhookJob("client check: bad").schedule(new Schedule()
                        .type(Schedule.TypeEnum.CRON).expression("not a cron"))));
        String jobId = jobs.createJob(webhookJob("client check: bad runs")).getId();
        assertError(400, "invalid_field", "delayMs", () -> runs.runJob(jobId, new RunRequest().delayMs(-1L)));
        assertError(400, "invalid_field", "at",
                () -> runs.runJob(jobId, new RunRequest().delayMs(5L).at(anHourAhead())));
        assertError(400, "invalid_id", "id", () -> jobs.getJob("abc"));
        assertError(400, "invalid_field", "limit",
                () -> instances.listInstances(null, null, null, null, null, null, 0, null));
    }

    @Test
    void callsWithoutOrWithAWrongToken_are401_healthStaysOpen() throws IOException, ApiException {
        String jobId = jobs.createJob(webhookJob("client check: auth")).getId();
        JobsApi anonymous = new JobsApi(client(null));
        JobsApi wrong = new JobsApi(client("Bearer not-" + TOKEN));

        assertError(401, "unauthorized", null, () -> anonymous.createJob(webhookJob("client check: no token")));
        assertError(401, "unauthorized", null, () -> wrong.createJob(webhookJob("client check: wrong token")));
        assertError(401, "unauthorized", null, () -> new RunsApi(client(null)).runJob(jobId, new RunRequest()));
        assertError(401, "unauthorized", null, () -> wrong.deleteJob(jobId));
        assertError(401, "unauthorized", null, () -> anonymous.getJob(jobId));
        assertError(401, "unauthorized", null, () -> new InstancesApi(client(null)).listInstances(jobId, null, null,
                null, null, null, null, null));
        assertEquals(Health.StatusEnum.UP, new OperationsApi(client(null)).getHealth().getStatus());
    }

    @Test
    void namespaceAndToken_createdUsedListedAndRevoked_throughTheGeneratedAccessApi() throws IOException,
            ApiException {
        AccessApi access = new AccessApi(client);
        assertEquals("bootstrap", access.whoami().getName());
        assertEquals("check", access.createNamespace(new NamespaceRequest().name("check")).getName());
        Token created = access.createToken(new TokenRequest().name("check-operate").namespace("check")
                .role(TokenRequest.RoleEnum.OPERATE));
        assertTrue(created.getSecret().startsWith("tw_"), created.toString());

        ApiClient operator = client("Bearer " + created.getSecret());
        Caller me = new AccessApi(operator).whoami();
        assertEquals("check", me.getNamespace());
        assertEquals(Caller.RoleEnum.OPERATE, me.getRole());
        String jobId = jobs.createJob(webhookJob("client check: namespaced").namespace("check")).getId();
        assertEquals("check", new JobsApi(operator).getJob(jobId).getNamespace());
        assertError(403, "forbidden", null, () -> new JobsApi(operator).deleteJob(jobId));
        assertNull(access.getToken(created.getId()).getSecret(), "the secret is shown once");
        assertTrue(access.listTokens().getItems().stream().anyMatch(t -> t.getId().equals(created.getId())));
        assertFalse(access.listAudit("bootstrap", "check", null, null, null, null, 10, null).getItems().isEmpty());

        access.revokeToken(created.getId());
        assertError(401, "unauthorized", null, () -> new AccessApi(operator).whoami());
    }

    /** The call fails with {@code status}, and its body, read as the generated Error model, names code and field. */
    private static void assertError(int status, String code, String field, Executable call) throws IOException {
        ApiException e = assertThrows(ApiException.class, call);
        assertEquals(status, e.getCode(), e.getResponseBody());
        dev.tickwheel.openapi.client.model.Error error = client.getObjectMapper()
                .readValue(e.getResponseBody(), dev.tickwheel.openapi.client.model.Error.class);
        assertEquals(code, error.getError(), e.getResponseBody());
        assertEquals(field, error.getField(), e.getResponseBody());
        assertFalse(error.getMessage().isBlank(), e.getResponseBody());
        if (field != null) {
            assertTrue(error.getMessage().contains(field), "the message names " + field + ": " + error.getMessage());
        }
    }

    private static Instance awaitStatus(String instanceId, Status status) {
        Instance[] last = new Instance[1];
        Poll.until(() -> "instance " + instanceId + " " + status + ", last seen " + last[0], BOUND, () -> {
            try {
                last[0] = instances.getInstance(instanceId);
            } catch (ApiException e) {
                throw new AssertionError("GET /api/instances/" + instanceId + ": " + e.getCode() + " "
                        + e.getResponseBody(), e);
            }
            return last[0].getStatus() == status;
        });
        return last[0];
    }
}
