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
import dev.tickwheel.client.model.AttemptOutcome;
import dev.tickwheel.client.model.Calendar;
import dev.tickwheel.client.model.CalendarRequest;
import dev.tickwheel.client.model.CancelOutcome;
import dev.tickwheel.client.model.CancelResult;
import dev.tickwheel.client.model.ClusterView;
import dev.tickwheel.client.model.Completion;
import dev.tickwheel.client.model.Health;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.InstanceStatus;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobQuery;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.JobRetry;
import dev.tickwheel.client.model.MisfirePolicy;
import dev.tickwheel.client.model.OverLimit;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.Pool;
import dev.tickwheel.client.model.PoolRate;
import dev.tickwheel.client.model.PoolRequest;
import dev.tickwheel.client.model.RescheduleOutcome;
import dev.tickwheel.client.model.RescheduleRequest;
import dev.tickwheel.client.model.RescheduleResult;
import dev.tickwheel.client.model.RetryJitter;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.RunResult;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.ScheduleType;
import dev.tickwheel.client.model.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operation of the API through the client, against a real server in its own JVM (H2, no token), and the error
 * classes its real answers give: NotFound, Conflict and Validation here; Unauthorized in
 * {@link TickwheelClientAuthTest}; Unavailable in {@link TickwheelClientRetryTest} and
 * {@link TickwheelClientTimeoutTest}; the rest in {@link StubServerTest}.
 */
class TickwheelClientTest {

    private static final Duration FIRE_BOUND = Duration.ofSeconds(20);
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

    private static String unique(String name) {
        return name + " " + UUID.randomUUID();
    }

    private static Job onDemandJob(String name) {
        return client.jobs().create(JobRequest.builder(unique(name), Schedule.api(),
                Target.webhook(receiver.url())).build());
    }

    @Test
    void jobs_scheduleWindowAndJitter_areSentAndReadBack() {
        Instant start = Instant.parse("2031-01-01T00:00:00Z");
        Schedule schedule = Schedule.cron("0 0 * * * ?", "UTC").withJitter(Duration.ofMinutes(10), true)
                .withWindow(start, Instant.parse("2031-12-31T00:00:00Z")).withMaxRuns(5);
        Job created = client.jobs().create(JobRequest.builder(unique("windowed"), schedule,
                Target.webhook(receiver.url())).build());
        assertEquals(schedule, client.jobs().get(created.id()).schedule());
        assertEquals(start, created.nextTriggerTime(), "nothing before the start");

        ValidationException refused = assertThrows(ValidationException.class, () -> client.jobs().create(
                JobRequest.builder(unique("api"), Schedule.api().withMaxRuns(3), Target.webhook(receiver.url()))
                        .build()));
        assertEquals("schedule.maxRuns", refused.field());
    }

    @Test
    void calendars_createListGetDelete_andAJobThatNamesOne() {
        String name = "plant-" + UUID.randomUUID().toString().substring(0, 8);
        Calendar created = client.calendars().create(CalendarRequest.of(name, java.time.ZoneId.of("Europe/Berlin"),
                List.of(java.time.LocalDate.parse("2026-12-25")), List.of(java.time.DayOfWeek.SUNDAY)));
        assertEquals(List.of("2026-12-25"), created.excludedDates());
        assertEquals(List.of("SUNDAY"), created.excludedWeekdays());
        assertEquals("Europe/Berlin", created.zone());
        assertEquals(created, client.calendars().get(name));
        assertTrue(client.calendars().list().contains(created));
        Calendar replaced = client.calendars().replace(name, CalendarRequest.of(name, java.time.ZoneId.of("UTC"),
                List.of(java.time.LocalDate.parse("2027-01-01")), List.of()));
        assertEquals(List.of("2027-01-01"), replaced.excludedDates());
        assertEquals(replaced, client.calendars().get(name));
        assertThrows(ConflictException.class, () -> client.calendars().create(new CalendarRequest(name, null, null, null,
                null)));

        Job job = client.jobs().create(JobRequest.builder(unique("shift"), Schedule.cron("0 0 6 * * ?", "UTC"),
                Target.webhook(receiver.url())).calendar(name).build());
        assertEquals(name, job.calendar());
        assertThrows(ConflictException.class, () -> client.calendars().delete(name));
        client.jobs().delete(job.id());
        client.calendars().delete(name);
        assertThrows(NotFoundException.class, () -> client.calendars().get(name));
    }

    @Test
    void pools_createGetListReplaceDelete_andTheErrorsOfEach() throws Exception {
        String name = "partner-" + UUID.randomUUID().toString().substring(0, 8);
        Pool created = client.pools().create(PoolRequest.of(name, 4).withRate(50, Duration.ofSeconds(1)));
        assertEquals(name, created.name());
        assertEquals(4, created.maxConcurrent());
        assertEquals(new PoolRate(50, 1_000), created.rate());
        assertNotNull(created.createdAt());
        assertEquals(created, client.pools().get(name));
        assertTrue(client.pools().list().contains(created));
        ConflictException taken = assertThrows(ConflictException.class,
                () -> client.pools().create(PoolRequest.of(name, 1)));
        assertEquals("name_taken", taken.code());

        Pool replaced = client.pools().replace(name, PoolRequest.of(name, 2));
        assertEquals(new Pool(name, 2, null, created.createdAt(), "default"), replaced, "no rate: none; the creation time kept");
        assertEquals(replaced, client.pools().getAsync(name).get());
        Pool rateOnly = client.pools().replaceAsync(name, PoolRequest.of(name, 0).withRate(1, Duration.ofMinutes(1)))
                .get();
        assertEquals(new PoolRate(1, 60_000), rateOnly.rate());
        assertEquals(List.of(rateOnly), client.pools().listAsync().get().stream()
                .filter(pool -> pool.name().equals(name)).toList());

        assertEquals("maxConcurrent", assertThrows(ValidationException.class,
                () -> client.pools().create(PoolRequest.of(name + "-idle", 0))).field());
        assertEquals("rate.permits", assertThrows(ValidationException.class,
                () -> client.pools().replace(name, PoolRequest.of(name, 1).withRate(0, Duration.ofSeconds(1))))
                .field());
        assertThrows(NotFoundException.class, () -> client.pools().replace(name + "-none",
                PoolRequest.of(name + "-none", 1)));

        client.pools().deleteAsync(name).get();
        assertThrows(NotFoundException.class, () -> client.pools().get(name));
        assertThrows(NotFoundException.class, () -> client.pools().delete(name));
    }

    @Test
    void jobs_retryCurveAndDelayList_areSentAndReadBackInTheirOwnForm() {
        JobRetry curve = JobRetry.exponential(6, Duration.ofSeconds(1), 2.5, Duration.ofMinutes(1), RetryJitter.FULL);
        Job withCurve = client.jobs().create(JobRequest.builder(unique("curve"), Schedule.api(),
                Target.webhook(receiver.url())).retry(curve).build());
        assertEquals(curve, withCurve.retry());

        JobRetry delays = JobRetry.delays(4, List.of(Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(10)), RetryJitter.EQUAL);
        Job withDelays = client.jobs().create(JobRequest.builder(unique("delays"), Schedule.api(),
                Target.webhook(receiver.url())).retry(delays).build());
        assertEquals(delays, client.jobs().get(withDelays.id()).retry());
        assertEquals(List.of(1_000L, 60_000L, 600_000L), withDelays.retry().delaysMs());
        assertNull(withDelays.retry().backoffMs(), "a list has no curve");

        ValidationException refused = assertThrows(ValidationException.class,
                () -> client.jobs().create(JobRequest.builder(unique("both"), Schedule.api(),
                        Target.webhook(receiver.url())).retry(new JobRetry(3, 100L, null, null, null,
                        List.of(1_000L))).build()));
        assertEquals("retry.delaysMs", refused.field());
    }

    @Test
    void jobs_createGetListReplaceEnableDisableDelete_eachAnswersTheJob() {
        String name = unique("report");
        Job created = client.jobs().create(JobRequest.builder(name, Schedule.api(), Target.webhook(receiver.url()))
                .params(Map.of("to", "ops", "copies", 2))
                .retry(3, Duration.ofMillis(250))
                .misfirePolicy(MisfirePolicy.SKIP)
                .timeout(Duration.ofSeconds(5))
                .maxConcurrent(4, OverLimit.SKIP)
                .retentionDays(7)
                .signingSecret("0123456789abcdef-secret")
                .build());

        assertTrue(created.id() > 0, "id " + created.id());
        assertEquals(name, created.name());
        assertEquals(ScheduleType.API, created.schedule().type());
        assertEquals(receiver.url(), created.target().url());
        assertEquals("ops", created.params().get("to").asText());
        assertEquals(2, created.params().get("copies").asInt());
        assertEquals(3, created.retry().maxAttempts());
        assertEquals(250L, created.retry().backoffMs());
        assertEquals(MisfirePolicy.SKIP, created.misfirePolicy());
        assertEquals(5_000L, created.timeoutMs());
        assertEquals(4, created.maxConcurrent());
        assertEquals(OverLimit.SKIP, created.overLimit());
        assertEquals(7, created.retentionDays());
        assertTrue(created.signed());
        assertTrue(created.enabled());
        assertNotNull(created.createdAt());

        Job read = client.jobs().get(created.id());
        assertEquals(created.id(), read.id());
        assertEquals(created.createdAt(), read.createdAt());

        Job replaced = client.jobs().replace(created.id(), JobRequest.builder(name + " nightly",
                Schedule.cron("0 0 2 * * ?", "Europe/Berlin"), Target.webhook(receiver.url())).enabled(false).build());
        assertEquals(name + " nightly", replaced.name());
        assertEquals(ScheduleType.CRON, replaced.schedule().type());
        assertEquals("0 0 2 * * ?", replaced.schedule().expression());
        assertEquals("Europe/Berlin", replaced.schedule().zone());
        assertFalse(replaced.enabled());
        assertTrue(replaced.signed(), "a replace without a secret keeps the stored one");
        assertNull(replaced.maxConcurrent(), "a replace sets every field: left out, it takes its default");

        assertTrue(client.jobs().enable(created.id()).enabled());
        assertNotNull(client.jobs().get(created.id()).nextTriggerTime(), "an enabled cron job has a next trigger");
        assertFalse(client.jobs().disable(created.id()).enabled());
        Job unsigned = client.jobs().replace(created.id(), JobRequest.builder(name, Schedule.api(),
                Target.webhook(receiver.url())).removeSigningSecret().build());
        assertFalse(unsigned.signed());

        client.jobs().delete(created.id());
        NotFoundException gone = assertThrows(NotFoundException.class, () -> client.jobs().get(created.id()));
        assertEquals(404, gone.httpStatus());
        assertEquals("not_found", gone.code());
        assertTrue(gone.getMessage().contains("job " + created.id()), gone.getMessage());
    }

    @Test
    void jobs_list_byName_pagesWithTheCursor() {
        String prefix = "page " + UUID.randomUUID();
        Job a = client.jobs().create(JobRequest.builder(prefix + " a", Schedule.api(), Target.webhook(receiver.url()))
                .build());
        Job b = client.jobs().create(JobRequest.builder(prefix + " b", Schedule.api(), Target.webhook(receiver.url()))
                .build());

        Page<Job> first = client.jobs().list(JobQuery.all().nameContains(prefix.toUpperCase()).limit(1));
        assertEquals(List.of(a.id()), first.items().stream().map(Job::id).toList());
        assertTrue(first.hasNext());
        Page<Job> second = client.jobs().list(JobQuery.all().nameContains(prefix).limit(1).after(first.nextCursor()));
        assertEquals(List.of(b.id()), second.items().stream().map(Job::id).toList());
        Page<Job> both = client.jobs().list(JobQuery.all().nameContains(prefix));
        assertEquals(2, both.items().size());
        assertFalse(both.hasNext());
    }

    @Test
    void run_now_callsTheWebhookOnce_andTheInstanceShowsItsAttempt() throws Exception {
        Job job = onDemandJob("run now");

        RunResult run = client.jobs().run(job.id(), RunRequest.now().withParams(Map.of("to", "ops")));

        assertTrue(run.created());
        assertNull(run.key());
        assertEquals(InstanceStatus.WAITING, run.status());
        WebhookReceiver.Call call = receiver.next(FIRE_BOUND);
        JsonNode body = JSON.readTree(call.body());
        assertEquals(Long.toString(run.instanceId()), body.get("instanceId").asText());
        assertEquals("ops", body.get("params").get("to").asText());
        assertEquals(run.instanceId() + "-1", call.idempotencyKey());
        Instance done = Await.until(() -> client.instances().get(run.instanceId()),
                i -> i.status() == InstanceStatus.SUCCEEDED, FIRE_BOUND, "SUCCEEDED");
        assertEquals(job.id(), done.jobId());
        assertEquals(job.name(), done.jobName());
        assertEquals(1, done.attempt());
        assertEquals(1, done.attempts().size());
        assertEquals(AttemptOutcome.SUCCEEDED, done.attempts().get(0).outcome());
        assertNotNull(done.actualTriggerTime());
        assertEquals("ops", done.params().get("to").asText());
        assertEquals(run.instanceId() + "-1", done.output().get("received").asText(), "the webhook's JSON answer");
    }

    @Test
    void completesByCallback_isSentAndReadBack_theInstanceAwaitsTheReportToItsCallbackUrl() throws Exception {
        Job job = client.jobs().create(JobRequest.builder(unique("later"), Schedule.api(),
                Target.webhook(receiver.url())).completesByCallback(Duration.ofMinutes(5)).build());
        assertEquals(Completion.CALLBACK, job.completion());
        assertEquals(300_000L, job.callbackTimeoutMs());
        assertEquals(Completion.IMMEDIATE, onDemandJob("now").completion());

        RunResult run = client.jobs().run(job.id(), RunRequest.now());
        String callbackUrl = JSON.readTree(receiver.next(FIRE_BOUND).body()).get("callbackUrl").asText();
        Instance awaiting = Await.until(() -> client.instances().get(run.instanceId()),
                i -> i.callbackDeadline() != null, FIRE_BOUND, "awaiting its callback");
        assertEquals(InstanceStatus.DISPATCHING, awaiting.status());

        java.net.http.HttpResponse<String> reported = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(callbackUrl))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"outcome\": \"SUCCEEDED\"}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, reported.statusCode(), reported.body());
        Instance done = client.instances().get(run.instanceId());
        assertEquals(InstanceStatus.SUCCEEDED, done.status());
        assertNull(done.callbackDeadline());
    }

    @Test
    void run_withKey_repeatAnswersTheSameInstance_andEveryByKeyOperationFindsIt() {
        Job job = onDemandJob("keyed");
        String key = "order 1001-ü"; // a space and a non-ASCII letter, percent-encoded in the by-key paths

        RunResult first = client.jobs().run(job.id(), RunRequest.after(Duration.ofHours(1)).withKey(key));
        RunResult again = client.jobs().run(job.id(), RunRequest.now().withKey(key).withParams("ignored"));

        assertTrue(first.created());
        assertFalse(again.created());
        assertEquals(first.instanceId(), again.instanceId());
        assertEquals(first.expectedTriggerTime(), again.expectedTriggerTime(), "the repeat's time is ignored");
        Instance byKey = client.jobs().getRun(job.id(), key);
        assertEquals(first.instanceId(), byKey.id());
        assertEquals(key, byKey.key());
        Page<Instance> listed = client.instances().list(InstanceQuery.all().job(job.id()).key(key));
        assertEquals(List.of(first.instanceId()), listed.items().stream().map(Instance::id).toList());

        Instant at = Instant.now().plus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        RescheduleResult moved = client.jobs().rescheduleRun(job.id(), key, RescheduleRequest.at(at));
        assertEquals(RescheduleOutcome.RESCHEDULED, moved.outcome());
        assertEquals(at, moved.expectedTriggerTime());
        assertEquals(key, moved.key());

        CancelResult cancelled = client.jobs().cancelRun(job.id(), key);
        assertEquals(CancelOutcome.CANCELLED, cancelled.outcome());
        assertEquals(first.instanceId(), cancelled.instanceId());
        assertEquals(InstanceStatus.CANCELLED, cancelled.status());
        ConflictException late = assertThrows(ConflictException.class, () -> client.jobs().cancelRun(job.id(), key));
        assertEquals(409, late.httpStatus());
        assertEquals("ALREADY_FINISHED", late.code());
        assertEquals(first.instanceId(), late.instanceId());
        assertEquals(InstanceStatus.CANCELLED, late.instanceStatus());
        ConflictException tooLate = assertThrows(ConflictException.class, () -> client.jobs().rescheduleRun(job.id(),
                key, RescheduleRequest.after(Duration.ofMinutes(1))));
        assertEquals("ALREADY_FINISHED", tooLate.code());
        NotFoundException noKey = assertThrows(NotFoundException.class, () -> client.jobs().getRun(job.id(), "nope"));
        assertTrue(noKey.getMessage().contains("'nope'"), noKey.getMessage());
    }

    @Test
    void runAll_returnsOneResultPerItemInOrder_andCancelAllOneOutcomePerId() {
        Job job = onDemandJob("batch");

        List<RunResult> runs = client.jobs().runAll(job.id(), List.of(
                RunRequest.after(Duration.ofHours(1)).withKey("b-1"),
                RunRequest.after(Duration.ofHours(1)),
                RunRequest.after(Duration.ofHours(1)).withKey("b-1")));

        assertEquals(3, runs.size());
        assertTrue(runs.get(0).created());
        assertEquals("b-1", runs.get(0).key());
        assertTrue(runs.get(1).created());
        assertFalse(runs.get(2).created(), "a key given twice names one instance");
        assertEquals(runs.get(0).instanceId(), runs.get(2).instanceId());

        long unknown = runs.get(1).instanceId() + 1_000_000;
        List<CancelResult> cancels = client.instances().cancelAll(List.of(runs.get(0).instanceId(),
                runs.get(1).instanceId(), unknown));
        assertEquals(List.of(CancelOutcome.CANCELLED, CancelOutcome.CANCELLED, CancelOutcome.NOT_FOUND),
                cancels.stream().map(CancelResult::outcome).toList());
        assertEquals(List.of(runs.get(0).instanceId(), runs.get(1).instanceId(), unknown),
                cancels.stream().map(CancelResult::instanceId).toList());
    }

    @Test
    void instances_rescheduleByDelay_thenCancel_thenASecondCancelIsAConflict() {
        Job job = onDemandJob("reschedule");
        RunResult run = client.jobs().run(job.id(), RunRequest.after(Duration.ofHours(1)));

        Instant before = Instant.now();
        RescheduleResult moved = client.instances().reschedule(run.instanceId(),
                RescheduleRequest.after(Duration.ofHours(3)).withParams(List.of(1, 2)));

        assertEquals(RescheduleOutcome.RESCHEDULED, moved.outcome());
        assertTrue(moved.expectedTriggerTime().isAfter(before.plus(Duration.ofMinutes(179))),
                moved.expectedTriggerTime().toString());
        assertEquals(2, client.instances().get(run.instanceId()).params().size());
        assertEquals(CancelOutcome.CANCELLED, client.instances().cancel(run.instanceId()).outcome());
        ConflictException again = assertThrows(ConflictException.class,
                () -> client.instances().cancel(run.instanceId()));
        assertEquals("ALREADY_FINISHED", again.code());
        assertEquals(InstanceStatus.CANCELLED, again.instanceStatus());
        assertThrows(NotFoundException.class, () -> client.instances().cancel(run.instanceId() + 1_000_000));
    }

    @Test
    void instances_list_filtersByJobStatusAndTime_andPagesNewestFirst() {
        Job job = onDemandJob("history");
        Instant from = Instant.now().minusSeconds(1);
        List<RunResult> runs = client.jobs().runAll(job.id(), List.of(RunRequest.after(Duration.ofHours(1)),
                RunRequest.after(Duration.ofHours(1)), RunRequest.after(Duration.ofHours(1))));
        client.instances().cancel(runs.get(0).instanceId());

        Page<Instance> first = client.instances().list(InstanceQuery.all().job(job.id())
                .status(InstanceStatus.WAITING).limit(1));
        Page<Instance> second = client.instances().list(InstanceQuery.all().job(job.id())
                .status(InstanceStatus.WAITING).limit(1).after(first.nextCursor()));

        assertEquals(List.of(runs.get(2).instanceId()), first.items().stream().map(Instance::id).toList());
        assertEquals(List.of(runs.get(1).instanceId()), second.items().stream().map(Instance::id).toList());
        Page<Instance> cancelled = client.instances().list(InstanceQuery.all().job(job.id())
                .status(InstanceStatus.CANCELLED));
        assertEquals(List.of(runs.get(0).instanceId()), cancelled.items().stream().map(Instance::id).toList());
        assertEquals(3, client.instances().list(InstanceQuery.all().job(job.id()).created(from, null)).items().size());
        assertEquals(0, client.instances().list(InstanceQuery.all().job(job.id()).created(null, from)).items().size());
        assertTrue(first.items().get(0).attempts().isEmpty(), "pages carry no attempts");
    }

    @Test
    void healthAndCluster_describeTheRunningServer() {
        Health health = client.health();
        ClusterView cluster = client.cluster();

        assertTrue(health.up(), health.toString());
        assertEquals(1, cluster.nodes().size());
        assertTrue(cluster.nodes().get(0).self());
        assertTrue(cluster.nodes().get(0).live());
        assertEquals(cluster.nodeId(), cluster.nodes().get(0).nodeId());
        assertEquals(cluster.shardCount(), cluster.shards().size());
        assertNotNull(cluster.nodes().get(0).startedAt());
    }

    @Test
    void asyncForms_completeWithTheAnswer_orExceptionallyWithTheTypedException() throws Exception {
        CompletableFuture<RunResult> run = client.jobs().createAsync(JobRequest.builder(unique("async"),
                Schedule.api(), Target.webhook(receiver.url())).build())
                .thenCompose(job -> client.jobs().runAsync(job.id(), RunRequest.after(Duration.ofHours(1))));
        RunResult result = run.get();
        assertEquals(result.instanceId(), client.instances().getAsync(result.instanceId()).get().id());

        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> client.instances().getAsync(result.instanceId() + 1_000_000).get());
        assertInstanceOf(NotFoundException.class, failed.getCause());
    }

    @Test
    void validationErrors_carryTheServersCodeFieldAndMessage() {
        ValidationException cron = assertThrows(ValidationException.class, () -> client.jobs().create(
                JobRequest.builder(unique("bad"), Schedule.cron("0 0 25 * * ?", null), Target.webhook(receiver.url()))
                        .build()));
        assertEquals(400, cron.httpStatus());
        assertEquals("invalid_schedule", cron.code());
        assertEquals("schedule.expression", cron.field());
        assertTrue(cron.getMessage().contains("25"), cron.getMessage());
        assertEquals(1, cron.attempts(), "a 400 is never retried");

        ValidationException query = assertThrows(ValidationException.class, () -> client.instances().list(
                InstanceQuery.all().created(Instant.now(), Instant.now().minusSeconds(60))));
        assertEquals("from", query.field());

        Job job = onDemandJob("too large");
        ValidationException tooLarge = assertThrows(ValidationException.class, () -> client.jobs().run(job.id(),
                RunRequest.now().withParams("x".repeat(70 * 1024))));
        assertEquals(413, tooLarge.httpStatus());
        assertEquals("payload_too_large", tooLarge.code());

        ValidationException badTarget = assertThrows(ValidationException.class, () -> client.jobs().create(
                JobRequest.builder(unique("bad target"), Schedule.api(), Target.webhook("ftp://example.com/x"))
                        .build()));
        assertEquals("invalid_target", badTarget.code());
        assertEquals("target.url", badTarget.field());
    }

    @Test
    void run_keyWithASlash_isFoundByTheByKeyPaths_encodedAsOneSegment() {
        Job job = onDemandJob("slash");
        RunResult run = client.jobs().run(job.id(), RunRequest.after(Duration.ofHours(1)).withKey("a/b?c"));

        assertEquals(run.instanceId(), client.jobs().getRun(job.id(), "a/b?c").id());
        assertEquals(CancelOutcome.CANCELLED, client.jobs().cancelRun(job.id(), "a/b?c").outcome());
        assertThrows(NotFoundException.class, () -> client.jobs().getRun(job.id(), "a"));
    }
}
