package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.cluster.StoredInstances;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool shared by 20 jobs on a three-member cluster on PostgreSQL, with real server processes: its concurrency and
 * its rate hold at the receiver across the jobs and the members, because every instance of the pool's jobs lives on
 * the pool's shard and one member, its owner, holds both limits.
 */
@ProcessLane
@Tag("cluster")
class ClusterPoolProcessTest {

    private static final int JOBS = 20;
    private static final int RUNS = 300;
    private static final int MAX_CONCURRENT = 10;
    private static final int PERMITS_PER_SECOND = 50;
    /**
     * The stated tolerance of the rate at the receiver. The owner admits one call every 20 ms, never faster; between
     * admission and arrival each call goes through a claim batch and an HTTP hand-over, whose time varies by a few
     * milliseconds, so two calls admitted 20 ms apart can arrive a little closer. A one-second window at the receiver
     * may therefore hold a call or two more than 50; it may not hold 53.
     */
    private static final int RATE_TOLERANCE = 2;
    /**
     * Each call is answered after 200 ms: 10 calls in flight then pass 50 calls a second, so both limits bind in
     * turn (the rate when calls end on time, the concurrency when the machine slows them).
     */
    private static final Duration ANSWER_DELAY = Duration.ofMillis(200);

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private LedgerReceiver ledger;

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(), "--lease-ttl-ms", "5000",
            "--lease-renew-ms", "1000");
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        if (ledger != null) {
            ledger.close();
        }
        db.dropSchema();
    }

    /**
     * A pool of {@value #MAX_CONCURRENT} calls and {@value #PERMITS_PER_SECOND} a second; {@value #JOBS} webhook jobs
     * in it, created through all three members; {@value #RUNS} runs sent through all three members, all due at the
     * same instant. Asserts, at the receiver: every run delivered once; never more than {@value #MAX_CONCURRENT}
     * calls in flight, and the limit reached; no one-second window with more than {@value #PERMITS_PER_SECOND} +
     * {@value #RATE_TOLERANCE} calls, and the rate approached; one member made every call.
     */
    @Test
    void poolOfTenAnd50PerSecond_sharedBy20JobsOnThreeMembers_holdsBothLimitsAtTheReceiver() throws Exception {
        ledger = new LedgerReceiver(ANSWER_DELAY);
        nodes.start();
        nodes.start(2);
        nodes.awaitSpread(Duration.ofSeconds(45));
        List<Member> members = nodes.running();
        ApiClient.Reply pool = members.get(0).call(api -> api.post("/api/pools", """
                {"name": "shared", "maxConcurrent": %d, "rate": {"permits": %d, "perMs": 1000}}"""
                .formatted(MAX_CONCURRENT, PERMITS_PER_SECOND))).orElseThrow();
        assertEquals(201, pool.status(), () -> "pool: " + pool);
        List<Long> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            Member via = members.get(i % members.size());
            String body = """
                    {"name": "pooled-%d", "schedule": {"type": "API"}, "pool": "shared",
                     "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}"""
                    .formatted(i, ledger.url());
            ApiClient.Reply reply = via.call(api -> api.post("/api/jobs", body)).orElseThrow();
            assertEquals(201, reply.status(), () -> "job: " + reply);
            long jobId = Long.parseLong(reply.json().get("id").asText());
            jobs.add(jobId);
        }

        Instant due = Instant.now().plusSeconds(5); // every run created before it is due
        ExecutorService senders = Executors.newFixedThreadPool(6);
        List<Future<ApiClient.Reply>> replies = new ArrayList<>();
        try {
            for (int i = 0; i < RUNS; i++) {
                Member via = members.get(i % members.size());
                long jobId = jobs.get(i % JOBS);
                replies.add(senders.submit(() -> via.call(api -> api.post("/api/jobs/" + jobId + "/run",
                        "{\"at\": \"" + due + "\"}")).orElseThrow(() -> new AssertionError(via + " stopped"))));
            }
            for (Future<ApiClient.Reply> reply : replies) {
                ApiClient.Reply r = reply.get(30, TimeUnit.SECONDS);
                assertEquals(201, r.status(), () -> "run: " + r);
            }
        } finally {
            senders.shutdownNow();
        }
        StoredInstances.awaitAllTerminal(nodes, Duration.ofSeconds(90));
        nodes.requireNoneDied();

        List<Delivery> deliveries = ledger.all();
        int busiestSecond = busiestSecond(deliveries);
        Map<Integer, Integer> byNode = new TreeMap<>();
        deliveries.forEach(d -> byNode.merge(d.node(), 1, Integer::sum));
        System.out.println("ClusterPoolProcessTest: " + ledger.deliveredInstanceIds().size() + " instances delivered,"
                + " at most " + ledger.maxInFlight() + " in flight, the busiest second held " + busiestSecond
                + " calls, by node " + byNode + "; first " + first(deliveries) + " ms after due, last "
                + last(deliveries) + " ms after due");
        assertAll("a pool's limits across 20 jobs and three members",
                () -> assertEquals(RUNS, ledger.deliveredInstanceIds().size(), "every run delivered"),
                () -> assertEquals(RUNS, ledger.size(), "each once"),
                () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                () -> assertTrue(ledger.maxInFlight() <= MAX_CONCURRENT, "calls in flight at the receiver, at most: "
                        + ledger.maxInFlight()),
                () -> assertTrue(ledger.maxInFlight() >= MAX_CONCURRENT - 2, "the concurrency limit was approached: "
                        + ledger.maxInFlight()),
                () -> assertTrue(busiestSecond <= PERMITS_PER_SECOND + RATE_TOLERANCE, "calls in the busiest"
                        + " second at the receiver: " + busiestSecond),
                () -> assertTrue(busiestSecond >= PERMITS_PER_SECOND * 7 / 10, "the rate was approached: "
                        + busiestSecond),
                () -> assertEquals(1, byNode.size(), "one member, the pool's owner, made every call: " + byNode));
    }

    /** The most deliveries that arrived within any one second (half-open, starting at a delivery). */
    private static int busiestSecond(List<Delivery> deliveries) {
        long[] nanos = deliveries.stream().mapToLong(Delivery::receivedAtNanos).sorted().toArray();
        long second = TimeUnit.SECONDS.toNanos(1);
        int most = 0;
        int end = 0;
        for (int start = 0; start < nanos.length; start++) {
            while (end < nanos.length && nanos[end] - nanos[start] < second) {
                end++;
            }
            most = Math.max(most, end - start);
        }
        return most;
    }

    private static long first(List<Delivery> deliveries) {
        return deliveries.stream().mapToLong(d -> d.receivedAtMs() - d.expectedTriggerMs()).min().orElse(-1);
    }

    private static long last(List<Delivery> deliveries) {
        return deliveries.stream().mapToLong(d -> d.receivedAtMs() - d.expectedTriggerMs()).max().orElse(-1);
    }
}
