package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.fixtures.Throttled;
import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.fixtures.cluster.StoredInstances;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.StopsPostgres;
import dev.tickwheel.fixtures.postgres.LocalPostgres;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Answers during an outage, on a real PostgreSQL stop: a server process under a stream of runs loses its database for
 * {@link #OUTAGE}, and meanwhile answers at once instead of holding its callers.
 *
 * <p><b>What it injects.</b> One member on PostgreSQL with {@code --store-timeout-ms} {@value #STORE_TIMEOUT_MS}; a
 * stream of {@value #RUNS} runs over {@link #SENDING} (delays 0..5 s, webhook target answering after 50 ms); at
 * {@link #STOP_AT} {@code pg_ctlcluster ... stop} (fast mode: every connection is cut, new ones are refused), then
 * {@link #OUTAGE} later {@code start}, and {@code pg_isready}. PostgreSQL is started again in a {@code finally} block
 * and checked again after the test, so a failure never leaves the machine without its database.
 *
 * <p><b>What it measures and asserts</b> (real HTTP calls, real response times: that is the point):
 * <ul>
 *   <li>{@code GET /health}, asked every 100 ms from the stop on: every answer within {@link #HEALTH_BOUND}; the first
 *       503 (DOWN, store DOWN) within {@link #HEALTH_BOUND} of the stop; no 200 while the database is down; back to
 *       200 once it is up again;</li>
 *   <li>API calls that need the store, during the outage ({@code POST /api/jobs/{id}/run} with a key,
 *       {@code GET /api/instances/{id}}): each answers 503 {@code store_unavailable} within the store timeout plus
 *       {@link #API_MARGIN}; so does every run of the stream that was refused;</li>
 *   <li>nothing accepted is lost: every run answered 201 (the stream's, and the refused runs repeated with their key
 *       after the outage until accepted, as the 503 says to) reached the target, by what the target received.</li>
 * </ul>
 *
 * <p>Caveat: it stops the PostgreSQL of this machine (see {@link LocalPostgres}); it needs root, as in CI.
 */
@StopsPostgres
@Tag("cluster")
class StoreOutageProcessTest {

    private static final long STORE_TIMEOUT_MS = 2_000;
    private static final Duration HEALTH_BOUND = Duration.ofSeconds(1);
    private static final Duration API_MARGIN = Duration.ofSeconds(1);
    private static final Duration HEALTH_POLL = Duration.ofMillis(100);

    private static final int JOBS = 8;
    private static final int RUNS = 1_500;
    private static final Duration SENDING = Duration.ofSeconds(30);
    private static final long MAX_DELAY_MS = 5_000;
    private static final Duration TARGET_LATENCY = Duration.ofMillis(50);

    private static final Duration STOP_AT = Duration.ofSeconds(10);
    /** Long enough for two rounds of API calls that each wait up to the store timeout. */
    private static final Duration OUTAGE = Duration.ofSeconds(10);
    /** Rounds of API calls during the outage (a run and a read each), the first this long after the stop. */
    private static final int API_ROUNDS = 2;
    private static final Duration FIRST_ROUND_AT = Duration.ofMillis(500);
    private static final Duration READY_BOUND = Duration.ofSeconds(90);
    private static final Duration RECOVERED_BOUND = Duration.ofSeconds(30);

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private final LedgerReceiver ledger = new LedgerReceiver(TARGET_LATENCY);

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(),
            "--store-timeout-ms", Long.toString(STORE_TIMEOUT_MS));
    final ClusterProcesses nodes = teardown.cluster();

    /** One timed HTTP answer: when it was asked (ms after the stop), its status and error code, how long it took. */
    private record Timed(String what, long askedAtMs, int status, String error, long tookMs) {
        @Override
        public String toString() {
            return what + " at +" + askedAtMs + " ms: " + status + (error == null ? "" : " " + error) + " in "
                    + tookMs + " ms";
        }
    }

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        ledger.close();
        LocalPostgres.ensureRunning(READY_BOUND); // the test's finally did it already, unless it never got there
        db.dropSchema();
    }

    @Test
    void postgresStopped_healthAnswers503InASecond_apiAnswers503StoreUnavailableInTheStoreTimeout_nothingLost()
            throws Exception {
        LocalPostgres.requireLocal();
        long seed = System.nanoTime();
        Member member = nodes.start();
        List<ClusterJob> jobs = ClusterJob.create(nodes, ledger.url(), JOBS, "outage");
        StringBuilder story = new StringBuilder();
        List<Timed> health = new ArrayList<>();
        List<Timed> apiCalls = new ArrayList<>();
        List<String> refusedKeys = new ArrayList<>();

        try (RunStream stream = RunStream.start(nodes, jobs,
                RunStream.Plan.paced(RUNS, SENDING, MAX_DELAY_MS, seed))) {
            ScenarioClock clock = ScenarioClock.startNow();
            clock.awaitOffset(STOP_AT);
            long knownInstance = stream.runs().get(0).instanceId();
            long stoppedAtNanos;
            ExecutorService poller = Executors.newSingleThreadExecutor(new NamedThreadFactory("health-poller", true));
            AtomicBoolean polling = new AtomicBoolean(true);
            try {
                story.append(clock.now()).append(" stopping PostgreSQL\n");
                LocalPostgres.stop();
                stoppedAtNanos = System.nanoTime();
                story.append(clock.now()).append(" PostgreSQL stopped\n");
                Future<?> healthPolls = poller.submit(() -> pollHealth(member, stoppedAtNanos, polling, health));
                for (int round = 0; round < API_ROUNDS; round++) {
                    awaitNanos(stoppedAtNanos + FIRST_ROUND_AT.toNanos() + OUTAGE.toNanos() * round / API_ROUNDS);
                    String key = "outage-" + seed + "-" + round;
                    refusedKeys.add(key);
                    long jobId = jobs.get(round % jobs.size()).id();
                    apiCalls.add(timed(member, "POST run " + key, stoppedAtNanos,
                            api -> api.post("/api/jobs/" + jobId + "/run", "{\"key\": \"" + key + "\"}")));
                    apiCalls.add(timed(member, "GET instance " + knownInstance, stoppedAtNanos,
                            api -> api.get("/api/instances/" + knownInstance)));
                }
                awaitNanos(stoppedAtNanos + OUTAGE.toNanos());
                polling.set(false);
                healthPolls.get(HEALTH_BOUND.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
                LocalPostgres.start();
            } finally {
                polling.set(false);
                poller.shutdownNow();
                LocalPostgres.ensureRunning(READY_BOUND);
            }
            story.append(clock.now()).append(" PostgreSQL accepts connections again\n");
            long readyNanos = System.nanoTime();
            Await.until("GET /health to answer 200 again", RECOVERED_BOUND,
                    Throttled.every(HEALTH_POLL, () -> health(member).status() == 200));
            long healthBackMs = Duration.ofNanos(System.nanoTime() - readyNanos).toMillis();
            story.append(clock.now()).append(" health 200 again, ").append(healthBackMs)
                    .append(" ms after pg_isready\n");

            List<Long> repeated = repeatRefusedRuns(member, jobs, refusedKeys, story);
            stream.awaitDone(Duration.ofSeconds(90));
            long untilLastDueMs = Math.max(0, stream.lastDueMs() - System.currentTimeMillis());
            StoredInstances.awaitAllTerminal(nodes, Duration.ofMillis(untilLastDueMs).plusSeconds(60));
            nodes.requireNoneDied();

            List<Long> accepted = new ArrayList<>();
            stream.runs().forEach(run -> accepted.add(run.instanceId()));
            accepted.addAll(repeated);
            List<Long> lost = accepted.stream().filter(id -> ledger.deliveriesOf(id).isEmpty()).toList();
            List<String> streamRefusals = stream.failures();
            List<String> unexpectedRefusals = streamRefusals.stream()
                    .filter(f -> !(f.contains(": 503 ") && f.contains("\"store_unavailable\""))).toList();
            List<Timed> slowHealth = health.stream().filter(t -> t.tookMs() >= HEALTH_BOUND.toMillis()).toList();
            List<Timed> downAnswers = health.stream().filter(t -> t.status() == 503).toList();
            long firstDownMs = downAnswers.isEmpty() ? Long.MAX_VALUE : downAnswers.get(0).askedAtMs()
                    + downAnswers.get(0).tookMs();
            List<Timed> upWhileDown = health.stream().filter(t -> t.status() != 503
                    && t.askedAtMs() >= firstDownMs).toList();
            long apiBoundMs = STORE_TIMEOUT_MS + API_MARGIN.toMillis();
            List<Timed> badApiAnswers = apiCalls.stream().filter(t -> t.status() != 503
                    || !"store_unavailable".equals(t.error()) || t.tookMs() > apiBoundMs).toList();

            System.out.println("StoreOutageProcessTest (seed " + seed + ")\n" + story
                    + "load: " + stream.describe() + "\n"
                    + "health during the outage: " + health.size() + " answers, took max "
                    + health.stream().mapToLong(Timed::tookMs).max().orElse(-1) + " ms, first 503 at +" + firstDownMs
                    + " ms after the stop; first answers: " + health.subList(0, Math.min(5, health.size())) + "\n"
                    + "API calls during the outage: " + apiCalls + "\n"
                    + "stream runs refused during the outage: " + streamRefusals.size()
                    + (streamRefusals.isEmpty() ? "" : ", e.g. " + streamRefusals.get(0)) + "\n"
                    + "accepted runs: " + accepted.size() + ", delivered: " + (accepted.size() - lost.size()));

            assertAll("answers during an outage, and nothing accepted lost",
                    () -> assertTrue(health.size() >= OUTAGE.dividedBy(HEALTH_BOUND), "health was asked: " + health),
                    () -> assertEquals(List.of(), slowHealth, "every health answer within " + HEALTH_BOUND),
                    () -> assertTrue(firstDownMs <= HEALTH_BOUND.toMillis(), "health said 503 within "
                            + HEALTH_BOUND + " of the stop: first 503 at +" + firstDownMs + " ms; " + health),
                    () -> assertEquals(List.of(), upWhileDown, "no 200 while the database was down"),
                    () -> assertEquals(2 * API_ROUNDS, apiCalls.size(), "API calls made: " + apiCalls),
                    () -> assertEquals(List.of(), badApiAnswers, "every API call during the outage answered 503"
                            + " store_unavailable within " + apiBoundMs + " ms"),
                    () -> assertEquals(List.of(), unexpectedRefusals, "a run refused during the outage is a 503"
                            + " store_unavailable, never a 500 or an unanswered call"),
                    () -> assertTrue(stream.runs().size() >= RUNS / 2, "most runs were created: " + stream.describe()),
                    () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                    () -> assertEquals(List.of(), lost, "every run answered 201 reached the target"));
        }
    }

    /** {@code GET /health} every {@link #HEALTH_POLL} while {@code polling}, each answer timed. */
    private static void pollHealth(Member member, long stoppedAtNanos, AtomicBoolean polling,
                                   List<Timed> answers) {
        ConcurrentLinkedQueue<Timed> collected = new ConcurrentLinkedQueue<>();
        long nextNanos = System.nanoTime();
        while (polling.get()) {
            collected.add(timed(member, "health", stoppedAtNanos, api -> api.get("/health")));
            nextNanos += HEALTH_POLL.toNanos();
            awaitNanos(nextNanos);
        }
        synchronized (answers) {
            answers.addAll(collected);
        }
    }

    private static Timed timed(Member member, String what, long stoppedAtNanos,
                               Function<ApiClient, ApiClient.Reply> call) {
        long askedNanos = System.nanoTime();
        ApiClient.Reply reply = member.call(call).orElseThrow(() -> new AssertionError(member + " is not running"));
        long tookMs = Duration.ofNanos(System.nanoTime() - askedNanos).toMillis();
        return new Timed(what, Duration.ofNanos(askedNanos - stoppedAtNanos).toMillis(), reply.status(),
                reply.error(), tookMs);
    }

    private static ApiClient.Reply health(Member member) {
        return member.call(api -> api.get("/health")).orElseThrow(() -> new AssertionError(member + " stopped"));
    }

    /**
     * The runs refused during the outage, repeated with their keys as the 503 says, until accepted (a client's retry;
     * bounded by {@link #RECOVERED_BOUND}): 201 if the refused call wrote nothing, 200 if it did; either way the
     * instance the key names must be delivered. Returns their instance ids.
     */
    private static List<Long> repeatRefusedRuns(Member member, List<ClusterJob> jobs,
                                                List<String> keys, StringBuilder story) {
        List<Long> ids = new ArrayList<>();
        for (int round = 0; round < keys.size(); round++) {
            long jobId = jobs.get(round % jobs.size()).id();
            String key = keys.get(round);
            List<String> answers = new ArrayList<>();
            ApiClient.Reply[] accepted = new ApiClient.Reply[1];
            Await.until(() -> "the run with key " + key + " to be accepted; answers: " + answers, RECOVERED_BOUND,
                    Throttled.every(HEALTH_POLL, () -> {
                        ApiClient.Reply reply = member.call(api -> api.post("/api/jobs/" + jobId + "/run",
                                "{\"key\": \"" + key + "\"}")).orElseThrow(() -> new AssertionError(member
                                + " stopped"));
                        answers.add(reply.status() + (reply.error() == null ? "" : " " + reply.error()));
                        accepted[0] = reply.status() == 200 || reply.status() == 201 ? reply : null;
                        return accepted[0] != null;
                    }));
            story.append("repeated ").append(key).append(": ").append(answers).append('\n');
            ids.add(Long.parseLong(accepted[0].json().get("instanceId").asText()));
        }
        return ids;
    }

    /** Waits until {@link System#nanoTime()} reaches {@code deadlineNanos} (the health poll's pace). */
    private static void awaitNanos(long deadlineNanos) {
        long leftNanos;
        while ((leftNanos = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(leftNanos);
        }
    }
}
