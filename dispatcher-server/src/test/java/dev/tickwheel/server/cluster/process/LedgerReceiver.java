package dev.tickwheel.server.cluster.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.server.store.Shards;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook target in the test JVM that writes down every delivery it gets, from any cluster member: the instance,
 * its {@code Idempotency-Key}, job, attempt, the member ({@code Tickwheel-Node}) and the shard lease epoch
 * ({@code Tickwheel-Epoch}) the call was claimed under, from the JSON body the caller's {@code key} and the
 * {@code expectedTriggerTime} the member dispatched it for, and when it arrived (wall clock and
 * {@link System#nanoTime}).
 * Every call is answered 200, after a fixed delay if one is set (from a scheduler: no thread is held per call, so a
 * slow target never limits how many calls can be in flight).
 *
 * <p>The shard of a delivery is {@link Shards#ofInstance}(instance id, job id, spread, {@value Shards#DEFAULT_COUNT}):
 * the tests' jobs spread their instances unless the ledger was told that a job keeps one owner
 * ({@link #keepsOneOwner}); the count is a store's schema's, which the tests check against {@code GET /api/cluster}.
 *
 * <p>It also counts the calls in flight (received and not yet answered) and keeps their highest count.
 *
 * <p>Thread-safe: deliveries are appended by the server's handler threads and read by the test thread at any time.
 *
 * <p>Caveats: a call whose headers are missing or unparseable, or whose body is not a JSON object with an
 * {@code expectedTriggerTime}, is answered 200 as well, and kept in
 * {@link #malformed()} rather than in the ledger; the tests assert there are none. The receive time is taken when a
 * handler thread starts on the request, so it includes the (normally negligible) wait for a free handler thread.
 */
final class LedgerReceiver implements AutoCloseable {

    /**
     * One call as it arrived. {@code shard} is derived from the ids; {@code runKey} (null for a run without one)
     * and {@code expectedTriggerMillis} come from the body; times are taken on arrival.
     */
    record Delivery(long instanceId, String idempotencyKey, long jobId, int attempt, int node, long epoch, int shard,
                    long receivedAtMillis, long receivedAtNanos, String runKey, long expectedTriggerMillis) {
    }

    /** A shard lease generation: (shard, epoch) names one owner if fencing works. */
    record ShardEpoch(int shard, long epoch) implements Comparable<ShardEpoch> {
        private static final Comparator<ShardEpoch> ORDER =
                Comparator.comparingInt(ShardEpoch::shard).thenComparingLong(ShardEpoch::epoch);

        @Override
        public int compareTo(ShardEpoch other) {
            return ORDER.compare(this, other);
        }
    }

    private static final int HANDLER_THREADS = 32;
    private static final int BACKLOG = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService answerLater;
    private final long answerDelayMs;
    private final ConcurrentLinkedQueue<Delivery> all = new ConcurrentLinkedQueue<>();
    private final Map<Long, List<Delivery>> byInstance = new ConcurrentHashMap<>(); // lists guarded by themselves
    private final ConcurrentLinkedQueue<String> malformed = new ConcurrentLinkedQueue<>();
    private final Set<Long> oneOwnerJobs = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();

    /** Answers every call at once. */
    LedgerReceiver() {
        this(Duration.ZERO);
    }

    /** @param answerDelay how long each call waits for its 200 (a slow target keeps calls in flight) */
    LedgerReceiver(Duration answerDelay) {
        if (answerDelay.isNegative()) {
            throw new IllegalArgumentException("answerDelay must not be negative: " + answerDelay);
        }
        this.answerDelayMs = answerDelay.toMillis();
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), BACKLOG);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        handlers = Executors.newFixedThreadPool(HANDLER_THREADS, NamedThreads.daemon("ledger-http"));
        answerLater = Executors.newSingleThreadScheduledExecutor(NamedThreads.daemon("ledger-answer"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The URL jobs target, e.g. {@code http://127.0.0.1:41234/ledger}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/ledger";
    }

    private void handle(HttpExchange exchange) throws IOException {
        long receivedAtMillis = System.currentTimeMillis();
        long receivedAtNanos = System.nanoTime();
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes(); // read whole, also so that the connection can be reused
        }
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        write(exchange.getRequestHeaders(), body, receivedAtMillis, receivedAtNanos);
        if (answerDelayMs == 0) {
            answer(exchange);
        } else {
            answerLater.schedule(() -> answer(exchange), answerDelayMs, TimeUnit.MILLISECONDS);
        }
    }

    /** Deliveries of this job are on the job's shard: it keeps one owner (a {@code maxConcurrent}). */
    void keepsOneOwner(long jobId) {
        oneOwnerJobs.add(jobId);
    }

    /** The most calls that were in flight at once: received, and not yet answered. */
    int maxInFlight() {
        return maxInFlight.get();
    }

    private void write(Headers headers, byte[] body, long receivedAtMillis, long receivedAtNanos) {
        String key = headers.getFirst("Idempotency-Key");
        try {
            long instanceId = Long.parseLong(headers.getFirst("Tickwheel-Instance-Id"));
            long jobId = Long.parseLong(headers.getFirst("Tickwheel-Job-Id"));
            int attempt = Integer.parseInt(headers.getFirst("Tickwheel-Attempt"));
            int node = Integer.parseInt(headers.getFirst("Tickwheel-Node"));
            long epoch = Long.parseLong(headers.getFirst("Tickwheel-Epoch"));
            if (key == null) {
                throw new IllegalArgumentException("no Idempotency-Key");
            }
            JsonNode json = parseBody(body);
            JsonNode due = json.get("expectedTriggerTime");
            if (due == null || !due.isTextual()) {
                throw new IllegalArgumentException("no expectedTriggerTime in the body");
            }
            JsonNode runKey = json.get("key");
            Delivery delivery = new Delivery(instanceId, key, jobId, attempt, node, epoch,
                    Shards.ofInstance(instanceId, jobId, !oneOwnerJobs.contains(jobId), Shards.DEFAULT_COUNT),
                    receivedAtMillis, receivedAtNanos,
                    runKey == null || runKey.isNull() ? null : runKey.asText(),
                    Instant.parse(due.asText()).toEpochMilli());
            all.add(delivery);
            List<Delivery> ofInstance = byInstance.computeIfAbsent(instanceId, id -> new ArrayList<>(2));
            synchronized (ofInstance) {
                ofInstance.add(delivery);
            }
        } catch (IllegalArgumentException | DateTimeParseException e) { // NumberFormatException included
            malformed.add(e.getMessage() + " in headers " + headers.entrySet() + ", body "
                    + new String(body, StandardCharsets.UTF_8));
        }
    }

    /** The body as a JSON object, or {@link IllegalArgumentException} saying why not. */
    private static JsonNode parseBody(byte[] body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json == null || !json.isObject()) {
                throw new IllegalArgumentException("the body is not a JSON object");
            }
            return json;
        } catch (IOException e) {
            throw new IllegalArgumentException("the body is not JSON: " + e.getMessage(), e);
        }
    }

    private void answer(HttpExchange exchange) {
        inFlight.decrementAndGet(); // before the answer: the member may start its next call once it has it
        try {
            exchange.sendResponseHeaders(200, -1);
        } catch (IOException callerGone) {
            // the member gave up on the call (deadline) or was killed: the delivery is recorded all the same
        }
        exchange.close();
    }

    /** Every delivery so far, in no particular order. */
    List<Delivery> all() {
        return List.copyOf(all);
    }

    int size() {
        return all.size();
    }

    /** Calls that could not be read as deliveries, each with its headers. */
    List<String> malformed() {
        return List.copyOf(malformed);
    }

    /** The deliveries of one instance, in the order they arrived. */
    List<Delivery> deliveriesOf(long instanceId) {
        List<Delivery> ofInstance = byInstance.get(instanceId);
        if (ofInstance == null) {
            return List.of();
        }
        List<Delivery> copy;
        synchronized (ofInstance) {
            copy = new ArrayList<>(ofInstance);
        }
        copy.sort(Comparator.comparingLong(Delivery::receivedAtNanos));
        return copy;
    }

    /** The distinct Idempotency-Keys an instance was delivered with, in the order first seen. */
    Set<String> keysOf(long instanceId) {
        Set<String> keys = new LinkedHashSet<>();
        deliveriesOf(instanceId).forEach(d -> keys.add(d.idempotencyKey()));
        return keys;
    }

    /** When an instance first arrived (wall clock, ms), or empty if it never did. */
    OptionalLong firstDeliveryMillis(long instanceId) {
        List<Delivery> deliveries = deliveriesOf(instanceId);
        return deliveries.isEmpty() ? OptionalLong.empty() : OptionalLong.of(deliveries.get(0).receivedAtMillis());
    }

    Set<Long> deliveredInstanceIds() {
        return Set.copyOf(byInstance.keySet());
    }

    /** Which members made the deliveries of each (shard, epoch): one each, if fencing works. */
    Map<ShardEpoch, Set<Integer>> nodesByShardEpoch() {
        Map<ShardEpoch, Set<Integer>> nodes = new HashMap<>();
        for (Delivery d : all) {
            nodes.computeIfAbsent(new ShardEpoch(d.shard(), d.epoch()), se -> new TreeSet<>()).add(d.node());
        }
        return nodes;
    }

    /** Deliveries beyond the first with a key already seen for that instance: repeats a target can deduplicate. */
    int repeatsWithSameKey() {
        int repeats = 0;
        for (Long instanceId : byInstance.keySet()) {
            List<Delivery> deliveries = deliveriesOf(instanceId);
            repeats += deliveries.size() - (int) deliveries.stream().map(Delivery::idempotencyKey).distinct().count();
        }
        return repeats;
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
        answerLater.shutdownNow();
    }
}
