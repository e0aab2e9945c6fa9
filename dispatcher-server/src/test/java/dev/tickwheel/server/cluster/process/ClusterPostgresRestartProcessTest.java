package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * The store goes away under a running three-member cluster: PostgreSQL is stopped in the middle of a stream of runs
 * and started again a little later.
 *
 * <p><b>What it injects.</b> Three members, shards spread; a stream of {@value #RUNS} runs over {@link #SENDING}
 * (delays 0..5 s, so instances fall due throughout, webhook target answering after 100 ms). At +15 s
 * {@code pg_ctlcluster ... stop} (fast mode: every connection is cut, transactions in flight roll back, the
 * {@code LISTEN} connections die), {@link #OUTAGE} later {@code pg_ctlcluster ... start}, then
 * {@code pg_isready -h 127.0.0.1 -p 5432}. The outage is longer than the lease TTL, so by the database's clock every
 * lease has expired when it comes back: members race to renew their own and to take the others', and calls claimed
 * before the outage may be settled only under the epoch they were claimed under. Whatever happens, PostgreSQL is
 * started again in a {@code finally} block (and checked again after the test), so a failure here never leaves the
 * machine without its database. Runs sent during the outage may be refused (503): they are counted, not failed.
 *
 * <p><b>What it asserts</b>, once every instance has ended:
 * <ul>
 *   <li>nothing lost: every instance the API created ended SUCCEEDED and reached the target (and every instance
 *       in the store did: a run whose answer was lost in the outage is checked too);</li>
 *   <li>one key per instance; repeats with that key (calls whose outcome could not be written) are printed;</li>
 *   <li>each (shard, epoch) in the ledger comes from one node (and agrees with the lease table as far as it could
 *       be read); an instance's deliveries never go back to a lower epoch; the store's claim names the last
 *       delivery;</li>
 *   <li>the cluster recovered: afterwards, a run of every job, created round-robin on the members, is delivered
 *       within {@link #RECOVERED_BOUND} (a prompt lost with a {@code LISTEN} connection is caught by the loader's
 *       sweep, every 15 s by default).</li>
 * </ul>
 *
 * <p>Caveat: it stops the PostgreSQL of this machine (see {@link LocalPostgres}); it needs root, as in CI.
 */
@StopsPostgres
@Tag("cluster")
class ClusterPostgresRestartProcessTest {

    private static final Duration LEASE_TTL = Duration.ofSeconds(5);
    private static final Duration LEASE_RENEW = Duration.ofSeconds(1);
    private static final int JOBS = 36;
    private static final int RUNS = 2_000;
    private static final Duration SENDING = Duration.ofSeconds(40);
    private static final long MAX_DELAY_MS = 5_000;
    private static final Duration TARGET_LATENCY = Duration.ofMillis(100);

    private static final Duration STOP_AT = Duration.ofSeconds(15);
    /** Longer than the lease TTL: every lease has expired by the database's clock when it is back. */
    private static final Duration OUTAGE = Duration.ofSeconds(7);
    private static final Duration READY_BOUND = Duration.ofSeconds(90);
    private static final Duration RECOVERED_BOUND = Duration.ofSeconds(25);

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private final LedgerReceiver ledger = new LedgerReceiver(TARGET_LATENCY);

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(),
            "--lease-ttl-ms", Long.toString(LEASE_TTL.toMillis()),
            "--lease-renew-ms", Long.toString(LEASE_RENEW.toMillis()));
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        ledger.close();
        LocalPostgres.ensureRunning(READY_BOUND); // the test's finally did it already, unless it never got there
        db.dropSchema();
    }

    @Test
    void postgresStoppedAndStarted_underLoad_losesNothing_oneKeyPerInstance_oneNodePerEpoch() throws Exception {
        LocalPostgres.requireLocal();
        long seed = System.nanoTime();
        nodes.start();
        nodes.start(2);
        ClusterSnapshot spread = nodes.awaitSpread(Duration.ofSeconds(45));
        List<ClusterJob> jobs = ClusterJob.create(nodes, ledger.url(), JOBS, "pg-restart");
        StringBuilder story = new StringBuilder("spread: " + spread.describe() + "\n");

        try (LeaseObserver leases = LeaseObserver.start(nodes, Duration.ofMillis(250));
                RunStream stream = RunStream.start(nodes, jobs,
                        RunStream.Plan.paced(RUNS, SENDING, MAX_DELAY_MS, seed))) {
            ScenarioClock clock = ScenarioClock.startNow();

            clock.awaitOffset(STOP_AT);
            try {
                story.append(clock.now()).append(" stopping PostgreSQL\n");
                LocalPostgres.stop();
                story.append(clock.now()).append(" PostgreSQL stopped\n");
                clock.awaitOffset(STOP_AT.plus(OUTAGE));
                LocalPostgres.start();
            } finally {
                LocalPostgres.ensureRunning(READY_BOUND);
            }
            story.append(clock.now()).append(" PostgreSQL accepts connections again\n");

            stream.awaitDone(Duration.ofSeconds(90));
            long untilLastDueMs = Math.max(0, stream.lastDueMs() - System.currentTimeMillis());
            StoredInstances.awaitAllTerminal(nodes, Duration.ofMillis(untilLastDueMs).plusSeconds(60));
            story.append(clock.now()).append(" every instance ended; ").append(nodes.snapshot().describe())
                    .append('\n');
            List<String> unrecovered = runOnEachMemberAndAwaitDelivery(jobs);
            StoredInstances.awaitAllTerminal(nodes, RECOVERED_BOUND);
            story.append(clock.now()).append(" runs on each member after the outage: ")
                    .append(unrecovered.isEmpty() ? "delivered" : unrecovered).append('\n');
            nodes.requireNoneDied();

            DeliveryAudit audit = new DeliveryAudit(ledger, StoredInstances.fetchAll(nodes), stream.runs(),
                    stream.cancels());
            System.out.println("ClusterPostgresRestartProcessTest (seed " + seed + ")\n" + story
                    + "load: " + stream.describe() + "\n"
                    + "refused or unanswered during the outage: " + stream.failures().size() + "\n"
                    + audit.summary() + "\n"
                    + "older-epoch deliveries after a newer one of the same shard (reported only): "
                    + DeliveryAudit.show(audit.shardInterleavings()) + "\n"
                    + "repeats with the same key: " + audit.repeatsWithSameKey() + "; lease table read "
                    + leases.reads() + " times, " + leases.unanswered() + " times no member could answer");

            List<Executable> checks = new ArrayList<>(audit.guarantees(leases.holders()));
            checks.addAll(List.of(
                    () -> assertEquals(List.of(), ledger.malformed(), "deliveries carry every header"),
                    () -> assertTrue(stream.runs().size() >= RUNS / 2, "most runs were created: "
                            + stream.describe()),
                    () -> assertEquals(List.of(), unrecovered, "after the restart, runs on every member")));
            assertAll("nothing lost across a PostgreSQL restart", checks);
        }
    }

    /**
     * After the outage: runs with no delay, of a different job each (so, likely, of shards of different owners),
     * created on each running member in turn, several per member; returns what went wrong (a refused run, or runs
     * not delivered within {@link #RECOVERED_BOUND}).
     */
    private List<String> runOnEachMemberAndAwaitDelivery(List<ClusterJob> jobs) {
        List<String> problems = new ArrayList<>();
        List<Long> created = new ArrayList<>();
        List<Member> running = nodes.running();
        for (int i = 0; i < jobs.size(); i++) {
            Member member = running.get(i % running.size());
            ClusterJob job = jobs.get(i);
            ApiClient.Reply reply = member.call(api -> api.post("/api/jobs/" + job.id() + "/run", "{\"delayMs\": 0}"))
                    .orElseThrow(() -> new AssertionError(member + " is not running"));
            if (reply.status() != 201) {
                problems.add("run on " + member + " after the restart: " + reply);
            } else {
                created.add(Long.parseLong(reply.json().get("instanceId").asText()));
            }
        }
        try {
            Await.until(() -> "the runs created after the outage to reach the target; not yet: "
                    + created.stream().filter(id -> ledger.deliveriesOf(id).isEmpty()).toList(), RECOVERED_BOUND,
                    () -> created.stream().allMatch(id -> !ledger.deliveriesOf(id).isEmpty()));
        } catch (AssertionError e) {
            problems.add(e.getMessage());
        }
        return problems;
    }
}
