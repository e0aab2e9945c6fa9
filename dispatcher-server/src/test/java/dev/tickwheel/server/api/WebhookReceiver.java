package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook endpoint for tests: counts deliveries and records their Idempotency-Keys per instance ID, and each
 * delivery's headers and raw body (to verify signatures over); answers after a fixed latency; optionally holds every
 * call until released, so that an instance stays DISPATCHING. Thread-safe.
 */
final class WebhookReceiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One delivery as received.
     *
     * @param headers the request headers, names in lower case (first value of each)
     * @param body    the body bytes exactly as received
     */
    record Delivery(Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    private final Map<String, List<String>> keys = new ConcurrentHashMap<>();
    private final AtomicInteger arrived = new AtomicInteger();
    private final Map<String, List<Delivery>> received = new ConcurrentHashMap<>();
    private final java.util.concurrent.ScheduledExecutorService answerLater =
            Executors.newSingleThreadScheduledExecutor();
    private volatile CountDownLatch gate = new CountDownLatch(0); // replaced by hold(); read by handler threads
    /** What a delivery is answered with: status and body, from its JSON body. Replaced by answerWith(). */
    private volatile java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, Answer> answers =
            delivery -> new Answer(200, null);

    /** A status and a body (null for none, sent as application/json otherwise). */
    record Answer(int status, String body) {
    }

    WebhookReceiver() {
        this(java.time.Duration.ZERO, 16);
    }

    /**
     * @param latency how long each call is held before it is answered (a slow target)
     * @param threads calls handled at once; a call beyond them queues in the receiver
     */
    WebhookReceiver(java.time.Duration latency, int threads) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1_000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            com.fasterxml.jackson.databind.JsonNode tree = JSON.readTree(body);
            String instanceId = tree.path("instanceId").asText();
            Map<String, String> headers = new java.util.TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(java.util.Locale.ROOT), values.get(0)));
            received.computeIfAbsent(instanceId, id -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(new Delivery(headers, body));
            deliveries.computeIfAbsent(instanceId, id -> new AtomicInteger()).incrementAndGet();
            keys.computeIfAbsent(instanceId, id -> java.util.Collections.synchronizedList(new java.util.ArrayList<>()))
                    .add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
            arrived.incrementAndGet();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // A slow receiver answers later from a scheduler: no thread is held per call.
            Answer answer = answers.apply(tree);
            answerLater.schedule(() -> {
                try {
                    if (answer.body() == null) {
                        exchange.sendResponseHeaders(answer.status(), -1);
                    } else {
                        byte[] bytes = answer.body().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                        exchange.getResponseHeaders().set("Content-Type", "application/json");
                        exchange.sendResponseHeaders(answer.status(), bytes.length);
                        exchange.getResponseBody().write(bytes);
                    }
                } catch (IOException closedByClient) {
                    // the caller gave up (deadline) or was killed
                }
                exchange.close();
            }, latency.toMillis(), TimeUnit.MILLISECONDS);
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    /** Calls from now on are answered with what {@code answer} makes of each call's JSON body. */
    void answerWith(java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, Answer> answer) {
        answers = answer;
    }

    /** Calls from now on wait until {@link #release()}. */
    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        gate.countDown();
    }

    int arrived() {
        return arrived.get();
    }

    int deliveriesOf(String instanceId) {
        AtomicInteger count = deliveries.get(instanceId);
        return count == null ? 0 : count.get();
    }

    /** The Idempotency-Key of each delivery of an instance, in arrival order. */
    List<String> keysOf(String instanceId) {
        List<String> seen = keys.get(instanceId);
        if (seen == null) {
            return List.of();
        }
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    /** Every delivery of an instance, in arrival order. */
    List<Delivery> deliveries(String instanceId) {
        return List.copyOf(received.getOrDefault(instanceId, List.of()));
    }

    List<String> deliveredIds() {
        return List.copyOf(deliveries.keySet());
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
        answerLater.shutdownNow();
    }
}
