package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.CallbackService.Outcome;
import dev.tickwheel.server.CallbackService.Report;
import dev.tickwheel.server.CallbackService.Verdict;
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
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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

    private final Receiver receiver = new Receiver();
    private TickwheelServer server;

    /** One signed call as received: the headers a receiver checks and the body bytes they cover. */
    private record Call(String path, long jobId, String timestamp, String signature, byte[] body, String callbackUrl) {
    }

    /** A webhook target: {@code /now} answers 200, {@code /later} 202 (a job completing by callback). */
    private static final class Receiver implements AutoCloseable {
        final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
        final HttpServer http;

        Receiver() {
            try {
                http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            http.setExecutor(Executors.newFixedThreadPool(2));
            http.createContext("/", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                var headers = exchange.getRequestHeaders();
                calls.add(new Call(exchange.getRequestURI().getPath(),
                        Long.parseLong(headers.getFirst("Tickwheel-Job-Id")), headers.getFirst("Tickwheel-Timestamp"),
                        headers.getFirst("Tickwheel-Signature"), body,
                        headers.getFirst(WebhookInvoker.CALLBACK_URL_HEADER)));
                exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/later") ? 202 : 200, -1);
                exchange.close();
            });
            http.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + http.getAddress().getPort() + path;
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

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        receiver.close();
    }

    private static SecretKeys keys(String current, String... previous) {
        return SecretKeys.parse(current, "secretKey", List.of(previous), "previousSecretKeys");
    }

    private static String key(int seed) {
        byte[] bytes = new byte[SecretKeys.KEY_BYTES];
        java.util.Arrays.fill(bytes, (byte) seed);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private String jdbcUrl() {
        return "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath();
    }

    private TickwheelServer start(SecretKeys keys) {
        return TickwheelServer.builder().jdbcUrl(jdbcUrl()).secretKeys(keys)
                .callbackBaseUrl("https://jobs.example.com").build().start();
    }

    private Job job(String path, String secret, Completion completion) {
        DeliveryPolicy delivery = new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, 0,
                DeliveryPolicy.OverLimit.WAIT, DeliveryPolicy.DEFAULT_PRIORITY, null, completion);
        return server.jobs().create(new JobSpec("signed " + path, ScheduleSpec.api(),
                Target.webhook(receiver.url(path)), null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE,
                delivery, new JobOperations(null, null, secret), false));
    }

    /** Runs the job now and checks that its call is signed with {@code secret}, over the body as received. */
    private Call callVerifiesWith(Job job, String secret) throws Exception {
        server.jobs().run(job.id(), 0, null);
        Call call = receiver.next();
        assertEquals(job.id(), call.jobId());
        assertEquals(SignatureOracle.v1(secret, call.timestamp(), call.body()), call.signature(),
                "job " + job.id() + "'s call is signed with its own secret");
        return call;
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
        SecretKeys keyA = keys(key(1));
        SecretKeys keyBAfterA = keys(key(2), key(1));
        SecretKeys keyB = keys(key(2));
        String idA = keyA.currentKeyId().orElseThrow();
        String idB = keyB.currentKeyId().orElseThrow();

        server = start(keyA);
        Job one = job("/now", SECRET_ONE, Completion.IMMEDIATE);
        Job two = job("/now", SECRET_TWO, Completion.IMMEDIATE);
        Job later = job("/later", null, Completion.callback(600_000));
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        long awaited = server.jobs().run(later.id(), 0, null).id();
        Call awaiting = receiver.next();
        String token = awaiting.callbackUrl().substring(awaiting.callbackUrl().lastIndexOf('/') + 1);
        Await.until(() -> "instance " + awaited + " awaits its callback", WAIT,
                () -> server.instances().history(awaited).orElseThrow().instance().callbackDeadline() != null);
        server.close();
        assertEquals(2, storedSecrets().size());
        for (String stored : storedSecrets()) {
            assertTrue(stored.startsWith("tw1:" + idA + ":"), stored);
            assertFalse(stored.contains(SECRET_ONE) || stored.contains(SECRET_TWO), stored);
        }

        server = start(keyBAfterA);
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        server.close();
        for (String stored : storedSecrets()) {
            assertTrue(stored.startsWith("tw1:" + idB + ":"), stored);
        }

        server = start(keyB);
        callVerifiesWith(one, SECRET_ONE);
        callVerifiesWith(two, SECRET_TWO);
        assertEquals(Verdict.APPLIED, server.callbacks().report(token, new Report(Outcome.SUCCEEDED, null, null),
                null).verdict(), "a token issued under key A verifies under key B: the callback key is the same");
        assertEquals(InstanceStatus.SUCCEEDED,
                server.instances().history(awaited).orElseThrow().instance().status());
    }

    @Test
    void start_wrongKeyFacingEncryptedSecrets_refusesInOneLine_andTheRightKeyStillStarts() throws Exception {
        server = start(keys(key(1)));
        Job job = job("/now", SECRET_ONE, Completion.IMMEDIATE);
        server.close();
        server = null;

        String idA = keys(key(1)).currentKeyId().orElseThrow();
        SecretKeyMismatchException e = assertThrows(SecretKeyMismatchException.class,
                () -> start(keys(key(3))));
        assertEquals("secretKey does not match the key the store's secrets are encrypted with (key id " + idA
                + "); give that key, or it as previousSecretKeys beside the new one", e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        e = assertThrows(SecretKeyMismatchException.class, () -> start(SecretKeys.NONE));
        assertTrue(e.getMessage().startsWith("the store's secrets are encrypted (key id " + idA + ")"),
                e.getMessage());

        server = start(keys(key(1)));
        callVerifiesWith(job, SECRET_ONE);
    }
}
