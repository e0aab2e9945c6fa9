package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit of single runs under {@code kill -9}: {@value #CLIENTS} client threads each POST keyed runs
 * ({@code POST /api/jobs/{id}/run}, a fresh key each call) to a server process without pause, so that about that many
 * calls are always in flight, some waiting in the HTTP server, some in the group-commit queue, some in a transaction
 * being written. Once some hundreds have been answered the process is killed with SIGKILL; a second process is
 * started on the same store (the same H2 files; the same PostgreSQL schema), every key is looked up and every run is
 * delivered.
 *
 * <p>What must hold (per key): a call answered 201 is stored under its key with the instance ID it was answered with,
 * and is delivered; a call that got no answer is either absent (404) or stored with one instance and delivered; no key
 * ever names two instances, and no instance is delivered twice. Every run is due {@value #DELAY_MS} ms after its
 * call, after the kill (checked: the receiver has seen nothing when the kill is sent), so no delivery is in flight at
 * the kill and "at least once" is here "exactly once": one delivery per instance, under the key
 * {@code <instanceId>-1}. A client that got no answer then retries with the same key, as a client of keyed runs
 * would: a run that was stored answers 200 with {@code "created": false} and the same instance, one that was not is
 * created now; either way one delivery.
 *
 * <p>Why it holds: {@code GroupCommit} completes a call's future only after the transaction its run went into has
 * committed ({@code JobService.run} waits for it), and the route answers only after that, so a 201 the client received
 * names a committed row, which outlives the process and which the second process loads and fires. The kill can cut a
 * transaction anywhere before its commit; the database then rolls it back entirely (PostgreSQL aborts the transaction
 * of a connection that died; H2 discards the uncommitted changes in its file at the next open), so every run of that
 * batch is absent, and none of them was answered. A transaction that committed just before the kill, with answers that
 * never left, leaves runs that are stored but unanswered: the "either" case. A key is unique per job in the store
 * (index on {@code (job_id, run_key)}), so it cannot name two instances, and a stored run is claimed once.
 *
 * <p>Timing (a noisy 2-core machine): the kill comes once {@value #ENOUGH_CREATED} calls were answered 201, or
 * {@link #MAX_CALLING} after the first call, whichever is first; the runs are due well after that. The test then
 * requires at least {@value #MIN_CREATED} answers 201 and at least one call without an answer, or it tested nothing.
 * Nothing waits a fixed time: every wait polls a condition under a generous bound.
 */
@ProcessLane
class RunGroupCommitKillTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Client threads, each with one call in flight at a time. */
    private static final int CLIENTS = 300;
    /**
     * Every run is due this long after its call: after the kill, even if the kill comes at {@link #MAX_CALLING} and
     * the test thread is seconds late (seen at 1.5 s with a load average of 20 on 2 cores).
     */
    private static final long DELAY_MS = 10_000;
    /** Answers 201 after which the kill comes (reached in 1 to 2.5 s on an ordinary 2-core run). */
    private static final int ENOUGH_CREATED = 500;
    /**
     * The kill comes at the latest this long after the first call: long enough for {@link #MIN_CREATED} answers on a
     * heavily loaded machine (about 30 a second were seen there, while the JVMs were still warming up).
     */
    private static final Duration MAX_CALLING = Duration.ofSeconds(5);
    /** Fewer answers 201 than this before the kill, and the test tested nothing. */
    private static final int MIN_CREATED = 100;
    private static final Duration START_BOUND = Duration.ofSeconds(60);
    /** For every run to be delivered after the restart: the runs are due within {@link #DELAY_MS} of the kill. */
    private static final Duration DELIVERY_BOUND = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void h2_kill9WithHundredsOfSingleRunsInFlight_every201IsStoredAndDeliveredOnce_unansweredAbsentOrOnce()
            throws Exception {
        new Scenario("h2", "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()).run();
    }

    @Test
    void postgres_kill9WithHundredsOfSingleRunsInFlight_every201IsStoredAndDeliveredOnce_unansweredAbsentOrOnce()
            throws Exception {
        PostgresTestDatabase database = PostgresTestDatabase.createSchema(); // fails, never skips, if unreachable
        try {
            new Scenario("postgres", database.jdbcUrl()).run();
        } finally {
            database.dropSchema(); // both processes are gone by now (ServerProcess.close kills)
        }
    }

    /** What one call got. {@code instanceId} is set for 201 and 200. */
    private record Outcome(Kind kind, int status, String instanceId, String detail) {
    }

    private enum Kind {
        /** 201 {@code "created": true}. */
        CREATED,
        /** 200 {@code "created": false}: the key named an instance already (never expected here: keys are fresh). */
        EXISTING,
        /** No answer: the connection broke (reset, refused) or the call timed out. */
        NO_ANSWER,
        /** Any other answer (an error status, a malformed body). */
        OTHER
    }

    /** One run of the scenario on one store. Confined to the test thread, except for the client threads' counters. */
    private static final class Scenario {

        /** Threads for the API calls after the restart (look-ups, retries). */
        private static final int API_THREADS = 16;

        private final String store;
        private final String[] args;
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        /** Every key sent, with what its call got; a key is put before its call is sent. */
        private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
        private final AtomicInteger created = new AtomicInteger();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong firstCallNanos = new AtomicLong();
        private final List<ServerProcess> processes = new ArrayList<>();
        /** When each step ended, in ms from the start: printed with the numbers, to see where the time goes. */
        private final List<String> phases = new ArrayList<>();
        private final long startNanos = System.nanoTime();

        Scenario(String store, String jdbcUrl) {
            this.store = store;
            this.args = new String[] {"--port", "0", "--db-url", jdbcUrl};
        }

        private void phase(String name) {
            phases.add(name + "@" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        }

        void run() throws Exception {
            try (WebhookReceiver receiver = new WebhookReceiver()) {
                runWith(receiver);
            } catch (AssertionError | RuntimeException e) {
                for (int i = 0; i < processes.size(); i++) {
                    System.out.println("---- " + store + ": server process " + (i + 1) + " of " + processes.size()
                            + ", last lines ----");
                    processes.get(i).tail().forEach(System.out::println);
                }
                throw e;
            } finally {
                for (ServerProcess process : processes) {
                    process.close();
                }
            }
        }

        private void runWith(WebhookReceiver receiver) throws Exception {
            // 1. A server, a job whose webhook is the receiver, and CLIENTS threads calling without pause.
            ServerProcess first = start();
            String firstUrl = first.awaitBaseUrl(START_BOUND);
            phase("first up");
            ApiClient api = new ApiClient(firstUrl);
            ApiClient.Reply job = api.post("/api/jobs", """
                    {"name": "group commit kill", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}"""
                    .formatted(receiver.url()));
            assertEquals(201, job.status(), job.toString());
            String jobId = job.json().get("id").asText();

            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                Thread thread = new Thread(() -> callUntilStopped(firstUrl, jobId, client), "run-client-" + c);
                thread.setDaemon(true);
                clients.add(thread);
            }
            clients.forEach(Thread::start);

            // 2. SIGKILL once some hundreds were answered (or MAX_CALLING after the first call): CLIENTS are in flight.
            Await.until(() -> "a first call", START_BOUND, () -> firstCallNanos.get() != 0);
            Await.until(() -> "the kill's moment", START_BOUND, () -> created.get() >= ENOUGH_CREATED
                    || System.nanoTime() - firstCallNanos.get() >= MAX_CALLING.toNanos());
            stop.set(true); // no call starts after this: every call unanswered below was in flight at the kill
            long callingMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstCallNanos.get());
            first.kill();
            phase("killed");
            int arrivedBeforeKill = receiver.arrived();
            for (Thread thread : clients) {
                thread.join(TimeUnit.SECONDS.toMillis(60)); // a killed server resets its connections at once
                assertTrue(!thread.isAlive(), thread.getName() + " still calling 60 s after the kill");
            }

            Map<Kind, List<String>> byKind = new TreeMap<>();
            outcomes.forEach((key, outcome) -> byKind.computeIfAbsent(outcome.kind(), k -> new ArrayList<>()).add(key));
            List<String> answered201 = byKind.getOrDefault(Kind.CREATED, List.of());
            List<String> unanswered = byKind.getOrDefault(Kind.NO_ANSWER, List.of());
            assertEquals(List.of(), byKind.getOrDefault(Kind.OTHER, List.of()).stream().limit(5)
                    .map(key -> key + " " + outcomes.get(key)).toList(), "answers other than 201 or none");
            assertEquals(List.of(), byKind.getOrDefault(Kind.EXISTING, List.of()).stream().limit(5)
                    .map(key -> key + " " + outcomes.get(key)).toList(), "200 for a fresh key: it named an instance"
                    + " before its first call");
            assertEquals(0, arrivedBeforeKill, "a run was delivered before the kill (after " + callingMs + " ms of"
                    + " calls): DELAY_MS is too short for this machine, and a delivery may have been cut by the kill");
            assertTrue(answered201.size() >= MIN_CREATED, "only " + answered201.size() + " answers 201 in "
                    + callingMs + " ms before the kill: the kill came too early to test anything");
            assertTrue(!unanswered.isEmpty(), "no call was in flight at the kill (" + answered201.size()
                    + " answered 201): nothing was tested");

            // 3. A second server on the same store: every key that was answered is stored, with its instance.
            ServerProcess second = start();
            ApiClient api2 = new ApiClient(second.awaitBaseUrl(START_BOUND));
            phase("second up");
            Map<String, JsonNode> stored = lookUp(api2, jobId, outcomes.keySet());
            phase("looked up");
            for (String key : answered201) {
                JsonNode instance = stored.get(key);
                assertTrue(instance != null, "key " + key + " was answered 201 " + outcomes.get(key)
                        + " but is not stored after the kill");
                assertEquals(outcomes.get(key).instanceId(), instance.get("id").asText(), "instance of key " + key);
            }
            int unansweredStored = 0;
            for (String key : unanswered) {
                if (stored.containsKey(key)) {
                    unansweredStored++;
                }
            }

            // 4. The clients that got no answer retry with the same key: the stored instance, or a new one now.
            Map<String, String> instanceOfKey = new HashMap<>();
            stored.forEach((key, instance) -> instanceOfKey.put(key, instance.get("id").asText()));
            Map<String, ApiClient.Reply> retries = inParallel(unanswered, key -> api2.post(
                    "/api/jobs/" + jobId + "/run", "{\"key\": \"" + key + "\", \"delayMs\": 0}"));
            for (String key : unanswered) {
                ApiClient.Reply retry = retries.get(key);
                if (stored.containsKey(key)) {
                    assertEquals(200, retry.status(), "retry of stored key " + key + ": " + retry);
                    assertEquals(false, retry.json().get("created").asBoolean(true), retry.toString());
                    assertEquals(instanceOfKey.get(key), retry.json().get("instanceId").asText(),
                            "a retry of key " + key + " names its stored instance");
                } else {
                    assertEquals(201, retry.status(), "retry of absent key " + key + ": " + retry);
                    instanceOfKey.put(key, retry.json().get("instanceId").asText());
                }
            }
            assertEquals(outcomes.size(), instanceOfKey.size(), "every key names an instance now");
            assertEquals(instanceOfKey.size(), new HashSet<>(instanceOfKey.values()).size(),
                    "no two keys name one instance");
            phase("retried");

            // 5. Every instance is delivered and settles; then what the receiver got, per instance and per key.
            Set<String> expected = new HashSet<>(instanceOfKey.values());
            Await.until(() -> "every instance delivered: " + missing(expected, receiver).size() + " of "
                    + expected.size() + " missing, e.g. " + missing(expected, receiver).stream().limit(3).toList()
                    + "; last lines " + second.tail(), DELIVERY_BOUND,
                    every(Duration.ofMillis(200), () -> missing(expected, receiver).isEmpty()));
            Await.until(() -> "no instance of job " + jobId + " WAITING or DISPATCHING", DELIVERY_BOUND,
                    every(Duration.ofMillis(200),
                            () -> none(api2, jobId, "WAITING") && none(api2, jobId, "DISPATCHING")));
            phase("delivered");

            Map<String, JsonNode> settled = lookUp(api2, jobId, instanceOfKey.keySet());
            for (Map.Entry<String, String> entry : instanceOfKey.entrySet()) {
                JsonNode instance = settled.get(entry.getKey());
                assertTrue(instance != null, "key " + entry.getKey() + " not found after delivery");
                assertEquals(entry.getValue(), instance.get("id").asText(), "instance of key " + entry.getKey());
                assertEquals("SUCCEEDED", instance.get("status").asText(), instance.toString());
                assertEquals(1, instance.get("attempt").asInt(), "a crash consumes no attempt: " + instance);
            }
            Map<String, Set<String>> instancesDeliveredPerKey = new HashMap<>();
            int deliveries = 0;
            for (String id : receiver.deliveredIds()) {
                assertTrue(expected.contains(id), "delivered instance " + id + " is named by no key");
                List<WebhookReceiver.Delivery> got = receiver.deliveries(id);
                deliveries += got.size();
                assertEquals(List.of(id + "-1"), receiver.keysOf(id), "instance " + id + " is delivered exactly once"
                        + " (nothing was in flight at the kill), under the key of its first attempt");
                for (WebhookReceiver.Delivery delivery : got) {
                    JsonNode body = JSON.readTree(delivery.body());
                    assertEquals(id, body.get("instanceId").asText());
                    instancesDeliveredPerKey.computeIfAbsent(body.get("key").asText(), k -> new HashSet<>()).add(id);
                }
            }
            for (Map.Entry<String, Set<String>> entry : instancesDeliveredPerKey.entrySet()) {
                assertEquals(Set.of(instanceOfKey.get(entry.getKey())), entry.getValue(),
                        "key " + entry.getKey() + " is delivered as its one instance");
            }
            assertEquals(expected.size(), deliveries, "one delivery per instance");

            System.out.printf("RunGroupCommitKillTest[%s]: %d calls in %d ms before the kill; answered 201: %d,"
                            + " 200: %d, no answer: %d (stored anyway: %d, absent: %d); delivered after the restart:"
                            + " %d instances, %d deliveries%n", store, outcomes.size(), callingMs, answered201.size(),
                    byKind.getOrDefault(Kind.EXISTING, List.of()).size(), unanswered.size(), unansweredStored,
                    unanswered.size() - unansweredStored, expected.size(), deliveries);
            phase("verified");
            System.out.println("RunGroupCommitKillTest[" + store + "] steps: " + phases);
            // No graceful stop: run() kills both processes. (A SIGTERM here takes 10 to 20 s: GroupCommit.close()
            // waits its whole wait when one writer took both stop markers; see GroupCommitTest.)
        }

        private ServerProcess start() {
            ServerProcess process = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args));
            processes.add(process); // before waiting: run() kills it even if it never comes up
            return process;
        }

        /** One client: keyed runs one after another until {@link #stop}; records each call's outcome. */
        private void callUntilStopped(String baseUrl, String jobId, int client) {
            URI uri = URI.create(baseUrl + "/api/jobs/" + jobId + "/run");
            for (int n = 0; !stop.get(); n++) {
                String key = "c" + client + "-" + n;
                outcomes.put(key, new Outcome(Kind.NO_ANSWER, 0, null, "not answered yet"));
                firstCallNanos.compareAndSet(0, System.nanoTime());
                Outcome outcome;
                try {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"key\": \"" + key + "\", \"delayMs\": " + DELAY_MS + ", \"params\": {\"n\": "
                                            + n + "}}"))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    outcome = outcome(key, response);
                } catch (IOException e) {
                    outcome = new Outcome(Kind.NO_ANSWER, 0, null, e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                outcomes.put(key, outcome);
                if (outcome.kind() == Kind.CREATED) {
                    created.incrementAndGet();
                }
            }
        }

        private static Outcome outcome(String key, HttpResponse<String> response) {
            int status = response.statusCode();
            try {
                JsonNode body = JSON.readTree(response.body());
                boolean sameKey = key.equals(body.path("key").asText());
                if (status == 201 && sameKey && body.path("created").asBoolean(false)) {
                    return new Outcome(Kind.CREATED, status, body.get("instanceId").asText(), null);
                }
                if (status == 200 && sameKey && !body.path("created").asBoolean(true)) {
                    return new Outcome(Kind.EXISTING, status, body.get("instanceId").asText(), null);
                }
            } catch (IOException | RuntimeException notJson) {
                // an OTHER outcome, with the body as it came
            }
            return new Outcome(Kind.OTHER, status, null, response.body());
        }

        /** {@code GET /api/jobs/{id}/runs/{key}} for each key: the stored instances by key (404s left out). */
        private static Map<String, JsonNode> lookUp(ApiClient api, String jobId, Collection<String> keys)
                throws Exception {
            Map<String, ApiClient.Reply> replies = inParallel(keys, key -> api.get("/api/jobs/" + jobId + "/runs/"
                    + key));
            Map<String, JsonNode> stored = new HashMap<>();
            replies.forEach((key, reply) -> {
                if (reply.status() == 200) {
                    assertEquals(key, reply.json().get("key").asText(), reply.toString());
                    stored.put(key, reply.json());
                } else {
                    assertEquals(404, reply.status(), "GET of key " + key + ": " + reply);
                }
            });
            return stored;
        }

        /** One API call per key, {@value #API_THREADS} at a time; the replies by key. */
        private static Map<String, ApiClient.Reply> inParallel(Collection<String> keys,
                                                               Function<String, ApiClient.Reply> call)
                throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(API_THREADS);
            try {
                Map<String, Future<ApiClient.Reply>> replies = new HashMap<>();
                for (String key : keys) {
                    replies.put(key, pool.submit(() -> call.apply(key)));
                }
                Map<String, ApiClient.Reply> done = new HashMap<>();
                for (Map.Entry<String, Future<ApiClient.Reply>> entry : replies.entrySet()) {
                    done.put(entry.getKey(), entry.getValue().get(60, TimeUnit.SECONDS));
                }
                return done;
            } finally {
                pool.shutdownNow();
            }
        }

        private static List<String> missing(Set<String> expected, WebhookReceiver receiver) {
            Set<String> delivered = new HashSet<>(receiver.deliveredIds());
            return expected.stream().filter(id -> !delivered.contains(id)).toList();
        }

        /** {@code condition}, asked at most once per {@code period} (false in between): polls that cost a call. */
        private static BooleanSupplier every(Duration period, BooleanSupplier condition) {
            long[] next = {System.nanoTime()};
            return () -> {
                long now = System.nanoTime();
                if (now - next[0] < 0) {
                    return false;
                }
                next[0] = now + period.toNanos();
                return condition.getAsBoolean();
            };
        }

        private static boolean none(ApiClient api, String jobId, String status) {
            ApiClient.Reply page = api.get("/api/instances?limit=1&jobId=" + jobId + "&status=" + status);
            assertEquals(200, page.status(), page.toString());
            return page.json().get("items").isEmpty();
        }
    }
}
