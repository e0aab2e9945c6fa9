package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.dispatch.webhook.WebhookInvoker;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.CallbackService.Outcome;
import dev.tickwheel.server.CallbackService.Report;
import dev.tickwheel.server.CallbackService.Verdict;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks that finish later, through the whole engine on its embedded H2 store and a real receiver: the call carries
 * a callback URL with a token for its attempt; the target answers 202 and reports later (success with an output,
 * failure and its retry, heartbeats, the deadline, a late report, a replay, a wrong token, a signature); a job's
 * {@code maxConcurrent} counts work that awaits its report, also across a restart; a report that overtakes the
 * call's own answer. Deadlines run on a settable clock and the test runs the loader pass itself.
 */
class CallbackServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long TIMEOUT_MS = 60_000;

    @TempDir
    Path dataDir;

    private final SettableClock clock = new SettableClock(Instant.now());
    private final Receiver receiver = new Receiver();
    private TickwheelServer server;

    /** One call as the receiver got it. */
    private record Call(long instanceId, int attempt, String callbackUrl, String body) {
        String token() {
            return callbackUrl.substring(callbackUrl.lastIndexOf('/') + 1);
        }
    }

    /** A webhook target that answers 202 (after {@link #beforeAnswer}, if set) and queues every call. */
    private static final class Receiver implements AutoCloseable {
        final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
        volatile Consumer<Call> beforeAnswer = call -> { };
        final HttpServer http;

        Receiver() {
            try {
                http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            http.setExecutor(Executors.newFixedThreadPool(4));
            http.createContext("/work", exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                Call call = new Call(Long.parseLong(exchange.getRequestHeaders().getFirst("Tickwheel-Instance-Id")),
                        Integer.parseInt(exchange.getRequestHeaders().getFirst("Tickwheel-Attempt")),
                        exchange.getRequestHeaders().getFirst(WebhookInvoker.CALLBACK_URL_HEADER), body);
                beforeAnswer.accept(call);
                calls.add(call);
                exchange.sendResponseHeaders(202, -1);
                exchange.close();
            });
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/work";
        }

        Call next() throws InterruptedException {
            Call call = calls.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(call, "no call within " + WAIT);
            return call;
        }

        @Override
        public void close() {
            http.stop(0);
            ((java.util.concurrent.ExecutorService) http.getExecutor()).shutdownNow();
        }
    }

    @BeforeEach
    void startServer() {
        server = start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        receiver.close();
    }

    private TickwheelServer start() {
        return TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .callbackBaseUrl("https://jobs.example.com/base/")
                .build()
                .start();
    }

    private Job job(String name, RetryPolicy retry, int maxConcurrent, String secret) {
        DeliveryPolicy delivery = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, maxConcurrent,
                DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, null, Completion.callback(TIMEOUT_MS));
        return server.jobs().create(new JobSpec(name, ScheduleSpec.api(), Target.webhook(receiver.url()), null, true,
                MisfirePolicy.FIRE_ONCE_NOW, retry, delivery, new JobOperations(null, null, secret), false));
    }

    private long run(Job job) {
        return server.jobs().run(job.id(), 0, null).id();
    }

    private Instance instance(long id) {
        return server.instances().history(id).orElseThrow().instance();
    }

    /** Waits until the instance's accept is written: DISPATCHING with a deadline. */
    private Instance awaiting(long id) {
        Await.until(() -> "instance " + id + " awaits its callback", WAIT,
                () -> instance(id).callbackDeadline() != null);
        return instance(id);
    }

    private CallbackService.Result report(String token, Outcome outcome, String error, String output) {
        return server.callbacks().report(token, new Report(outcome, error, output), null);
    }

    @Test
    void callCarriesItsCallbackUrl_answer202AwaitsTheReport_successKeepsItsOutput_aReplayIsStale() throws Exception {
        Job job = job("charge", RetryPolicy.NONE, 0, null);
        long id = run(job);

        Call call = receiver.next();
        assertEquals(id, call.instanceId());
        assertTrue(call.callbackUrl().startsWith("https://jobs.example.com/base/api/callbacks/" + id + ".1."),
                call.callbackUrl());
        assertTrue(call.body().contains("\"callbackUrl\":\"" + call.callbackUrl() + "\""), call.body());
        Instance waiting = awaiting(id);
        assertEquals(InstanceStatus.DISPATCHING, waiting.status());
        assertEquals(clock.instant().plusMillis(TIMEOUT_MS).toEpochMilli(),
                waiting.callbackDeadline().toEpochMilli(), "due a callback time-out after the answer");
        server.passNow(); // a loader pass (its foreign-claim settler, its sweep) leaves an awaited call alone
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status());

        CallbackService.Result done = report(call.token(), Outcome.SUCCEEDED, null, "{\"charged\": 42}");

        assertEquals(Verdict.APPLIED, done.verdict());
        Instance succeeded = instance(id);
        assertEquals(InstanceStatus.SUCCEEDED, succeeded.status());
        assertEquals("{\"charged\": 42}", succeeded.output());
        assertNull(succeeded.callbackDeadline());
        assertEquals(Verdict.STALE, report(call.token(), Outcome.SUCCEEDED, null, null).verdict(), "a replay");
        assertEquals(Verdict.STALE, report(call.token(), Outcome.FAILED, "late change of mind", null).verdict());
        assertEquals(InstanceStatus.SUCCEEDED, instance(id).status());
        assertEquals(0, receiver.calls.size(), "called once");
    }

    @Test
    void reportedFailure_isRetriedWithANewToken_theOldTokenIsStale_theLastFailureIsFinal() throws Exception {
        Job job = job("flaky", new RetryPolicy(2, 1), 0, null);
        long id = run(job);
        Call first = receiver.next();
        awaiting(id);

        assertEquals(Verdict.APPLIED, report(first.token(), Outcome.FAILED, "card declined", null).verdict());

        Call second = receiver.next();
        assertEquals(2, second.attempt());
        assertNotEquals(first.token(), second.token());
        awaiting(id);
        assertEquals(Verdict.STALE, report(first.token(), Outcome.SUCCEEDED, null, null).verdict(),
                "a report for the earlier attempt changes nothing");
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status());
        assertEquals(Verdict.APPLIED, report(second.token(), Outcome.FAILED, "still declined", null).verdict());
        Instance failed = instance(id);
        assertEquals(InstanceStatus.FAILED, failed.status());
        assertEquals("still declined", failed.error());
        var history = server.instances().history(id).orElseThrow().attempts();
        assertEquals(2, history.size(), history.toString());
        assertEquals("card declined", history.get(0).error());
    }

    @Test
    void heartbeatMovesTheDeadline_aReportPastItIsLate_theSweepFailsItAsTimedOut() throws Exception {
        Job job = job("slow", RetryPolicy.NONE, 0, null);
        long id = run(job);
        Call call = receiver.next();
        awaiting(id);

        clock.advance(Duration.ofSeconds(50));
        assertEquals(Verdict.APPLIED, report(call.token(), Outcome.RUNNING, null, null).verdict());
        assertEquals(clock.instant().plusMillis(TIMEOUT_MS).toEpochMilli(),
                instance(id).callbackDeadline().toEpochMilli());
        clock.advance(Duration.ofSeconds(50)); // 100 s after the answer, 50 s after the heartbeat
        server.passNow();
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status(), "the heartbeat moved the deadline");

        clock.advance(Duration.ofSeconds(10)); // the deadline, exactly
        assertEquals(Verdict.LATE, report(call.token(), Outcome.SUCCEEDED, null, null).verdict());
        assertEquals(Verdict.LATE, report(call.token(), Outcome.RUNNING, null, null).verdict());
        server.passNow();

        Instance failed = instance(id);
        assertEquals(InstanceStatus.FAILED, failed.status());
        assertTrue(failed.error().startsWith("no callback report within 60000 ms"), failed.error());
        assertEquals(Verdict.STALE, report(call.token(), Outcome.SUCCEEDED, null, null).verdict());
    }

    @Test
    void callbackCompletion_isForWebhooksOnly() {
        DeliveryPolicy delivery = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0,
                DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, null, Completion.callback(TIMEOUT_MS));
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> server.jobs().create(JobSpec.of("handler",
                        ScheduleSpec.api(), Target.handler("any")).withDelivery(delivery)));
        assertTrue(refused.getMessage().contains("completion CALLBACK applies only to WEBHOOK targets"),
                refused.getMessage());
    }

    @Test
    void tokensThisClusterDidNotIssue_areInvalid() throws Exception {
        Job job = job("tamper", RetryPolicy.NONE, 0, null);
        long id = run(job);
        Call call = receiver.next();
        awaiting(id);
        String token = call.token();
        String otherMac = token.substring(0, token.length() - 1) + (token.endsWith("0") ? "1" : "0");
        String otherAttempt = id + ".2." + token.substring((id + ".1.").length());

        for (String wrong : new String[] {otherMac, otherAttempt, "", "x", id + ".1.1"}) {
            assertEquals(Verdict.INVALID_TOKEN, report(wrong, Outcome.SUCCEEDED, null, null).verdict(), wrong);
        }
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status());
    }

    @Test
    void jobWithASigningSecret_takesOnlySignedReports() throws Exception {
        String secret = "whsec_callback_test";
        Job job = job("signed", RetryPolicy.NONE, 0, secret);
        long id = run(job);
        Call call = receiver.next();
        awaiting(id);
        byte[] body = "{\"outcome\":\"SUCCEEDED\"}".getBytes(StandardCharsets.UTF_8);
        String now = Long.toString(clock.instant().getEpochSecond());
        Report success = new Report(Outcome.SUCCEEDED, null, null);

        assertEquals(Verdict.BAD_SIGNATURE, server.callbacks().report(call.token(), success, null).verdict());
        assertEquals(Verdict.BAD_SIGNATURE, server.callbacks().report(call.token(), success,
                new CallbackService.Signed(now, sign("another secret", now, body), body)).verdict());
        String stale = Long.toString(clock.instant().minus(Duration.ofMinutes(6)).getEpochSecond());
        assertEquals(Verdict.BAD_SIGNATURE, server.callbacks().report(call.token(), success,
                new CallbackService.Signed(stale, sign(secret, stale, body), body)).verdict(), "too old");
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status());

        assertEquals(Verdict.APPLIED, server.callbacks().report(call.token(), success,
                new CallbackService.Signed(now, sign(secret, now, body), body)).verdict());
        assertEquals(InstanceStatus.SUCCEEDED, instance(id).status());
    }

    private static String sign(String secret, String timestamp, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
        return "v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    }

    @Test
    void maxConcurrentCountsAwaitedWork_theNextRunStartsOnlyAfterTheReport() throws Exception {
        Job job = job("one at a time", RetryPolicy.NONE, 1, null);
        long first = run(job);
        long second = run(job);
        Call call = receiver.next();
        awaiting(call.instanceId());
        server.passNow();

        assertNull(receiver.calls.poll(300, TimeUnit.MILLISECONDS), "the job's one slot is the awaited work's");
        long waitingOne = call.instanceId() == first ? second : first;
        assertEquals(InstanceStatus.WAITING, instance(waitingOne).status());

        assertEquals(Verdict.APPLIED, report(call.token(), Outcome.SUCCEEDED, null, null).verdict());
        assertEquals(waitingOne, receiver.next().instanceId());
    }

    @Test
    void reportOvertakingTheCallsOwnAnswer_settlesIt_andTheLateAcceptChangesNothing() throws Exception {
        Job job = job("fast target", RetryPolicy.NONE, 1, null);
        // The target reports before it answers the call: the accept is written after the report.
        receiver.beforeAnswer = call -> assertEquals(Verdict.APPLIED,
                report(call.token(), Outcome.SUCCEEDED, null, "\"done first\"").verdict());
        long first = run(job);
        receiver.next();
        receiver.beforeAnswer = call -> { };
        long second = run(job);

        assertEquals(second, receiver.next().instanceId(), "the job's slot came back though the accept lost");
        Instance done = instance(first);
        assertEquals(InstanceStatus.SUCCEEDED, done.status());
        assertEquals("\"done first\"", done.output());
        assertNull(done.callbackDeadline(), "the late accept did not revive the deadline");
    }

    @Test
    void restartWhileAwaiting_nothingIsCalledAgain_theOldTokenStillReports_andTheLimitStillCounts() throws Exception {
        Job job = job("survives restarts", RetryPolicy.NONE, 1, null);
        long id = run(job);
        Call call = receiver.next();
        awaiting(id);
        server.close();
        clock.advance(Duration.ofSeconds(1)); // as time does: a restart's IDs are minted later than the last ones

        server = start();
        long next = run(job);
        server.passNow(); // recovery's foreign-claim settler and the sweep ran; the limit adopted the awaited work
        assertNull(receiver.calls.poll(300, TimeUnit.MILLISECONDS), "no call again, and the next run waits");
        assertEquals(InstanceStatus.DISPATCHING, instance(id).status());

        assertEquals(Verdict.APPLIED, report(call.token(), Outcome.SUCCEEDED, null, null).verdict());
        assertEquals(InstanceStatus.SUCCEEDED, instance(id).status());
        assertEquals(next, receiver.next().instanceId(), "the report freed the job's slot after the restart");
    }
}
