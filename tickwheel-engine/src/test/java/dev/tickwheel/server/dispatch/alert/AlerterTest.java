package dev.tickwheel.server.dispatch.alert;

import static dev.tickwheel.server.dispatch.alert.AlertFixtures.JOB_SECRET;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.SERVER_SECRET;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.T0;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.instance;
import static dev.tickwheel.server.dispatch.alert.AlertFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.jdbc.MutableClock;
import dev.tickwheel.time.MisfirePolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The alerter's decisions with a clock, a worker and a poster the test drives: which endings alert, where to, the
 * failure threshold's sliding window, the rate limit and its suppressed count, retries and the bounded queue.
 */
class AlerterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JOB_URL = "https://alerts.example.com/job";
    private static final String SERVER_URL = "https://alerts.example.com/server";

    /** One alert call as the poster got it. */
    record Post(String url, Map<String, String> headers, JsonNode body, Duration timeout, String secret) {
        String kind() {
            return body.get("kind").asText();
        }
    }

    private final MutableClock clock = new MutableClock(T0);
    private final AlertFixtures.ManualWorker worker = new AlertFixtures.ManualWorker();
    private final AlertFixtures.Outcomes outcomes = new AlertFixtures.Outcomes();
    private final List<Post> posts = new ArrayList<>();
    private int failuresLeft;

    private final Alerter.Poster poster = (url, headers, body, timeout, secret) -> {
        try {
            posts.add(new Post(url, headers, JSON.readTree(body), timeout, secret));
        } catch (IOException e) {
            throw new AssertionError("the body is not JSON", e);
        }
        return failuresLeft-- > 0
                ? CompletableFuture.failedFuture(new IOException("webhook answered HTTP 500"))
                : CompletableFuture.completedFuture(null);
    };

    private Alerter alerter(AlertSettings settings, int capacity) {
        return new Alerter(settings, 3, clock, poster, Duration.ofSeconds(10), outcomes, worker, capacity,
                Alerter.RETRY_BACKOFFS);
    }

    private Alerter alerter(AlertSettings settings) {
        return alerter(settings, Alerter.DEFAULT_QUEUE_CAPACITY);
    }

    private void fail(Alerter alerter, Job job, long instanceId) {
        alerter.instanceEnded(job, instance(instanceId, job, 2, T0.minusSeconds(30)), InstanceStatus.FAILED,
                "webhook answered HTTP 503");
        worker.runNow();
    }

    private List<Post> postsOf(String kind) {
        return posts.stream().filter(p -> p.kind().equals(kind)).toList();
    }

    @Test
    void instanceFailed_jobWithAlertUrl_postsOneAlertWithItsKeyFieldsAndSecret() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS);
        Job job = job(7, JOB_URL, JOB_SECRET, MisfirePolicy.SKIP);

        fail(alerter, job, 1001);

        assertEquals(1, posts.size());
        Post post = posts.get(0);
        assertEquals(JOB_URL, post.url());
        assertEquals(JOB_SECRET, post.secret());
        assertEquals(Duration.ofSeconds(10), post.timeout());
        assertEquals(Map.of("Idempotency-Key", "alert:INSTANCE_FAILED:1001"), post.headers());
        JsonNode body = post.body();
        assertEquals("INSTANCE_FAILED", body.get("kind").asText());
        assertEquals("7", body.get("jobId").asText());
        assertEquals("job 7", body.get("jobName").asText());
        assertEquals("1001", body.get("instanceId").asText());
        assertEquals("FAILED", body.get("status").asText());
        assertEquals(2, body.get("attempt").asInt());
        assertEquals("webhook answered HTTP 503", body.get("error").asText());
        assertEquals(T0.minusSeconds(30).toString(), body.get("expectedTriggerTime").asText());
        assertEquals(T0.toString(), body.get("occurredAt").asText());
        assertTrue(body.get("failuresInWindow").isNull());
        assertTrue(body.get("skippedTriggers").isNull());
        assertEquals(0, body.get("suppressed").asInt());
        assertEquals(3, body.get("node").asInt());
        assertEquals("alert:INSTANCE_FAILED:1001", body.get("idempotencyKey").asText());
        assertEquals(Map.of(AlertKind.INSTANCE_FAILED, Map.of(AlertOutcome.SENT, 1)), outcomes.all());
    }

    @Test
    void instanceEnded_interruptedOrCancelled_noAlert() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withUrl(SERVER_URL));
        Job job = job(7, JOB_URL);

        alerter.instanceEnded(job, instance(1, job, 1, T0), InstanceStatus.INTERRUPTED, "the server stopped");
        alerter.instanceEnded(job, instance(2, job, 1, T0), InstanceStatus.CANCELLED, null);
        alerter.instanceEnded(job, instance(3, job, 1, T0), InstanceStatus.SUCCEEDED, null);
        worker.runNow();

        assertEquals(List.of(), posts);
        assertEquals(Map.of(), outcomes.all());
    }

    @Test
    void misfiresDropped_policySkip_alertsWithTheCountAndEarliestTrigger_otherPoliciesDoNot() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS);
        Job skip = job(7, JOB_URL, null, MisfirePolicy.SKIP);
        Job fireOnce = job(8, JOB_URL, null, MisfirePolicy.FIRE_ONCE_NOW);
        Job fireAll = job(9, JOB_URL, null, MisfirePolicy.FIRE_ALL);

        alerter.misfiresDropped(skip, 12, T0.minusSeconds(600));
        alerter.misfiresDropped(fireOnce, 11, T0.minusSeconds(600));
        alerter.misfiresDropped(fireAll, 5, T0.minusSeconds(600));
        worker.runNow();

        assertEquals(1, posts.size(), posts.toString());
        JsonNode body = posts.get(0).body();
        assertEquals("MISFIRE_SKIPPED", body.get("kind").asText());
        assertEquals("7", body.get("jobId").asText());
        assertEquals(12, body.get("skippedTriggers").asInt());
        assertEquals(T0.minusSeconds(600).toString(), body.get("expectedTriggerTime").asText());
        assertTrue(body.get("instanceId").isNull());
        assertTrue(body.get("status").isNull());
        assertTrue(body.get("attempt").isNull());
        String key = "alert:MISFIRE_SKIPPED:7:" + T0.minusSeconds(600).toEpochMilli();
        assertEquals(key, posts.get(0).headers().get("Idempotency-Key"));
        assertEquals(key, body.get("idempotencyKey").asText());
    }

    @Test
    void failureThreshold_slidingWindow_alertsWhileTheWindowHoldsEnoughFailures() {
        // Threshold 3 in 10 minutes; no rate limit, so every decision shows.
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withFailureThreshold(3)
                .withFailureWindow(Duration.ofMinutes(10)).withMinInterval(Duration.ZERO));
        Job job = job(7, JOB_URL);

        fail(alerter, job, 1);                      // 00:00  1 in window
        clock.advance(Duration.ofMinutes(4));
        fail(alerter, job, 2);                      // 00:04  2
        assertEquals(List.of(), postsOf("FAILURE_THRESHOLD"));
        clock.advance(Duration.ofMinutes(5));
        fail(alerter, job, 3);                      // 00:09  3: reached
        assertEquals(1, postsOf("FAILURE_THRESHOLD").size());
        JsonNode reached = postsOf("FAILURE_THRESHOLD").get(0).body();
        assertEquals(3, reached.get("failuresInWindow").asInt());
        assertTrue(reached.get("instanceId").isNull());
        assertEquals("webhook answered HTTP 503", reached.get("error").asText(), "the latest failure's error");
        String windowStart = Long.toString(T0.plusSeconds(9 * 60).minusSeconds(600).toEpochMilli());
        assertEquals("alert:FAILURE_THRESHOLD:7:" + windowStart,
                postsOf("FAILURE_THRESHOLD").get(0).headers().get("Idempotency-Key"));

        clock.advance(Duration.ofMinutes(1));
        fail(alerter, job, 4);                      // 00:10  00:00 is exactly one window old: out; 3 remain
        assertEquals(2, postsOf("FAILURE_THRESHOLD").size());
        assertEquals(3, postsOf("FAILURE_THRESHOLD").get(1).body().get("failuresInWindow").asInt());

        clock.advance(Duration.ofMinutes(4).plusSeconds(1));
        fail(alerter, job, 5);                      // 00:14:01  00:04 out; 00:09, 00:10, now: 3
        assertEquals(3, postsOf("FAILURE_THRESHOLD").size());

        clock.advance(Duration.ofMinutes(10));
        fail(alerter, job, 6);                      // 00:24:01  only itself
        assertEquals(3, postsOf("FAILURE_THRESHOLD").size(), "the window has emptied");
        assertEquals(6, postsOf("INSTANCE_FAILED").size());
    }

    @Test
    void failureThreshold_countsPerJob() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withFailureThreshold(2).withMinInterval(Duration.ZERO));

        fail(alerter, job(7, JOB_URL), 1);
        fail(alerter, job(8, JOB_URL), 2);
        assertEquals(List.of(), postsOf("FAILURE_THRESHOLD"));

        fail(alerter, job(8, JOB_URL), 3);
        assertEquals(1, postsOf("FAILURE_THRESHOLD").size());
        assertEquals("8", postsOf("FAILURE_THRESHOLD").get(0).body().get("jobId").asText());
    }

    @Test
    void failureThreshold_countsUpToTheMostKeptPerJob() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withFailureThreshold(AlertSettings.MAX_FAILURE_THRESHOLD)
                .withMinInterval(Duration.ZERO));
        Job job = job(7, JOB_URL);

        for (long id = 1; id <= AlertSettings.MAX_FAILURE_THRESHOLD + 5; id++) {
            fail(alerter, job, id);
            clock.advance(Duration.ofMillis(1));
        }

        List<Post> reached = postsOf("FAILURE_THRESHOLD");
        assertEquals(6, reached.size(), "from the 1000th failure on");
        for (Post post : reached) {
            assertEquals(AlertSettings.MAX_FAILURE_THRESHOLD, post.body().get("failuresInWindow").asInt());
        }
    }

    @Test
    void rateLimit_onePerJobAndKindPerInterval_theNextOneCarriesTheSuppressedCount() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withFailureThreshold(1000)
                .withMinInterval(Duration.ofMinutes(5)));
        Job job = job(7, JOB_URL);
        Job other = job(8, JOB_URL);

        fail(alerter, job, 1);                                  // 00:00 sent
        clock.advance(Duration.ofMinutes(1));
        fail(alerter, job, 2);                                  // 00:01 suppressed
        fail(alerter, other, 3);                                // another job: its own limit, sent
        alerter.misfiresDropped(job, 1, T0);                    // another kind: its own limit, sent
        worker.runNow();
        clock.advance(Duration.ofMinutes(4).plusSeconds(59));
        fail(alerter, job, 4);                                  // 00:05:59 > 00:05: sent
        assertEquals(List.of("1", "3", "4"),
                postsOf("INSTANCE_FAILED").stream().map(p -> p.body().get("instanceId").asText()).toList());

        clock.advance(Duration.ofMinutes(1));
        fail(alerter, job, 5);                                  // 00:06:59 suppressed (last sent 00:05:59)
        fail(alerter, job, 6);                                  // suppressed
        clock.advance(Duration.ofMinutes(5));
        fail(alerter, job, 7);                                  // 00:11:59 sent, 2 suppressed before it

        List<Post> sent = postsOf("INSTANCE_FAILED").stream()
                .filter(p -> p.body().get("jobId").asText().equals("7")).toList();
        assertEquals(List.of(0, 1, 2), sent.stream().map(p -> p.body().get("suppressed").asInt()).toList());
        assertEquals(3, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.SUPPRESSED));
        assertEquals(4, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT));
        assertEquals(1, outcomes.of(AlertKind.MISFIRE_SKIPPED, AlertOutcome.SENT));
    }

    @Test
    void rateLimit_exactlyOneIntervalLater_goesOut() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withMinInterval(Duration.ofMinutes(5)));
        Job job = job(7, JOB_URL);

        fail(alerter, job, 1);
        clock.advance(Duration.ofMinutes(5).minusMillis(1));
        fail(alerter, job, 2);
        clock.advance(Duration.ofMillis(1));
        fail(alerter, job, 3);

        assertEquals(List.of("1", "3"), posts.stream().map(p -> p.body().get("instanceId").asText()).toList());
        assertEquals(1, posts.get(1).body().get("suppressed").asInt());
    }

    @Test
    void destination_jobUrlBeatsServerUrl_eachWithItsOwnSecret() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withUrl(SERVER_URL).withSecret(SERVER_SECRET));

        fail(alerter, job(7, JOB_URL, JOB_SECRET, MisfirePolicy.SKIP), 1);
        fail(alerter, job(8, JOB_URL, null, MisfirePolicy.SKIP), 2);
        fail(alerter, job(9, null, JOB_SECRET, MisfirePolicy.SKIP), 3);
        fail(alerter, job(10, null, null, MisfirePolicy.SKIP), 4);

        assertEquals(List.of(JOB_URL, JOB_URL, SERVER_URL, SERVER_URL), posts.stream().map(Post::url).toList());
        assertEquals(JOB_SECRET, posts.get(0).secret());
        assertNull(posts.get(1).secret(), "a job URL without a job secret: unsigned");
        assertEquals(SERVER_SECRET, posts.get(2).secret(), "the server URL's receiver knows the alert secret");
        assertEquals(SERVER_SECRET, posts.get(3).secret());
    }

    @Test
    void destination_noJobUrlNoServerUrl_noAlertAndNothingCounted() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withFailureThreshold(1));

        fail(alerter, job(7, null), 1);
        alerter.misfiresDropped(job(7, null), 3, T0);
        worker.runNow();

        assertEquals(List.of(), posts);
        assertEquals(Map.of(), outcomes.all());
    }

    @Test
    void retries_afterOneFourAndSixteenSeconds_sameKeyAndBody_thenSent() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS);
        failuresLeft = 3;

        fail(alerter, job(7, JOB_URL), 1);
        worker.runScheduled();
        worker.runScheduled();
        worker.runScheduled();

        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(4), Duration.ofSeconds(16)), worker.delays());
        assertEquals(4, posts.size());
        assertEquals(1, posts.stream().map(Post::headers).distinct().count(), "one Idempotency-Key for all");
        assertEquals(1, posts.stream().map(Post::body).distinct().count(), "one body for all");
        assertEquals(Map.of(AlertKind.INSTANCE_FAILED, Map.of(AlertOutcome.SENT, 1)), outcomes.all());
    }

    @Test
    void retries_allFail_givenUpAfterThreeRetriesAndCountedFailed() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS);
        failuresLeft = 100;

        fail(alerter, job(7, JOB_URL), 1);
        for (int i = 0; i < 5; i++) {
            worker.runScheduled();
        }

        assertEquals(4, posts.size(), "one call and three retries");
        assertEquals(Map.of(AlertKind.INSTANCE_FAILED, Map.of(AlertOutcome.FAILED, 1)), outcomes.all());
    }

    @Test
    void queueFull_dropsAndCountsTheExcess_neverBlocks() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withMinInterval(Duration.ZERO), 3);
        Job job = job(7, JOB_URL);

        for (long id = 1; id <= 5; id++) { // the worker does not run meanwhile: the queue fills up
            alerter.instanceEnded(job, instance(id, job, 1, T0), InstanceStatus.FAILED, "boom");
        }
        assertEquals(3, worker.queued());
        assertEquals(2, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.DROPPED));

        worker.runNow();
        assertEquals(List.of("1", "2", "3"), posts.stream().map(p -> p.body().get("instanceId").asText()).toList());
        alerter.instanceEnded(job, instance(6, job, 1, T0), InstanceStatus.FAILED, "boom");
        worker.runNow();
        assertEquals(4, posts.size(), "sent alerts free their place");
    }

    @Test
    void queueBound_countsAlertsWaitingForARetry() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS.withMinInterval(Duration.ZERO), 2);
        Job job = job(7, JOB_URL);
        failuresLeft = 2;

        fail(alerter, job, 1);
        fail(alerter, job, 2); // both wait for a retry
        fail(alerter, job, 3);

        assertEquals(1, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.DROPPED));
        worker.runScheduled();
        assertEquals(2, outcomes.of(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT));
    }

    @Test
    void close_dropsAlertsWaitingForARetry_andRefusesNewOnes() {
        Alerter alerter = alerter(AlertSettings.DEFAULTS);
        failuresLeft = 1;
        fail(alerter, job(7, JOB_URL), 1);

        alerter.close();
        alerter.instanceEnded(job(8, JOB_URL), instance(2, job(8, JOB_URL), 1, T0), InstanceStatus.FAILED, "x");

        assertEquals(1, posts.size());
        assertEquals(Map.of(AlertKind.INSTANCE_FAILED, Map.of(AlertOutcome.DROPPED, 2)), outcomes.all());
    }
}
