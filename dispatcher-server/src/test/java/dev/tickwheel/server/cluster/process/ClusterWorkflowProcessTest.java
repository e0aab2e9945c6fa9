package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.Member;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.api.DiamondRuns;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Workflow runs on a three-member cluster on PostgreSQL, with real server processes, one member killed
 * ({@code kill -9}) while the runs' steps are in flight and later restarted: the runs were started through every
 * member, their steps are spread over the members' shards (a parent and its children are often on different members,
 * and two parents of a join end on two members at once), and the killed member's steps are taken over. Asserts the
 * same as {@link DiamondRuns#check}: every run SUCCEEDED, every node one instance under one key, nothing doubled,
 * no child before its parents.
 */
@ProcessLane
@Tag("cluster")
class ClusterWorkflowProcessTest {

    private static final int RUNS = 24;
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final PostgresTestDatabase db = PostgresTestDatabase.createSchema();
    private LedgerReceiver ledger;

    @RegisterExtension
    final ClusterTeardown teardown = new ClusterTeardown(db.jdbcUrl(), "--lease-ttl-ms", "5000",
            "--lease-renew-ms", "1000", "--call-timeout-ms", "2000");
    final ClusterProcesses nodes = teardown.cluster();

    @AfterEach
    void closeLedgerAndDropSchema() throws SQLException {
        if (ledger != null) {
            ledger.close();
        }
        db.dropSchema();
    }

    @Test
    void diamondRuns_acrossThreeMembers_oneKilledMidRunAndRestarted_everyNodeRunsOnceUnderOneKey() throws Exception {
        ledger = new LedgerReceiver(Duration.ofMillis(200));
        nodes.start();
        nodes.start(2);
        nodes.awaitSpread(Duration.ofSeconds(45));
        List<Member> members = nodes.running();
        List<ApiClient> apis = members.stream()
                .map(m -> new ApiClient(m.process().awaitBaseUrl(Duration.ofSeconds(5)))).toList();
        DiamondRuns runs = DiamondRuns.start(apis, ledger.url(), RUNS);

        Await.until(() -> "a third of the steps called (" + ledger.size() + ")", WAIT,
                () -> ledger.deliveredInstanceIds().size() >= RUNS * 4 / 3);
        Member victim = members.get(1);
        nodes.kill(victim);
        Member survivor = members.get(0);
        Await.until("every run over with a member down", WAIT,
                () -> survivor.call(runs::allOver).orElse(false));
        nodes.restart(victim);
        nodes.requireNoneDied();

        String calls = runs.check(path -> survivor.call(api -> api.get(path).json()).orElseThrow(), ledger);
        System.out.println("ClusterWorkflowProcessTest: " + RUNS + " runs on 3 members, " + victim.name()
                + " killed mid-run; " + calls);
        assertTrue(ledger.nodesByShardEpoch().size() > 1, "the steps were spread over the members");
    }
}
