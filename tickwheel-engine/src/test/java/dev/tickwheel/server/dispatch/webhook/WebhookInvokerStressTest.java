package dev.tickwheel.server.dispatch.webhook;

import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.context;
import static dev.tickwheel.server.dispatch.webhook.WebhookFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** No thread waits on a call: hundreds of slow calls in flight at once on a handful of client threads. */
class WebhookInvokerStressTest {

    private static final int CALLS = 500;
    // Long enough that the calls overlap however slowly a loaded machine sends them (at 200 ms a CI run sending
    // fewer than 500 calls a second saw only 92 at once): the assertion is about threads, not about speed.
    private static final Duration RECEIVER_LATENCY = Duration.ofSeconds(2);

    @Test
    void invoke_500CallsToASlowReceiver_allInFlightAtOnceOnFewThreads() throws Exception {
        try (RecordingHttpServer receiver = new RecordingHttpServer(200, null, RECEIVER_LATENCY);
             WebhookInvoker invoker = WebhookInvoker.builder().maxConnectionsPerHost(1_000).build()) {
            int threadsBefore = Thread.activeCount();
            long startNanos = System.nanoTime();
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 1; i <= CALLS; i++) {
                calls.add(invoker.invoke(job(receiver.url()), context(i, 1), Duration.ofSeconds(20)));
            }
            List<String> clientThreads = clientThreads();
            int threadsInFlight = Thread.activeCount();

            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            System.out.printf("%d calls of %d ms in %d ms; at most %d waiting at the receiver at once; "
                            + "client threads %s; JVM threads %d before, %d in flight%n", CALLS,
                    RECEIVER_LATENCY.toMillis(), elapsedMs, receiver.peakWaiting(), clientThreads, threadsBefore,
                    threadsInFlight);
            Set<String> keys = new HashSet<>();
            receiver.received().forEach(r -> keys.add(r.headers().getFirst("Idempotency-Key")));
            assertEquals(CALLS, keys.size(), "every call arrived once");
            assertTrue(clientThreads.size() < 10, "client threads: " + clientThreads);
            assertTrue(threadsInFlight - threadsBefore < 10,
                    "threads grew from " + threadsBefore + " to " + threadsInFlight + " with calls in flight");
            // A thread per call (8 of them before) would have had at most 8 waiting at once.
            assertTrue(receiver.peakWaiting() >= 100, "at most " + receiver.peakWaiting() + " waiting at once");
        }
    }

    private static List<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith("tickwheel-webhook-"))
                .sorted()
                .toList();
    }
}
