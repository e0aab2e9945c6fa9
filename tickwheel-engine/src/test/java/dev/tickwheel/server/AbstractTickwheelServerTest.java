package dev.tickwheel.server;

import static dev.tickwheel.server.access.Namespaces.DEFAULT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.instance.Attempt;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.ScheduleWindow;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.InvalidTimeExpressionException;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine end to end on a real store: jobs, dispatch, retries, cancellation, targets. One subclass per database.
 */
abstract class AbstractTickwheelServerTest {

    static final Duration WAIT = Duration.ofSeconds(20);

    /** The store for one test; called once per test. */
    abstract String jdbcUrl();

    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final AtomicInteger flakyFailuresLeft = new AtomicInteger();
    TickwheelServer server;
    String url;

    @BeforeEach
    void start() {
        url = jdbcUrl();
        server = newServer();
    }

    /** A server on this test's store with the test's handlers, started. */
    private TickwheelServer newServer() {
        return TickwheelServer.builder()
                .jdbcUrl(url)
                .handler("count", ctx -> calls.computeIfAbsent("count", k -> new AtomicInteger()).incrementAndGet())
                .handler("flaky", ctx -> {
                    calls.computeIfAbsent("flaky", k -> new AtomicInteger()).incrementAndGet();
                    if (flakyFailuresLeft.getAndDecrement() > 0) {
                        throw new IllegalStateException("flaky failure");
                    }
                })
                .build()
                .start();
    }

    /** Called after the server of a test has closed; drops what {@link #jdbcUrl()} created. */
    void dropStore() throws Exception {
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        dropStore();
    }

    int calls(String handler) {
        AtomicInteger count = calls.get(handler);
        return count == null ? 0 : count.get();
    }

    Instance awaitStatus(long instanceId, InstanceStatus status) {
        Await.until(() -> "instance " + instanceId + " " + status + ", is "
                + server.instances().history(instanceId)
                        .map(InstanceHistory::instance).map(Instance::status).orElse(null), WAIT,
                () -> server.instances().history(instanceId)
                        .map(InstanceHistory::instance).map(i -> i.status() == status).orElse(false));
        return server.instances().history(instanceId).map(InstanceHistory::instance).orElseThrow();
    }

    @Test
    void create_nameWithNul_isRefusedBeforeTheStore_andNothingIsStored() {
        long before = server.jobs().search(null, null, 1_000).items().size();
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> server.jobs()
                .create(JobSpec.of("a\0b", ScheduleSpec.api(), Target.handler("count"))));
        assertTrue(refused.getMessage().contains("NUL"), refused.getMessage());
        assertEquals(before, server.jobs().search(null, null, 1_000).items().size());
    }

    @Test
    void run_apiJobWithDelay_dispatchesOnceAndRecordsSuccess() {
        Job job = server.jobs().create(JobSpec.of("api", ScheduleSpec.api(), Target.handler("count")));
        Instance instance = server.jobs().run(job.id(), 50, null);
        Instance done = awaitStatus(instance.id(), InstanceStatus.SUCCEEDED);
        assertEquals(1, calls("count"));
        assertEquals(1, done.attempt());
        assertNotNull(done.actualTriggerTime());
        assertTrue(!done.actualTriggerTime().isBefore(instance.expectedTriggerTime()), "never early");
    }

    @Test
    void dispatch_failingTwiceWithThreeAttempts_retriesThenSucceeds() {
        flakyFailuresLeft.set(2);
        Job job = server.jobs().create(JobSpec.of("flaky", ScheduleSpec.api(), Target.handler("flaky"))
                .withRetry(new RetryPolicy(3, 10)));
        Instance instance = server.jobs().run(job.id(), 0, null);
        Instance done = awaitStatus(instance.id(), InstanceStatus.SUCCEEDED);
        assertEquals(3, done.attempt());
        assertEquals(3, calls("flaky"));
    }

    @Test
    void retry_listOfDelays_eachAttemptDueAfterItsDelay_neverEarly_andTheRetryKeepsItsTimeAcrossARestart() {
        flakyFailuresLeft.set(100);
        Job job = server.jobs().create(JobSpec.of("flaky", ScheduleSpec.api(), Target.handler("flaky"))
                .withRetry(RetryPolicy.delays(3, List.of(300L, 2_000L), RetryPolicy.Jitter.NONE)));
        long id = server.jobs().run(job.id(), 0, null).id();
        Await.until("the second attempt failed", WAIT, () -> calls("flaky") >= 2
                && instance(id).map(i -> i.attempt() == 2 && i.status() == InstanceStatus.WAITING)
                        .orElse(false));
        Instant dueBeforeRestart = instance(id).orElseThrow().expectedTriggerTime();

        server.close();
        server = newServer();

        assertEquals(dueBeforeRestart, instance(id).orElseThrow().expectedTriggerTime(),
                "the restart kept the retry's time");
        Instance done = awaitStatus(id, InstanceStatus.FAILED);
        assertEquals(3, done.attempt());
        assertEquals(3, calls("flaky"));
        List<Attempt> attempts = server.instances().history(id).orElseThrow().attempts();
        assertEquals(List.of(Attempt.Outcome.RETRIED, Attempt.Outcome.RETRIED, Attempt.Outcome.FAILED),
                attempts.stream().map(Attempt::outcome).toList(), attempts.toString());
        assertEquals(dueBeforeRestart, done.expectedTriggerTime());
        assertFalse(done.actualTriggerTime().isBefore(done.expectedTriggerTime()), "never early: " + done);
        // Each retry is due its delay after the failure was decided; the decision is written a moment after it is
        // computed, so the gap to the written end is at most the delay.
        assertDueAfter(attempts.get(0), attempts.get(1).expectedTriggerTime(), 300);
        assertDueAfter(attempts.get(1), done.expectedTriggerTime(), 2_000);
        assertFalse(attempts.get(1).startedAt().isBefore(attempts.get(1).expectedTriggerTime()), "never early");
    }

    private java.util.Optional<Instance> instance(long id) {
        return server.instances().history(id).map(InstanceHistory::instance);
    }

    private static void assertDueAfter(Attempt failed, Instant nextDue, long delayMs) {
        long gap = Duration.between(failed.endedAt(), nextDue).toMillis();
        assertTrue(gap <= delayMs && gap > delayMs - 1_000, "attempt " + failed.attempt() + " ended at "
                + failed.endedAt() + ", the next due at " + nextDue + ": " + gap + " ms, delay " + delayMs);
    }

    @Test
    void cronWithWindowAndJitter_makesMaxRunsFromTheStart_eachDueItsJitterAfterItsSlot_neverEarly_acrossARestart() {
        Instant start = Instant.now().plusSeconds(2).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        ScheduleSpec schedule = ScheduleSpec.cron("* * * * * ?", "UTC").withWindow(700L, null, start, null, 3);
        Job job = server.jobs().create(JobSpec.of("jittered", schedule, Target.handler("count")));
        Await.until("the loader made the three runs", WAIT, () -> instancesOf(job.id()).size() == 3);

        server.close();
        server = newServer();

        Await.until("three calls", WAIT, () -> calls("count") == 3
                && instancesOf(job.id()).stream().allMatch(i -> i.status() == InstanceStatus.SUCCEEDED));
        List<Instance> runs = instancesOf(job.id()).stream()
                .sorted(java.util.Comparator.comparing(Instance::scheduledTriggerTime)).toList();
        assertEquals(List.of(start, start.plusSeconds(1), start.plusSeconds(2)),
                runs.stream().map(Instance::scheduledTriggerTime).toList(), "the slots: from the start, three");
        Job stored = server.jobs().get(job.id()).orElseThrow();
        for (Instance run : runs) {
            long jitter = Duration.between(run.scheduledTriggerTime(), run.expectedTriggerTime()).toMillis();
            assertEquals(ScheduleWindow.jitterMs(job.id(), stored.schedule(), run.scheduledTriggerTime()), jitter,
                    "the jitter any member computes: " + run);
            assertTrue(jitter >= 0 && jitter <= 700, run.toString());
            assertFalse(run.actualTriggerTime().isBefore(run.expectedTriggerTime()), "never early: " + run);
        }
        assertEquals(3, stored.scheduledRuns());
        assertEquals(null, stored.nextTriggerTime(), "three runs: the schedule has ended");
        assertEquals(3, calls("count"));
    }

    @Test
    void calendar_createdListedNamedByAJob_skipsItsDays_cannotBeDeletedWhileNamed() {
        java.time.LocalDate today = java.time.LocalDate.now(java.time.ZoneOffset.UTC);
        CalendarService calendars = server.calendars();
        CalendarService.Result created = calendars.create(DEFAULT, "closed", java.time.ZoneOffset.UTC,
                List.of(today, today.plusDays(1)), List.of(java.time.DayOfWeek.SUNDAY));
        assertEquals(CalendarService.Creation.CREATED, created.creation());
        assertEquals(CalendarService.Creation.NAME_TAKEN, calendars.create(DEFAULT, "closed", java.time.ZoneOffset.UTC,
                List.of(), List.of()).creation());
        assertEquals(created.calendar(), calendars.get(DEFAULT, "closed").orElseThrow());
        assertEquals(List.of(created.calendar()), calendars.list(DEFAULT));
        assertThrows(IllegalArgumentException.class, () -> server.jobs().create(JobSpec.of("unknown calendar",
                ScheduleSpec.cron("* * * * * ?", "UTC").withCalendar("nope"), Target.handler("count"))));

        Job job = server.jobs().create(JobSpec.of("closed days", ScheduleSpec.cron("* * * * * ?", "UTC")
                .withCalendar("closed"), Target.handler("count")));
        Instant createdAt = Instant.now();
        // Every second of today and tomorrow is excluded: the loader moves the job on and makes nothing.
        Await.until("a loader pass over the job", WAIT, () -> server.jobs().get(job.id()).orElseThrow()
                .nextTriggerTime().isAfter(createdAt.plusSeconds(20)));
        assertEquals(List.of(), instancesOf(job.id()));
        assertEquals(0, calls("count"));

        JobCalendar replaced = calendars.replace(DEFAULT, "closed", java.time.ZoneId.of("Europe/Berlin"),
                List.of(today.plusDays(7)), List.of()).orElseThrow();
        assertEquals(replaced, calendars.get(DEFAULT, "closed").orElseThrow());
        assertEquals(created.calendar().createdAt(), replaced.createdAt(), "a replace keeps the creation time");
        assertEquals(java.util.Optional.empty(), calendars.replace(DEFAULT, "none", java.time.ZoneOffset.UTC, List.of(),
                List.of()));
        assertEquals(dev.tickwheel.server.store.CalendarStore.Deletion.IN_USE, calendars.delete(DEFAULT, "closed"));
        assertTrue(server.jobs().delete(job.id()));
        assertEquals(dev.tickwheel.server.store.CalendarStore.Deletion.DELETED, calendars.delete(DEFAULT, "closed"));
        assertEquals(dev.tickwheel.server.store.CalendarStore.Deletion.NOT_FOUND, calendars.delete(DEFAULT, "closed"));
    }

    /**
     * A job of a namespace names that namespace's calendars and pools by their local names, on create and on update;
     * the stored job holds their qualified names, so a pool of the same name elsewhere is another pool.
     */
    @Test
    void aJobOfANamespace_namesItsNamespacesCalendarsAndPools_byLocalName() {
        server.access().createNamespace("team-a");
        server.pools().create("team-a", "lane", 2, null);
        server.pools().create(DEFAULT, "only-default", 2, null);
        server.calendars().create("team-a", "closed", java.time.ZoneOffset.UTC, List.of(),
                List.of(java.time.DayOfWeek.SUNDAY));
        JobSpec spec = JobSpec.of("team job", ScheduleSpec.cron("0 0 9 * * ?", "UTC").withCalendar("closed"),
                Target.handler("count")).withDelivery(dev.tickwheel.server.job.DeliveryPolicy.DEFAULT.withPool("lane"));

        Job job = server.jobs().create(spec, "team-a");
        Job updated = server.jobs().update(job.id(), spec.withParams("{\"v\": 2}")).orElseThrow();

        assertEquals("team-a/lane", job.delivery().pool());
        assertEquals("team-a/closed", job.schedule().calendar());
        assertEquals("team-a/lane", updated.delivery().pool(), "an update's names are the job's namespace's too");
        assertEquals(dev.tickwheel.server.store.PoolStore.Deletion.IN_USE, server.pools().delete("team-a", "lane"));
        assertThrows(IllegalArgumentException.class, () -> server.jobs().create(spec.withDelivery(
                dev.tickwheel.server.job.DeliveryPolicy.DEFAULT.withPool("only-default")), "team-a"));
        assertThrows(IllegalArgumentException.class, () -> server.jobs().create(spec.withDelivery(
                dev.tickwheel.server.job.DeliveryPolicy.DEFAULT.withPool("team-a/lane")), DEFAULT),
                "a qualified name is not a local name: no job reaches another namespace's pool");
        assertTrue(server.jobs().delete(job.id()));
    }

    // Eight threads create each of 20 names at once: the read-then-insert can race, and the losers must hear
    // NAME_TAKEN (the primary key refuses the second insert), never a store failure.
    @Test
    void calendar_createdByManyCallersAtOnce_isCreatedOnce_andTheOthersHearNameTaken() throws Exception {
        CalendarService calendars = server.calendars();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 20; round++) {
                String name = "race-" + round;
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(8);
                List<java.util.concurrent.Future<CalendarService.Creation>> results = new java.util.ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return calendars.create(DEFAULT, name, java.time.ZoneOffset.UTC, List.of(), List.of()).creation();
                    }));
                }
                int created = 0;
                for (java.util.concurrent.Future<CalendarService.Creation> result : results) {
                    created += result.get() == CalendarService.Creation.CREATED ? 1 : 0;
                }
                assertEquals(1, created, name);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(20, server.calendars().list(null).size());
    }

    private List<Instance> instancesOf(long jobId) {
        return server.instances().list(jobId, null, null, null, null, 100).items();
    }

    @Test
    void dispatch_failingBeyondAttempts_recordsFailedWithError() {
        flakyFailuresLeft.set(100);
        Job job = server.jobs().create(JobSpec.of("flaky", ScheduleSpec.api(), Target.handler("flaky"))
                .withRetry(new RetryPolicy(2, 5)));
        Instance instance = server.jobs().run(job.id(), 0, null);
        Instance done = awaitStatus(instance.id(), InstanceStatus.FAILED);
        assertEquals(2, done.attempt());
        assertEquals("flaky failure", done.error());
    }

    @Test
    void dispatch_unknownHandler_failsWithClearError() {
        Job job = server.jobs().create(JobSpec.of("ghost", ScheduleSpec.api(), Target.handler("nope")));
        Instance done = awaitStatus(server.jobs().run(job.id(), 0, null).id(), InstanceStatus.FAILED);
        assertTrue(done.error().contains("no handler registered under 'nope'"), done.error());
    }

    @Test
    void cancel_pendingInstance_neverDispatches_andOutcomesAreDistinguished() {
        Job job = server.jobs().create(JobSpec.of("api", ScheduleSpec.api(), Target.handler("count")));
        Instance later = server.jobs().run(job.id(), 60_000, null);
        assertEquals(CancelOutcome.CANCELLED, server.instances().cancel(later.id()).outcome());
        assertEquals(CancelOutcome.ALREADY_FINISHED, server.instances().cancel(later.id()).outcome());
        assertEquals(CancelOutcome.UNKNOWN, server.instances().cancel(123_456_789L).outcome());
        assertEquals(0, server.wheel().pendingCount(), "the wheel released it");
        Instance now = server.jobs().run(job.id(), 0, null);
        awaitStatus(now.id(), InstanceStatus.SUCCEEDED);
        assertEquals(CancelOutcome.ALREADY_FINISHED, server.instances().cancel(now.id()).outcome());
        assertEquals(1, calls("count"));
    }

    @Test
    void cronEverySecond_createsAndDispatchesInstancesEverySecond() {
        Job job = server.jobs().create(JobSpec.of("cron", ScheduleSpec.cron("* * * * * ?", "UTC"),
                Target.handler("count")));
        int created = server.instances().list(job.id(), null, null, null, null, 100).items().size();
        assertTrue(created >= 30, "creating the job loaded its whole 30 s window at once: " + created);
        Await.until("two cron dispatches", WAIT, () -> calls("count") >= 2);
    }

    @Test
    void fixedDelay_nextInstanceFollowsCompletion() {
        server.jobs().create(JobSpec.of("delay", ScheduleSpec.fixedDelay(50), Target.handler("count")));
        Await.until("three fixed-delay dispatches", WAIT, () -> calls("count") >= 3);
    }

    @Test
    void create_invalidCron_throwsAndWritesNothing() {
        InvalidTimeExpressionException e = assertThrows(InvalidTimeExpressionException.class,
                () -> server.jobs().create(JobSpec.of("bad", ScheduleSpec.cron("0 0 25 * * ?", "UTC"),
                        Target.handler("count"))));
        assertTrue(e.getMessage().contains("hour"), e.getMessage());
        assertEquals(0, server.jobs().search(null, null, 10).items().size());
    }

    @Test
    void delete_cancelsWaitingInstances() {
        Job job = server.jobs().create(JobSpec.of("api", ScheduleSpec.api(), Target.handler("count")));
        Instance pending = server.jobs().run(job.id(), 60_000, null);
        assertTrue(server.jobs().delete(job.id()));
        assertEquals(InstanceStatus.CANCELLED, server.instances().history(pending.id())
                .map(InstanceHistory::instance).orElseThrow().status());
        assertEquals(0, server.wheel().pendingCount());
    }

    @Test
    void webhook_postsJsonAndTreatsNon2xxAsFailure() throws IOException {
        List<String> bodies = new CopyOnWriteArrayList<>();
        AtomicInteger status = new AtomicInteger(204);
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/hook", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        http.start();
        try {
            String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/hook";
            Job job = server.jobs().create(JobSpec.of("hook", ScheduleSpec.api(), Target.webhook(url))
                    .withParams("{\"k\":1}"));
            Instance ok = server.jobs().run(job.id(), 0, null);
            awaitStatus(ok.id(), InstanceStatus.SUCCEEDED);
            String body = bodies.get(0);
            assertTrue(body.contains("\"instanceId\":\"" + ok.id() + "\""), body);
            assertTrue(body.contains("\"params\":{\"k\":1}"), body);
            assertTrue(body.contains("\"attempt\":1"), body);

            status.set(500);
            Instance failing = server.jobs().run(job.id(), 0, null);
            Instance failed = awaitStatus(failing.id(), InstanceStatus.FAILED);
            assertTrue(failed.error().contains("HTTP 500"), failed.error());
        } finally {
            http.stop(0);
        }
    }
    @Test
    void declare_createsThenLeavesThenUpdates_byName() {
        JobSpec every10s = JobSpec.of("declared", ScheduleSpec.cron("0/10 * * * * ?", "UTC"), Target.handler("count"));
        JobService.Declared created = server.jobs().declare(every10s);
        assertEquals(JobService.Declared.Change.CREATED, created.change());

        JobService.Declared again = server.jobs().declare(every10s);
        assertEquals(JobService.Declared.Change.UNCHANGED, again.change());
        assertEquals(created.job().id(), again.job().id());
        assertEquals(created.job().version(), again.job().version(), "an unchanged declaration writes nothing");

        JobSpec every20s = JobSpec.of("declared", ScheduleSpec.cron("0/20 * * * * ?", "UTC"), Target.handler("count"));
        JobService.Declared updated = server.jobs().declare(every20s);
        assertEquals(JobService.Declared.Change.UPDATED, updated.change());
        assertEquals(created.job().id(), updated.job().id());
        assertEquals("0/20 * * * * ?", server.jobs().findByName("declared").orElseThrow().schedule().expression());
    }

    @Test
    void declare_fixedRate_isUnchangedAcrossRestarts_thoughItsStartIsNow() {
        JobSpec spec = JobSpec.of("rate", ScheduleSpec.fixedRate(60_000, null), Target.handler("count"));
        long id = server.jobs().declare(spec).job().id();
        JobService.Declared again = server.jobs().declare(spec);
        assertEquals(JobService.Declared.Change.UNCHANGED, again.change());
        assertEquals(id, again.job().id());
    }

    @Test
    void declare_aNameSharedByTwoJobs_failsNamingThem() {
        Job first = server.jobs().create(JobSpec.of("twice", ScheduleSpec.api(), Target.handler("count")));
        Job second = server.jobs().create(JobSpec.of("twice", ScheduleSpec.api(), Target.handler("count")));
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> server.jobs().declare(
                JobSpec.of("twice", ScheduleSpec.api(), Target.handler("count"))));
        assertTrue(failure.getMessage().contains(Long.toString(first.id()))
                && failure.getMessage().contains(Long.toString(second.id())), failure.getMessage());
        assertThrows(IllegalStateException.class, () -> server.jobs().findByName("twice"));
        assertTrue(server.jobs().findByName("nobody").isEmpty());
    }
}
