package dev.tickwheel.server.dispatch.webhook;

import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.failure;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.success;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.net.InetAddresses;
import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.dispatch.guard.ScriptedResolver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The outbound guard as webhook calls meet it: judged on the address connected to, against real receivers on
 * 127.0.0.1 and a resolver of the test's own (names under {@code .test} resolve to what the test says).
 */
class WebhookInvokerGuardTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final InetAddress LOOPBACK = InetAddresses.forString("127.0.0.1");

    private final ScriptedResolver dns = new ScriptedResolver();
    private WebhookInvoker invoker;

    private OutboundGuard guard(String... allowed) {
        return dns.guard(allowed);
    }

    private WebhookInvoker invoker(OutboundGuard guard) {
        invoker = WebhookInvoker.builder().outboundGuard(guard).build();
        return invoker;
    }

    @AfterEach
    void closeInvoker() {
        if (invoker != null) {
            invoker.close();
        }
    }

    private static String urlOf(String host, RecordingHttpServer receiver) {
        return receiver.url().replace("127.0.0.1", host);
    }

    @Test
    void loopbackLiteral_isRefusedAtConnect_andTheReceiverGetsNothing() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            WebhookException e = failure(invoker(guard()).invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals(WebhookException.Reason.REFUSED, e.reason());
            assertEquals("webhook " + receiver.url() + " not called: target address 127.0.0.1 is refused by the"
                    + " outbound guard: loopback range 127.0.0.0/8; allow it with --allow-targets", e.getMessage());
            assertEquals(List.of(), receiver.received());
        }
    }

    @Test
    void ipv6LoopbackLiteral_isRefusedAtConnect() {
        WebhookException e = failure(invoker(guard()).invoke(job("http://[::1]:9/hook"), context(1, 1), TIMEOUT));

        assertEquals(WebhookException.Reason.REFUSED, e.reason());
        assertTrue(e.getMessage().contains("loopback address ::1"), e.getMessage());
    }

    @Test
    void allowListedAddress_isCalled() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker(guard("127.0.0.1/32")).invoke(job(receiver.url()), context(1, 1), TIMEOUT));

            assertEquals(1, receiver.received().size());
        }
    }

    @Test
    void allowListedHostPattern_isCalledWhateverItResolvesTo() throws Exception {
        dns.answer("hooks.internal.test", "127.0.0.1");
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            success(invoker(guard("*.internal.test")).invoke(job(urlOf("hooks.internal.test", receiver)),
                    context(1, 1), TIMEOUT));

            assertEquals(1, receiver.received().size());
        }
    }

    @Test
    void nameResolvingToPrivateAddress_isRefusedNamingHostAndAddress() throws Exception {
        dns.answer("db.test", "127.0.0.1");
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            String url = urlOf("db.test", receiver);
            WebhookException e = failure(invoker(guard()).invoke(job(url), context(1, 1), TIMEOUT));

            assertEquals(WebhookException.Reason.REFUSED, e.reason());
            assertEquals("webhook " + url + " not called: target address 127.0.0.1 (of host db.test) is refused by the"
                    + " outbound guard: loopback range 127.0.0.0/8; allow it with --allow-targets", e.getMessage());
            assertEquals(List.of(), receiver.received());
        }
    }

    @Test
    void dnsRebinding_allowedAtTheCheck_loopbackAtConnect_isRefused() throws Exception {
        dns.answer("rebind.test", "203.0.113.7", "127.0.0.1"); // TEST-NET-3, then loopback
        OutboundGuard guard = guard();
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            String url = urlOf("rebind.test", receiver);
            assertEquals(java.util.Optional.empty(), guard.check(url), "the first answer is a public address");

            WebhookException e = failure(invoker(guard).invoke(job(url), context(1, 1), TIMEOUT));

            assertEquals(WebhookException.Reason.REFUSED, e.reason());
            assertTrue(e.getMessage().contains("target address 127.0.0.1 (of host rebind.test)"), e.getMessage());
            assertEquals(List.of(), receiver.received());
            assertEquals(2, dns.lookups("rebind.test"), "one lookup at the check, one at connect");
        }
    }

    @Test
    void redirectToPrivateAddress_isNotFollowed_andFailsAsTheStatus() throws Exception {
        dns.answer("redirector.test", "127.0.0.1");
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, "ok")) {
            HttpServer redirector = redirectingTo(receiver.url());
            try {
                int port = redirector.getAddress().getPort();
                // Guarded (the redirector allowed by name) and unguarded alike: the 302 is the call's answer.
                Map<OutboundGuard, String> urls = Map.of(guard("redirector.test"),
                        "http://redirector.test:" + port + "/hook", OutboundGuard.OFF, "http://127.0.0.1:" + port);
                for (Map.Entry<OutboundGuard, String> call : urls.entrySet()) {
                    OutboundGuard guard = call.getKey();
                    WebhookException e = failure(invoker(guard).invoke(job(call.getValue()), context(1, 1), TIMEOUT));
                    invoker.close();

                    assertEquals(WebhookException.Reason.HTTP_STATUS, e.reason(), guard + ": " + e.getMessage());
                    assertEquals(302, e.status());
                }
                assertEquals(List.of(), receiver.received(), "the redirect's target is never called");
            } finally {
                redirector.stop(0);
            }
        }
    }

    /** Answers every request with 302 to {@code location}. */
    private static HttpServer redirectingTo(String location) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 16);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Location", location);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        server.start();
        return server;
    }
}
