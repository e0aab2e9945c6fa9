package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.CallbackService.Outcome;
import dev.tickwheel.server.CallbackService.Report;
import dev.tickwheel.server.CallbackService.Verdict;
import dev.tickwheel.server.dispatch.webhook.RecordingHttpServer;
import dev.tickwheel.server.dispatch.webhook.SignatureOracle;
import dev.tickwheel.server.dispatch.webhook.WebhookInvoker;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.SecretKeyMismatchException;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.store.TestKeys;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets at rest through the whole engine on its embedded H2 store and real webhook calls: a key rotated across
 * restarts (key A; then B beside A; then B alone) keeps every job's calls signed with its own secret and a callback
 * token issued before the rotation valid after it, while the column ends under B; a server given the wrong key does
 * not start and says why.
 */
class SecretsAtRestServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SECRET_ONE = "whsec_first_job_secret_0001";
    private static final String SECRET_TWO = "whsec_second_job_secret_0002";

    @TempDir
    Path dataDir;

    private final RecordingHttpServer now;
    private final RecordingHttpServer later;
    private TickwheelServer server;

    SecretsAtRestServerTest() throws IOException {
        now = new RecordingHttpServer(200, "ok");
        later = new RecordingHttpServer(202, null); // a job completing by callback: accepted, reported later
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        now.close();
        later.close();
    }

    private String jdbcUrl() {
        return "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath();
    }

    private TickwheelServer start(SecretKeys keys) {
        return TickwheelServer.builder().jdbcUrl(jdbcUrl()).secretKeys(keys)
                .callbackBaseUrl("https://jobs.example.com").build().start();
    }

    private Job job(RecordingHttpServer receiver, String secret, Completion completion) {
        DeliveryPolicy delivery = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0,
                DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, null, completion);
        return server.jobs().create(new JobSpec("signed", ScheduleSpec.api(),
                Target.webhook(receiver.url()), null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE,
                delivery, new JobOperations(null, null, secret), false));
    }

    /** The next call {@code receiver} gets, once it has it. */
    private static RecordingHttpServer.Received nextCall(RecordingHttpServer receiver, int seen) {
        Await.until("call " + (seen + 1) + " at " + receiver.url(), WAIT, () -> receiver.received().size() > seen);
        return receiver.received().get(seen);
    }

    /** Runs the job now and checks that its call is signed with {@code secret}, over the body as received. */
    private void callVerifiesWith(Job job, String secret) throws Exception {
        int seen = now.received().size();
        server.jobs().run(job.id(), 0, null);
        RecordingHttpServer.Received call = nextCall(now, seen);
        assertEquals(Long.toString(job.id()), call.headers().getFirst("Tickwheel-Job-Id"));
        String timestamp = call.headers().getFirst("Tickwheel-Timestamp");
        assertEquals(SignatureOracle.v1(secret, timestamp, call.bodyBytes()),
                call.headers().getFirst("Tickwheel-Signature"), "job " + job.id() + "'s call is signed with its own"
                        + " secret");
    }

    /** The stored forms of the job secrets, with plain SQL (the server is closed). */
    private List<String> storedSecrets() throws Exception {
        try (Connection connection = DriverManager.getConnection(jdbcUrl());
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT signing_secret FROM tw_job WHERE signing_secret IS NOT NULL ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            List<String> stored = new java.util.ArrayList<>();
            while (rs.next()) {
                stored.add(rs.getString(1));
            }
            return stored;
        }
    }

    @Test
    void rotation_acrossRestarts_callsStaySignedWithEachJobsSecret_andAnOldCallbackTokenStillReports()
            throws Exception {
        String idA = TestKeys.idOf(1);
        String idB = TestKeys.idOf(2);

        server = start(TestKeys.keys(1));
        Job one = job(now, SECRET_ONE, Completion.IMMEDIATE);
        Job two = job(now, SECRET_TWO, Completion.IMMEDIATE);
        Job byCallback = job(later, null, Completion.callback(600_000));
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        long awaited = server.jobs().run(byCallback.id(), 0, null).id();
        String callbackUrl = nextCall(later, 0).headers().getFirst(WebhookInvoker.CALLBACK_URL_HEADER);
        String token = callbackUrl.substring(callbackUrl.lastIndexOf('/') + 1);
        Await.until(() -> "instance " + awaited + " awaits its callback", WAIT,
                () -> server.instances().history(awaited).orElseThrow().instance().callbackDeadline() != null);
        server.close();
        assertEquals(2, storedSecrets().size());
        for (String stored : storedSecrets()) {
            assertTrue(stored.startsWith("tw1:" + idA + ":"), stored);
            assertFalse(stored.contains(SECRET_ONE) || stored.contains(SECRET_TWO), stored);
        }

        server = start(TestKeys.keys(2, 1));
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        server.close();
        for (String stored : storedSecrets()) {
            assertTrue(stored.startsWith("tw1:" + idB + ":"), stored);
        }

        server = start(TestKeys.keys(2));
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        assertEquals(Verdict.APPLIED, server.callbacks().report(token, new Report(Outcome.SUCCEEDED, null, null),
                null).verdict(), "a token issued under key A verifies under key B: the callback key is the same");
        assertEquals(InstanceStatus.SUCCEEDED,
                server.instances().history(awaited).orElseThrow().instance().status());
    }

    @Test
    void start_wrongKeyFacingEncryptedSecrets_refusesInOneLine_andTheRightKeyStillStarts() throws Exception {
        server = start(TestKeys.keys(1));
        Job job = job(now, SECRET_ONE, Completion.IMMEDIATE);
        server.close();
        server = null;

        String idA = TestKeys.idOf(1);
        SecretKeyMismatchException e = assertThrows(SecretKeyMismatchException.class,
                () -> start(TestKeys.keys(3)));
        assertEquals("secretKey does not match the key the store's secrets are encrypted with (key id " + idA
                + "); give that key, or it as previousSecretKeys beside the new one", e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        e = assertThrows(SecretKeyMismatchException.class, () -> start(SecretKeys.NONE));
        assertTrue(e.getMessage().startsWith("the store's secrets are encrypted (key id " + idA + ")"),
                e.getMessage());

        server = start(TestKeys.keys(1));
        callVerifiesWith(job, SECRET_ONE);
    }
}
