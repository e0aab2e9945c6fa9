package dev.tickwheel.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.cluster.WholeClusterMember;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatch path with a fake target whose calls the test ends by hand, a settable wall clock, and a real store
 * (H2 in memory): what is claimed when, what the slots let through, what an outcome writes. No sleeps: the test waits
 * for states that the dispatcher's threads reach.
 */
class InstanceDispatcherTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Instant NOW = Instant.parse("2031-03-01T10:00:00Z");
    private static final AtomicLong IDS = new AtomicLong(5_000);

    /** A webhook target that never calls anyone: it records each call and lets the test end it. */
    static final class FakeTarget implements TargetInvoker {
        record Call(JobContext context, Duration timeout, CompletableFuture<String> result) {
        }

        final List<Call> calls = new CopyOnWriteArrayList<>();
        final Map<Long, Instance> rowAtCall = new ConcurrentHashMap<>();
        volatile InstanceStore store;

        @Override
        public CompletableFuture<String> invoke(Job job, JobContext context, Duration timeout) {
            if (store != null) {
                store.get(context.instanceId()).ifPresent(row -> rowAtCall.put(context.instanceId(), row));
            }
            CompletableFuture<String> result = new CompletableFuture<>();
            calls.add(new Call(context, timeout, result));
            return result;
        }

        Call callOf(long instanceId) {
            return calls.stream().filter(c -> c.context().instanceId() == instanceId).findFirst().orElse(null);
        }
    }

    private final SettableClock clock = new SettableClock(NOW);
    private final AtomicInteger claimFailuresLeft = new AtomicInteger();
    private final AtomicInteger jobReadFailuresLeft = new AtomicInteger();
    /** Open unless a test closes it: a skip write waits for it, as on a store that has stopped answering. */
    private volatile CountDownLatch skipGate = new CountDownLatch(0);
    private final FakeTarget target = new FakeTarget();
    private final List<Long> completed = new CopyOnWriteArrayList<>();
    /** What the failure listener (alerts) was told: "<instanceId> <status> <error>". */
    private final List<String> ended = new CopyOnWriteArrayList<>();
    private JdbcStores stores;
    private InstanceTimeWheelService wheel;
    private InProcessHandlers handlers;
    private InstanceDispatcher dispatcher;

    private void start(int serverLimit, int perHostLimit) {
        stores = JdbcStores.open(dev.tickwheel.server.store.jdbc.JdbcStoreConfig.builder()
                .jdbcUrl("jdbc:h2:mem:dispatcher-" + IDS.incrementAndGet()).clock(clock).build());
        wheel = InstanceTimeWheelService.builder().build();
        handlers = new InProcessHandlers(Map.of(
                "throws-error", ctx -> {
                    throw new AssertionError("expected 3 but was 4");
                },
                "overflows", ctx -> recurse(1)), Map.of(), 1);
        target.store = stores.instances();
        InstanceStore instances = waitingOnSkip(failing(InstanceStore.class, stores.instances(), "claimArmed",
                claimFailuresLeft));
        JobStore jobStore = failing(JobStore.class, stores.jobs(), "getAll", jobReadFailuresLeft);
        dispatcher = new InstanceDispatcher(instances, new JobCatalog(jobStore, Duration.ofMinutes(1)),
                new PoolCatalog(stores.pools()), WholeClusterMember.join(stores.cluster()), new TargetRouter(handlers, target, perHostLimit,
                serverLimit), wheel, clock, new DispatchListener() {
                    @Override
                    public void instanceEnded(Job job, Instance instance, InstanceStatus status, String error) {
                        ended.add(instance.id() + " " + status + " " + error);
                    }
                }, (job, instance, at) -> completed.add(instance.id()), serverLimit, Duration.ofSeconds(7));
        // What a recovery does for the shards it arrives with: everything these tests arm is due within it.
        dispatcher.extendHorizon(java.util.stream.IntStream.range(0, Shards.DEFAULT_COUNT).boxed().toList(),
                NOW.plus(Duration.ofDays(1)));
    }

    /** {@code real}, except that its method {@code method} throws while {@code left} counts down above zero. */
    private static <T> T failing(Class<T> type, T real, String method, AtomicInteger left) {
        return intercepting(type, real, method, () -> {
            if (left.getAndDecrement() > 0) {
                throw new StoreException("injected: the store is unreachable", null);
            }
        });
    }

    /** {@code real}, except that {@code skip} first waits for {@link #skipGate} to open. */
    private InstanceStore waitingOnSkip(InstanceStore real) {
        return intercepting(InstanceStore.class, real, "skip", () -> skipGate.await());
    }

    /** What a proxy does before it calls the real method. */
    @FunctionalInterface
    private interface Before {
        void run() throws Exception;
    }

    /** {@code real}, except that each call of its method {@code method} runs {@code before} first. */
    private static <T> T intercepting(Class<T> type, T real, String method, Before before) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (m.getName().equals(method)) {
                before.run();
            }
            try {
                return m.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    @AfterEach
    void stop() {
        wheel.close();
        dispatcher.close(Duration.ofSeconds(1));
        handlers.close();
        stores.close();
    }

    private Job job(Target target, DeliveryPolicy delivery, RetryPolicy retry) {
        return stores.jobs().insert(new NewJob(IDS.incrementAndGet(), "job", ScheduleSpec.api(), target, null, true,
                MisfirePolicy.FIRE_ONCE_NOW, retry, delivery, JobOperations.DEFAULT, null));
    }

    private Job webhookJob(String host, DeliveryPolicy delivery) {
        return job(Target.webhook("http://" + host + "/hook"), delivery, RetryPolicy.NONE);
    }

    private long fireNow(Job job) {
        Instance instance = stores.instances().insertRuns(List.of(new NewInstance(IDS.incrementAndGet(), job.id(), NOW,
                null))).get(0).instance();
        dispatcher.arm(instance.id(), job.id(), instance.shard(), NOW, null);
        return instance.id();
    }

    private InstanceStatus status(long id) {
        return stores.instances().get(id).orElseThrow().status();
    }

    private long count(InstanceStatus status) {
        return stores.instances().countByStatus().get(status);
    }

    @Test
    void claimStatementFails_theBatchIsArmedAgainAndCalledOnce() {
        start(100, 100);
        Job job = webhookJob("store-down.test", DeliveryPolicy.DEFAULT);
        claimFailuresLeft.set(1);

        long id = fireNow(job);

        Await.until("the call after the failed claim (re-armed 1 s later)", WAIT, () -> target.callOf(id) != null);
        assertTrue(claimFailuresLeft.get() < 0, "the injected failure happened");
        assertEquals(1, target.calls.size());
        assertEquals(InstanceStatus.DISPATCHING, status(id));
    }

    @Test
    void callsEndingWithAndWithoutAnOutput_eachSucceedsWithItsOwn_inOneBatch() {
        start(100, 100);
        Job job = webhookJob("outputs.test", DeliveryPolicy.DEFAULT);
        long withOutput = fireNow(job);
        long without = fireNow(job);
        Await.until("both calls", WAIT, () -> target.callOf(withOutput) != null && target.callOf(without) != null);

        target.callOf(withOutput).result().complete("{\"sent\": true}");
        target.callOf(without).result().complete(null);

        Await.until("both succeeded", WAIT, () -> status(withOutput) == InstanceStatus.SUCCEEDED
                && status(without) == InstanceStatus.SUCCEEDED);
        assertEquals("{\"sent\": true}", stores.instances().get(withOutput).orElseThrow().output());
        assertNull(stores.instances().get(without).orElseThrow().output());
    }

    @Test
    void jobReadFails_theInstanceIsArmedAgainAndCalled() {
        start(100, 100);
        Job job = webhookJob("job-read.test", DeliveryPolicy.DEFAULT);
        jobReadFailuresLeft.set(1);

        long id = fireNow(job);

        Await.until("the call after the failed job read (re-armed 1 s later)", WAIT,
                () -> target.callOf(id) != null);
        assertTrue(jobReadFailuresLeft.get() < 0, "the injected failure happened");
        assertEquals(1, target.calls.size());
    }

    /**
     * A sweep, a prompt from another member and the member's own arm can all arm one waiting instance at about the same
     * time, even while its first timer is firing. Each instance must still be called once: the dispatcher skips an
     * instance that is on the wheel or on its way to its claim, and a claim batch that holds one instance twice
     * starts one call.
     */
    @Test
    void armedManyTimesFromManyThreadsWhileFiring_eachInstanceIsCalledOnce() throws InterruptedException {
        start(10_000, 10_000);
        Job job = webhookJob("dup.test", DeliveryPolicy.DEFAULT);
        List<Long> ids = new ArrayList<>();
        Map<Long, Integer> shards = new java.util.concurrent.ConcurrentHashMap<>();
        for (int i = 0; i < 300; i++) {
            Instance stored = stores.instances().insertRuns(List.of(new NewInstance(IDS.incrementAndGet(), job.id(),
                    NOW, null))).get(0).instance();
            ids.add(stored.id());
            shards.put(stored.id(), stored.shard());
        }
        java.util.concurrent.CountDownLatch go = new CountDownLatch(1);
        List<Thread> armers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            boolean ifUnknown = t % 2 == 0;
            Thread armer = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int round = 0; round < 20; round++) {
                    for (long id : ids) {
                        if (ifUnknown) {
                            dispatcher.armIfUnknown(id, job.id(), shards.get(id), NOW, null);
                        } else {
                            dispatcher.arm(id, job.id(), shards.get(id), NOW, null);
                        }
                    }
                }
            });
            armer.start();
            armers.add(armer);
        }
        go.countDown();
        for (Thread armer : armers) {
            armer.join();
        }
        Await.until(() -> "300 calls, have " + target.calls.size(), WAIT, () -> target.calls.size() >= 300);
        target.calls.forEach(call -> call.result().complete(null));
        Await.until("300 SUCCEEDED", WAIT, () -> count(InstanceStatus.SUCCEEDED) == 300);
        Map<Long, Long> callsPerInstance = new java.util.HashMap<>();
        target.calls.forEach(call -> callsPerInstance.merge(call.context().instanceId(), 1L, Long::sum));
        assertEquals(300, callsPerInstance.size());
        callsPerInstance.forEach((id, calls) -> assertEquals(1L, calls, "calls of instance " + id));
    }

    @Test
    void fired_moreThanTheServerLimit_claimsOnlyWhatCanBeCalled_andTheRestWaitsInTheStore() {
        start(2, 100);
        Job job = webhookJob("a.test", DeliveryPolicy.DEFAULT);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(fireNow(job));
        }

        Await.until("2 calls and 3 instances waiting for a slot", WAIT,
                () -> target.calls.size() == 2 && dispatcher.waitingForSlot() == 3);
        assertEquals(2, count(InstanceStatus.DISPATCHING), "DISPATCHING rows are the calls in flight");
        assertEquals(3, count(InstanceStatus.WAITING));
        assertEquals(2, dispatcher.callsInFlight());

        target.calls.get(0).result().complete(null);
        Await.until("the freed slot admits the next instance", WAIT, () -> target.calls.size() == 3);
        Await.until("the first is SUCCEEDED", WAIT, () -> count(InstanceStatus.SUCCEEDED) == 1);
        assertEquals(2, count(InstanceStatus.DISPATCHING));
        assertEquals(2, count(InstanceStatus.WAITING));
    }

    @Test
    void stalledHost_atItsLimit_neverDelaysAnotherHostsCalls() {
        start(100, 2);
        Job stalled = webhookJob("stalled.test:8080", DeliveryPolicy.DEFAULT);
        Job healthy = webhookJob("healthy.test:8080", DeliveryPolicy.DEFAULT);
        for (int i = 0; i < 10; i++) {
            fireNow(stalled);
        }
        Await.until("the stalled host's 2 calls in flight, 8 waiting", WAIT,
                () -> target.calls.size() == 2 && dispatcher.waitingForSlot() == 8);

        List<Long> healthyIds = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            healthyIds.add(fireNow(healthy));
        }
        // The healthy host has its own limit of 2: its calls go through as the test ends them, one by one.
        for (int ended = 0; ended < 20; ended++) {
            Await.until("a healthy call in flight", WAIT, () -> openCall(healthy) != null);
            openCall(healthy).result().complete(null);
        }
        Await.until("every healthy instance SUCCEEDED while the stalled host's calls never ended", WAIT,
                () -> healthyIds.stream().allMatch(id -> status(id) == InstanceStatus.SUCCEEDED));
        assertEquals(2, target.calls.stream().filter(c -> c.context().jobId() == stalled.id()).count());
        assertEquals(8, dispatcher.waitingForSlot());
    }

    private FakeTarget.Call openCall(Job job) {
        return target.calls.stream().filter(c -> c.context().jobId() == job.id() && !c.result().isDone())
                .findFirst().orElse(null);
    }

    @Test
    void maxConcurrentWait_secondInstanceWaitsForTheFirstToEnd() {
        start(100, 100);
        Job job = webhookJob("a.test", new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 1,
                DeliveryPolicy.OverLimit.WAIT));
        long a = fireNow(job);
        long b = fireNow(job);

        Await.until("one call, one waiting", WAIT, () -> target.calls.size() == 1 && dispatcher.waitingForSlot() == 1);
        long first = target.calls.get(0).context().instanceId();
        long second = first == a ? b : a;
        assertEquals(InstanceStatus.WAITING, status(second));
        target.callOf(first).result().complete(null);

        Await.until("the second is called once the first ended", WAIT, () -> target.callOf(second) != null);
        target.callOf(second).result().complete(null);
        Await.until("both SUCCEEDED", WAIT, () -> count(InstanceStatus.SUCCEEDED) == 2);
    }

    @Test
    void maxConcurrentSkip_instanceOverTheLimitIsCancelledWithTheReason() {
        start(100, 100);
        Job job = webhookJob("a.test", new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 1,
                DeliveryPolicy.OverLimit.SKIP));
        long first = fireNow(job);
        Await.until("the first is called", WAIT, () -> target.callOf(first) != null);

        long second = fireNow(job);

        Await.until("the second is skipped", WAIT, () -> status(second) == InstanceStatus.CANCELLED);
        Instance skipped = stores.instances().get(second).orElseThrow();
        assertTrue(skipped.error().startsWith("skipped:") && skipped.error().contains("maxConcurrent 1"),
                skipped.error());
        assertNull(target.callOf(second));
        target.callOf(first).result().complete(null);
        Await.until("the first SUCCEEDED", WAIT, () -> status(first) == InstanceStatus.SUCCEEDED);
    }

    /**
     * The wheel has one dispatch thread for every fire of the member: a skip's store write that hangs (a store that
     * stopped answering) must not hold back another job's fire. The write runs on the fire-write thread.
     */
    @Test
    void maxConcurrentSkip_writeThatHangs_doesNotHoldBackOtherFires() {
        start(100, 100);
        Job limited = webhookJob("a.test", new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 1,
                DeliveryPolicy.OverLimit.SKIP));
        Job other = webhookJob("b.test", DeliveryPolicy.DEFAULT);
        long first = fireNow(limited);
        Await.until("the first is called", WAIT, () -> target.callOf(first) != null);
        skipGate = new CountDownLatch(1);

        long second = fireNow(limited); // over the limit: its skip write hangs
        long third = fireNow(other);

        Await.until("the other job's instance is called while the skip write hangs", WAIT,
                () -> target.callOf(third) != null);
        assertEquals(InstanceStatus.WAITING, status(second));
        skipGate.countDown();
        Await.until("the second is skipped once the store answers", WAIT,
                () -> status(second) == InstanceStatus.CANCELLED);
        assertNull(target.callOf(second));
        target.callOf(first).result().complete(null);
        target.callOf(third).result().complete(null);
        Await.until("both called instances SUCCEEDED", WAIT, () -> count(InstanceStatus.SUCCEEDED) == 2);
    }

    @Test
    void call_carriesTheKeyOfItsAttemptAndTheJobsDeadline() {
        start(100, 100);
        Job job = webhookJob("a.test", new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 1_500, 0,
                DeliveryPolicy.OverLimit.WAIT));
        Job defaults = webhookJob("b.test", DeliveryPolicy.DEFAULT);
        long id = fireNow(job);
        long other = fireNow(defaults);

        Await.until("both called", WAIT, () -> target.calls.size() == 2);
        assertEquals(id + "-1", target.callOf(id).context().idempotencyKey());
        assertEquals(Duration.ofMillis(1_500), target.callOf(id).timeout());
        assertEquals(Duration.ofSeconds(7), target.callOf(other).timeout(), "the server's default deadline");
    }

    @Test
    void failedCall_withAttemptsLeft_isRetriedAfterTheBackoffUnderTheNextKey() {
        start(100, 100);
        Job job = job(Target.webhook("http://a.test/hook"), DeliveryPolicy.DEFAULT, new RetryPolicy(2, 60_000));
        long id = fireNow(job);
        Await.until("called", WAIT, () -> target.callOf(id) != null);

        target.callOf(id).result().completeExceptionally(new java.io.IOException("webhook answered HTTP 503"));

        Await.until("back to WAITING for its retry", WAIT, () -> status(id) == InstanceStatus.WAITING);
        Instance waiting = stores.instances().get(id).orElseThrow();
        assertEquals(NOW.plusSeconds(60), waiting.expectedTriggerTime());
        assertEquals("webhook answered HTTP 503", waiting.error());
        assertEquals(1, waiting.attempt());
        Await.until("the failed call's slots came back", WAIT, () -> dispatcher.callsInFlight() == 0);
        assertTrue(completed.isEmpty(), "a retried instance has not completed");
        assertTrue(ended.isEmpty(), "a retry is not an end: " + ended);
    }

    @Test
    void retryCurve_eachFailedAttempt_isDueAfterTheCurvesWait_thenFailed() {
        start(100, 100);
        RetryPolicy policy = RetryPolicy.exponential(5, 1_000, 3, 20_000, RetryPolicy.Jitter.NONE);
        Job job = job(Target.webhook("http://a.test/hook"), DeliveryPolicy.DEFAULT, policy);
        long id = fireNow(job);

        assertEquals(List.of(1_000L, 3_000L, 9_000L, 20_000L), failEveryAttempt(job, id, 5));
        assertEquals(InstanceStatus.FAILED, status(id));
    }

    @Test
    void retryDelaysWithFullJitter_eachFailedAttemptIsDueAfterItsJitteredDelay_neverAfterTheDelay() {
        start(100, 100);
        RetryPolicy policy = RetryPolicy.delays(5, List.of(10_000L, 60_000L), RetryPolicy.Jitter.FULL);
        Job job = job(Target.webhook("http://a.test/hook"), DeliveryPolicy.DEFAULT, policy);
        long id = fireNow(job);

        List<Long> waits = failEveryAttempt(job, id, 5);

        List<Long> expected = java.util.stream.IntStream.rangeClosed(1, 4)
                .mapToObj(n -> policy.delayAfterAttempt(id, n)).toList();
        assertEquals(expected, waits, "the policy's own jittered waits, attempt by attempt");
        assertTrue(waits.get(0) <= 10_000 && waits.subList(1, 4).stream().allMatch(w -> w <= 60_000), "" + waits);
        assertEquals(InstanceStatus.FAILED, status(id));
    }

    /**
     * Fails attempts 1..{@code attempts} of instance {@code id} one by one. After each failure but the last, checks
     * that the instance waits under its next attempt number and returns how long after the failure (on the settable
     * clock, moved by a minute each time) its next attempt is due; then moves the clock to that time and arms it.
     */
    private List<Long> failEveryAttempt(Job job, long id, int attempts) {
        List<Long> waits = new ArrayList<>();
        for (int attempt = 1; attempt <= attempts; attempt++) {
            int current = attempt;
            Await.until("attempt " + current + " called", WAIT, () -> callOf(id, current) != null);
            clock.set(clock.instant().plus(Duration.ofMinutes(1)));
            Instant failedAt = clock.instant();
            callOf(id, current).result().completeExceptionally(new java.io.IOException("HTTP 503"));
            if (attempt == attempts) {
                Await.until("FAILED", WAIT, () -> status(id) == InstanceStatus.FAILED);
                break;
            }
            Await.until("waiting for attempt " + (current + 1), WAIT,
                    () -> stores.instances().get(id).orElseThrow().status() == InstanceStatus.WAITING
                            && stores.instances().get(id).orElseThrow().attempt() == current);
            Instant due = stores.instances().get(id).orElseThrow().expectedTriggerTime();
            waits.add(Duration.between(failedAt, due).toMillis());
            // The dispatcher arms it on the wheel for the wait in real time, just after writing the retry; fire it
            // now instead (unless a short jittered wait has fired it already).
            int next = current + 1;
            Await.until("attempt " + next + " armed or called", WAIT,
                    () -> wheel.fetchTimerFuture(id).isPresent() || callOf(id, next) != null);
            clock.set(due);
            if (wheel.cancel(id)) {
                dispatcher.arm(id, job.id(), stores.instances().get(id).orElseThrow().shard(), due, null);
            }
        }
        return waits;
    }

    private FakeTarget.Call callOf(long instanceId, int attempt) {
        return target.calls.stream()
                .filter(c -> c.context().instanceId() == instanceId && c.context().attempt() == attempt)
                .findFirst().orElse(null);
    }

    @Test
    void failedCall_lastAttempt_endsFailedAndTellsTheDispatchListenerOnce() {
        start(100, 100);
        Job job = webhookJob("a.test", DeliveryPolicy.DEFAULT);
        long id = fireNow(job);
        Await.until("called", WAIT, () -> target.callOf(id) != null);

        target.callOf(id).result().completeExceptionally(new java.io.IOException("webhook answered HTTP 503"));

        Await.until("FAILED", WAIT, () -> status(id) == InstanceStatus.FAILED);
        Await.until("the failure listener told", WAIT, () -> !ended.isEmpty());
        assertEquals(List.of(id + " FAILED webhook answered HTTP 503"), ended);
    }

    @Test
    void handlerThrowingAnError_failsTheAttemptWithTheReason_andTheNextCallStillRuns() {
        start(100, 100);
        Job assertion = job(Target.handler("throws-error"), DeliveryPolicy.DEFAULT, RetryPolicy.NONE);
        Job overflow = job(Target.handler("overflows"), DeliveryPolicy.DEFAULT, RetryPolicy.NONE);
        long first = fireNow(assertion);
        long second = fireNow(overflow);
        long third = fireNow(assertion);

        Await.until("all three FAILED on the one handler thread", WAIT, () -> count(InstanceStatus.FAILED) == 3);
        assertEquals("AssertionError: expected 3 but was 4", stores.instances().get(first).orElseThrow().error());
        assertEquals("StackOverflowError", stores.instances().get(second).orElseThrow().error());
        assertEquals("AssertionError: expected 3 but was 4", stores.instances().get(third).orElseThrow().error());
        // The outcome thread writes FAILED, tells the completion listener, then gives the slot back: wait for both.
        Await.until("no slot leaked", WAIT, () -> dispatcher.callsInFlight() == 0);
        Await.until("three completions", WAIT, () -> completed.size() == List.of(first, second, third).size());
    }

    @Test
    void atMostOnceJob_marksTheCallStartedBeforeCalling_atLeastOnceJobDoesNot() {
        start(100, 100);
        Job atMostOnce = webhookJob("a.test", new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_MOST_ONCE, 0, 0,
                DeliveryPolicy.OverLimit.WAIT));
        Job atLeastOnce = webhookJob("a.test", DeliveryPolicy.DEFAULT);
        long marked = fireNow(atMostOnce);
        long unmarked = fireNow(atLeastOnce);

        Await.until("both called", WAIT, () -> target.calls.size() == 2);
        assertNotNull(target.rowAtCall.get(marked).callStartedAt(), "the mark is durable before the call");
        assertEquals(InstanceStatus.DISPATCHING, target.rowAtCall.get(marked).status());
        assertNull(target.rowAtCall.get(unmarked).callStartedAt());
    }

    @Test
    void cancelledWhileWaitingForASlot_isNeverCalled_andGivesItsSlotOnward() {
        start(1, 100);
        Job job = webhookJob("a.test", DeliveryPolicy.DEFAULT);
        List<Long> ids = new ArrayList<>(List.of(fireNow(job), fireNow(job), fireNow(job)));
        Await.until("one call, two waiting", WAIT, () -> target.calls.size() == 1 && dispatcher.waitingForSlot() == 2);
        long calledFirst = target.calls.get(0).context().instanceId();
        ids.remove(calledFirst);
        long cancelled = ids.get(0);
        long last = ids.get(1);

        assertEquals(dev.tickwheel.server.instance.CancelOutcome.CANCELLED, stores.instances().cancelAll(List.of(cancelled)).get(0).outcome());
        target.callOf(calledFirst).result().complete(null);

        Await.until("the last one is called", WAIT, () -> target.callOf(last) != null);
        assertNull(target.callOf(cancelled), "a cancelled instance loses its claim and is never called");
        assertEquals(InstanceStatus.CANCELLED, status(cancelled));
    }
}
