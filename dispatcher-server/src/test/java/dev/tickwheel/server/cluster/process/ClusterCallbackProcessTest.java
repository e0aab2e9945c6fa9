package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhooks that finish later on a three-member cluster on PostgreSQL, with real server processes: the targets' reports
 * go to other members than the ones that made the calls, and to the survivors while the member that made the calls
 * is killed ({@code kill -9}) and restarting; then to that member once it is back. Asserted at the receiver and in the
 * store: every instance was called once (an awaited call is not delivered again by the take-over or the restart), every
 * report was taken once (a replay to any member is refused), and every instance ends SUCCEEDED with its output.
 */
@ProcessLane
@Tag("cluster")
class ClusterCallbackProcessTest {

    private static final int RUNS = 30;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private LedgerReceiver ledger;

    /**
     * A short call deadline: a member that inherits a claim settles it (delivers it again) once the deadline and a
     * second have passed since it took the shard, so an awaited call wrongly taken for a cut one would be called again
     * within seconds of the take-over, which the test waits out.
     */
    private static final long CALL_TIMEOUT_MS = 1_000;

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(), "--lease-ttl-ms", "5000",
            "--lease-renew-ms", "1000", "--call-timeout-ms", Long.toString(CALL_TIMEOUT_MS));
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        if (ledger != null) {
            ledger.close();
        }
        db.dropSchema();
    }

    @Test
    void reportsToOtherMembers_andDuringTheCallersRestart_eachTakenOnce_nothingCalledTwice() throws Exception {
        ledger = new LedgerReceiver();
        nodes.start();
        nodes.start(2);
        nodes.awaitSpread(Duration.ofSeconds(45));
        List<Member> members = nodes.running();
        ApiClient.Reply job = members.get(0).call(api -> api.post("/api/jobs", """
                {"name": "reports later", "schedule": {"type": "API"}, "completion": "CALLBACK",
                 "callbackTimeoutMs": 600000, "retry": {"maxAttempts": 1},
                 "target": {"type": "WEBHOOK", "url": "%s"}}""".formatted(ledger.url()))).orElseThrow();
        assertEquals(201, job.status(), job::toString);
        String jobId = job.json().get("id").asText();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            Member via = members.get(i % members.size());
            ApiClient.Reply run = via.call(api -> api.post("/api/jobs/" + jobId + "/run", "{}")).orElseThrow();
            assertEquals(201, run.status(), run::toString);
            ids.add(run.json().get("instanceId").asText());
        }
        Await.until(() -> "every run called: " + ledger.deliveredInstanceIds().size() + " of " + RUNS, WAIT,
                () -> ledger.deliveredInstanceIds().size() == RUNS);
        for (String id : ids) {
            Await.until(() -> "instance " + id + " awaits its callback", WAIT,
                    () -> instance(members.get(0), id).has("callbackDeadline"));
        }
        Map<Integer, Member> byNode = new HashMap<>();
        members.forEach(m -> byNode.put(m.nodeId(), m));

        // The member that made the most calls is killed; its calls are reported to the survivors while it is down.
        Map<Integer, List<Delivery>> callsByNode = new HashMap<>();
        ledger.all().forEach(d -> callsByNode.computeIfAbsent(d.node(), n -> new ArrayList<>()).add(d));
        int busiest = callsByNode.entrySet().stream().max(Map.Entry.comparingByValue((a, b) -> a.size() - b.size()))
                .orElseThrow().getKey();
        Member caller = byNode.get(busiest);
        List<Member> survivors = members.stream().filter(m -> m != caller).toList();
        List<Delivery> ofCaller = callsByNode.get(busiest);
        List<Delivery> ofOthers = ledger.all().stream().filter(d -> d.node() != busiest).toList();
        assertTrue(ofCaller.size() >= 2, "the caller made calls to report: " + callsByNode.keySet());

        // Calls of the others: each reported to a member other than its caller.
        for (Delivery call : ofOthers) {
            Member other = members.stream().filter(m -> m.nodeId() != call.node()).findFirst().orElseThrow();
            assertEquals(200, report(other, call, "{\"outcome\": \"SUCCEEDED\", \"output\": {\"by\": "
                    + other.nodeId() + "}}").status());
        }
        nodes.kill(caller);
        int half = ofCaller.size() / 2;
        for (int i = 0; i < half; i++) {
            Member to = survivors.get(i % survivors.size());
            ApiClient.Reply taken = report(to, ofCaller.get(i), "{\"outcome\": \"SUCCEEDED\", \"output\": {\"by\": "
                    + to.nodeId() + "}}");
            assertEquals(200, taken.status(), () -> "reported to " + to + " while the caller is down: " + taken);
        }
        nodes.restart(caller);
        nodes.awaitSpread(Duration.ofSeconds(45));
        // The shards of the calls still awaited have been held, by whoever holds them now, long enough for its
        // foreign-claim settler to have delivered them again if it took an awaited call for one a crash cut.
        java.util.Set<Integer> awaitedShards = new java.util.HashSet<>();
        ofCaller.subList(half, ofCaller.size()).forEach(d -> awaitedShards.add(d.shard()));
        long settledByMs = CALL_TIMEOUT_MS + 1_000 + 4_000;
        Await.until(() -> "the shards of the awaited calls held for " + settledByMs + " ms", WAIT,
                () -> nodes.snapshot().shards().stream().filter(s -> awaitedShards.contains(s.shard()))
                        .allMatch(s -> s.nodeId() >= 0 && s.heldForMs() >= settledByMs));
        assertEquals(RUNS, ledger.size(), "no awaited call was delivered again by the take-over or the restart");
        for (int i = half; i < ofCaller.size(); i++) {
            ApiClient.Reply taken = report(caller, ofCaller.get(i), "{\"outcome\": \"SUCCEEDED\", \"output\": {\"by\": "
                    + caller.nodeId() + "}}");
            assertEquals(200, taken.status(), () -> "reported to the restarted caller: " + taken);
        }
        nodes.requireNoneDied();

        // Replays, to every member: refused, nothing changes.
        Delivery anyCall = ledger.all().get(0);
        for (Member m : nodes.running()) {
            ApiClient.Reply replay = report(m, anyCall, "{\"outcome\": \"FAILED\", \"error\": \"replayed\"}");
            assertEquals(409, replay.status(), () -> "a replay to " + m + ": " + replay);
        }
        Map<String, String> statuses = new HashMap<>();
        int withOutput = 0;
        for (String id : ids) {
            JsonNode instance = instance(nodes.running().get(0), id);
            statuses.merge(instance.get("status").asText(), "", (a, b) -> a);
            if (instance.has("output") && instance.get("output").has("by")) {
                withOutput++;
            }
        }
        int outputs = withOutput;
        System.out.println("ClusterCallbackProcessTest: " + RUNS + " calls by nodes " + callsByNode.keySet()
                + "; node " + busiest + " killed with " + ofCaller.size() + " awaited, " + half
                + " reported while it was down");
        assertAll("callbacks across three members, a kill -9 and a restart",
                () -> assertEquals(RUNS, ledger.size(), "every instance called once, none again after the kill: "
                        + ledger.size() + " calls"),
                () -> assertEquals(0, ledger.repeatsWithSameKey(), "no call was delivered again"),
                () -> assertEquals(Map.of("SUCCEEDED", ""), statuses, "every instance SUCCEEDED"),
                () -> assertEquals(RUNS, outputs, "each with the output of its report"));
    }

    private static JsonNode instance(Member via, String id) {
        return via.call(api -> api.get("/api/instances/" + id)).orElseThrow().json();
    }

    /** POSTs a report to {@code to}'s callback route with the token of {@code call}'s callback URL. */
    private static ApiClient.Reply report(Member to, Delivery call, String body) {
        assertNotNull(call.callbackUrl(), "the call carried a callback URL");
        String token = call.callbackUrl().substring(call.callbackUrl().lastIndexOf('/') + 1);
        Optional<ApiClient.Reply> reply = to.call(api -> api.post("/api/callbacks/" + token, body));
        return reply.orElseThrow(() -> new AssertionError(to + " is not running"));
    }
}
