package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.dispatch.guard.ScriptedResolver;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbound guard in the engine, on an H2 store, with a real receiver on 127.0.0.1: refused at creation (nothing
 * stored), refused at connect (the attempt fails with the guard's sentence, through the job's retry policy, and the
 * receiver gets nothing), let through by the allow-list.
 */
class OutboundGuardServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    private final AtomicInteger received = new AtomicInteger();
    private final ScriptedResolver dns = new ScriptedResolver();
    private HttpServer receiver;
    private TickwheelServer server;

    @BeforeEach
    void startReceiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        receiver.stop(0);
    }

    private String hookUrl(String host) {
        return "http://" + host + ":" + receiver.getAddress().getPort() + "/hook";
    }

    private OutboundGuard guard(String... allowed) {
        return dns.guard(allowed);
    }

    private TickwheelServer start(OutboundGuard guard) {
        server = TickwheelServer.builder().jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .outboundGuard(guard).build().start();
        return server;
    }

    private Instance awaitFinished(long instanceId) {
        Await.until(() -> "instance " + instanceId + " finished", WAIT, () -> {
            InstanceStatus status = server.instances().history(instanceId).map(h -> h.instance().status())
                    .orElse(null);
            return status == InstanceStatus.SUCCEEDED || status == InstanceStatus.FAILED;
        });
        return server.instances().history(instanceId).map(InstanceHistory::instance).orElseThrow();
    }

    private static JobSpec webhookJob(String url) {
        return JobSpec.of("hook", ScheduleSpec.api(), Target.webhook(url));
    }

    @Test
    void createWithLoopbackUrl_isRefusedNamingTargetUrl_andNothingIsStored() {
        start(guard());

        RefusedTargetException e = assertThrows(RefusedTargetException.class,
                () -> server.jobs().create(webhookJob(hookUrl("127.0.0.1"))));

        assertEquals("target.url", e.field());
        assertEquals("field 'target.url': target address 127.0.0.1 is refused by the outbound guard: loopback range"
                + " 127.0.0.0/8; allow it with --allow-targets", e.getMessage());
        assertEquals(0, server.jobs().search(null, null, 10).items().size());
    }

    @Test
    void createWithNameResolvingToMetadataAddress_isRefused_andUpdateToo() {
        dns.answer("meta.test", "169.254.169.254");
        dns.answer("public.test", "203.0.113.7");
        start(guard());

        RefusedTargetException created = assertThrows(RefusedTargetException.class,
                () -> server.jobs().create(webhookJob("http://meta.test/latest/meta-data")));
        assertTrue(created.getMessage().contains("(of host meta.test)") && created.getMessage()
                .contains("cloud metadata address 169.254.169.254"), created.getMessage());

        Job job = server.jobs().create(webhookJob("http://public.test/hook"));
        assertThrows(RefusedTargetException.class,
                () -> server.jobs().update(job.id(), webhookJob("http://meta.test/latest/meta-data")));
        assertEquals("http://public.test/hook", server.jobs().get(job.id()).orElseThrow().target().value());
    }

    @Test
    void createWithNameThatDoesNotResolveYet_isAccepted() {
        start(guard());

        Job job = server.jobs().create(webhookJob("http://not-yet.test/hook"));

        assertEquals("http://not-yet.test/hook", job.target().value());
    }

    @Test
    void alertUrlToPrivateAddress_isRefusedNamingAlertUrl() {
        start(guard());
        JobSpec spec = new JobSpec("alerting", ScheduleSpec.api(), Target.handler("none"), null, true, null, null,
                null, new JobOperations(null, "http://10.0.0.5/alerts", null), false);

        RefusedTargetException e = assertThrows(RefusedTargetException.class, () -> server.jobs().create(spec));

        assertEquals("alertUrl", e.field());
        assertTrue(e.getMessage().contains("private range 10.0.0.0/8"), e.getMessage());
    }

    @Test
    void serverAlertUrlToPrivateAddress_failsTheBuild() {
        TickwheelServer.Builder builder = TickwheelServer.builder().outboundGuard(guard())
                .alerts(AlertSettings.DEFAULTS.withUrl("http://192.168.1.10/alerts"));

        RefusedTargetException e = assertThrows(RefusedTargetException.class, builder::build);

        assertEquals("alerts.url", e.field());
    }

    @Test
    void jobStoredBeforeTheGuard_failsEachAttemptWithTheGuardsError_andTheReceiverGetsNothing() {
        long jobId = start(OutboundGuard.OFF).jobs().create(webhookJob(hookUrl("127.0.0.1"))
                .withRetry(new RetryPolicy(2, 10))).id();
        server.close();

        start(guard());
        Instance failed = awaitFinished(server.jobs().run(jobId, 0, null).id());

        assertEquals(InstanceStatus.FAILED, failed.status());
        assertEquals(2, failed.attempt(), "a refused call goes through the retry policy like a connect failure");
        assertEquals("webhook " + hookUrl("127.0.0.1") + " not called: target address 127.0.0.1 is refused by the"
                + " outbound guard: loopback range 127.0.0.0/8; allow it with --allow-targets", failed.error());
        assertEquals(0, received.get());
    }

    @Test
    void dnsRebinding_publicAtCreation_loopbackAtConnect_isRefused_andTheReceiverGetsNothing() {
        dns.answer("rebind.test", "203.0.113.7", "127.0.0.1");
        start(guard());
        Job job = server.jobs().create(webhookJob(hookUrl("rebind.test")));

        Instance failed = awaitFinished(server.jobs().run(job.id(), 0, null).id());

        assertEquals(InstanceStatus.FAILED, failed.status());
        assertTrue(failed.error().contains("target address 127.0.0.1 (of host rebind.test) is refused"),
                failed.error());
        assertEquals(0, received.get());
    }

    @Test
    void allowListedAddress_isCreatedAndCalled() {
        start(guard("127.0.0.1/32"));
        Job job = server.jobs().create(webhookJob(hookUrl("127.0.0.1")));

        Instance done = awaitFinished(server.jobs().run(job.id(), 0, null).id());

        assertEquals(InstanceStatus.SUCCEEDED, done.status(), done.error());
        assertEquals(1, received.get());
    }

    @Test
    void allowListedHostPattern_isCreatedAndCalled() {
        dns.answer("localhost.test", "127.0.0.1");
        start(guard("localhost.test"));
        Job job = server.jobs().create(webhookJob(hookUrl("localhost.test")));

        Instance done = awaitFinished(server.jobs().run(job.id(), 0, null).id());

        assertEquals(InstanceStatus.SUCCEEDED, done.status(), done.error());
        assertEquals(1, received.get());
    }
}
