package dev.tickwheel.server.dispatch.alert;

import static dev.tickwheel.server.dispatch.alert.AlertFixtures.SERVER_SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.webhook.SignatureOracle;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's failures reach the alerter: an instance failing its last attempt (any target type), the threshold
 * after it, and the missed triggers of a SKIP job after a downtime, each POSTed to the server-wide alert URL and
 * signed with the alert secret.
 */
class FailureAlertsEngineTest {

    private static final Instant T0 = Instant.parse("2031-05-01T10:00:00Z");
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock(T0);
    private final AlertFixtures.Outcomes outcomes = new AlertFixtures.Outcomes();

    private TickwheelServer server(AlertSettings alerts) {
        return TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .stopTimeout(Duration.ofMillis(200))
                .handler("noop", ctx -> { })
                .handler("fails", ctx -> {
                    throw new IllegalStateException("disk full");
                })
                .alerts(alerts)
                .alertListener(outcomes)
                .build().start();
    }

    private void awaitOutcome(AlertKind kind, AlertOutcome outcome, int count) {
        Await.until(() -> kind + " " + outcome + " x" + count + ": " + outcomes.all(), WAIT,
                () -> outcomes.of(kind, outcome) == count);
    }

    @Test
    void lastAttemptFailed_alertsEachInstance_andTheThresholdOnTheSecond() throws Exception {
        try (AlertReceiver receiver = new AlertReceiver();
             TickwheelServer server = server(AlertSettings.DEFAULTS.withUrl(receiver.url())
                     .withSecret(SERVER_SECRET).withFailureThreshold(2).withMinInterval(Duration.ZERO))) {
            long jobId = server.jobs().create(JobSpec.of("fails", ScheduleSpec.api(), Target.handler("fails"))).id();
            long first = server.jobs().run(jobId, 0, null).id();
            awaitOutcome(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT, 1);
            long second = server.jobs().run(jobId, 0, null).id();
            awaitOutcome(AlertKind.FAILURE_THRESHOLD, AlertOutcome.SENT, 1);

            awaitOutcome(AlertKind.INSTANCE_FAILED, AlertOutcome.SENT, 2);

            assertEquals(InstanceStatus.FAILED, server.instances().history(first)
                    .map(InstanceHistory::instance).orElseThrow().status());
            List<AlertReceiver.Received> received = receiver.received();
            String windowStart = Long.toString(T0.minus(AlertSettings.DEFAULT_FAILURE_WINDOW).toEpochMilli());
            assertEquals(Set.of("alert:INSTANCE_FAILED:" + first, "alert:INSTANCE_FAILED:" + second,
                    "alert:FAILURE_THRESHOLD:" + jobId + ":" + windowStart),
                    received.stream().map(r -> r.header("Idempotency-Key")).collect(Collectors.toSet()));
            assertEquals(3, received.size());
            JsonNode failed = JSON.readTree(received.get(0).body());
            assertEquals("INSTANCE_FAILED", failed.get("kind").asText());
            assertEquals(Long.toString(first), failed.get("instanceId").asText());
            assertEquals(1, failed.get("attempt").asInt());
            assertTrue(failed.get("error").asText().contains("disk full"), failed.toString());
            assertEquals(server.nodeId(), failed.get("node").asInt());
            for (AlertReceiver.Received request : received) {
                assertEquals(SignatureOracle.v1(SERVER_SECRET, request.header("Tickwheel-Timestamp"), request.body()),
                        request.header("Tickwheel-Signature"));
            }
        }
    }

    @Test
    void skipJobAfterADowntime_alertsMisfireSkipped_theSecondReportOfTheSameDowntimeIsRateLimited() throws Exception {
        try (AlertReceiver receiver = new AlertReceiver()) {
            AlertSettings alerts = AlertSettings.DEFAULTS.withUrl(receiver.url());
            long jobId;
            try (TickwheelServer first = server(alerts)) {
                jobId = first.jobs().create(JobSpec.of("every 10 s", ScheduleSpec.cron("*/10 * * * * ?", "UTC"),
                        Target.handler("noop")).withMisfirePolicy(MisfirePolicy.SKIP)).id();
                Await.until("the T0 instance succeeded", WAIT, () -> !first.instances()
                        .list(jobId, InstanceStatus.SUCCEEDED, null, null, null, 10).items().isEmpty());
            }
            clock.set(T0.plus(Duration.ofMinutes(10)).plusSeconds(7));
            try (TickwheelServer second = server(alerts)) {
                // Recovery reports the downtime twice at most: triggers the loader never created, and instances
                // created before the stop that it cancels. The rate limit lets the first report through.
                awaitOutcome(AlertKind.MISFIRE_SKIPPED, AlertOutcome.SENT, 1);
                JsonNode body = JSON.readTree(receiver.received().get(0).body());
                assertEquals("MISFIRE_SKIPPED", body.get("kind").asText());
                assertEquals(Long.toString(jobId), body.get("jobId").asText());
                // 10:00:10 .. 10:10:00 were missed: the first pass had created 10:00:10 .. 10:00:30 (recovery
                // cancels those 3), the loader drops the other 57 and reports first.
                assertEquals(57, body.get("skippedTriggers").asInt(), body.toString());
                assertEquals(T0.plusSeconds(40).toString(), body.get("expectedTriggerTime").asText());
                awaitOutcome(AlertKind.MISFIRE_SKIPPED, AlertOutcome.SUPPRESSED, 1);
                assertEquals(1, receiver.received().size());
            }
        }
    }
}
