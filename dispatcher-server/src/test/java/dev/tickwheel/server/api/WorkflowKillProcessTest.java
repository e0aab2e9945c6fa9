package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.server.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflow runs under {@code kill -9}: a server process on its H2 store runs {@value #RUNS} runs of a diamond
 * (a, then b and c, then d) whose steps call a receiver that answers after {@value #ANSWER_MS} ms, and is killed
 * again and again, each time right after the receiver got its next call: a step's call is in flight, its outcome and
 * the run's next step not yet written. A new process on the same files goes on.
 *
 * <p>What must hold: every run ends SUCCEEDED with every node SUCCEEDED; every node has one instance, and every call
 * the receiver got belongs to one of them under its one key ({@code <instanceId>-1}: a call cut by a kill is made
 * again as the same attempt, never as a second instance or a second attempt); no step is lost (every node ran) or
 * doubled (no instance the runs do not name); and no child was called before its parents.
 */
@ProcessLane
class WorkflowKillProcessTest {

    private static final int RUNS = 6;
    private static final int KILLS = 5;
    private static final long ANSWER_MS = 150;
    private static final Duration START_BOUND = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final List<ServerProcess> processes = new java.util.ArrayList<>();

    @Test
    void diamondRuns_killedAtStepBoundariesAgainAndAgain_everyNodeRunsOnceUnderOneKey_andEveryRunSucceeds()
            throws Exception {
        String[] args = {"--port", "0", "--db-url", "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()};
        try (LedgerReceiver ledger = new LedgerReceiver(Duration.ofMillis(ANSWER_MS))) {
            ServerProcess server = start(args);
            ApiClient api = new ApiClient(server.awaitBaseUrl(START_BOUND));
            DiamondRuns runs = DiamondRuns.start(List.of(api), ledger.url(), RUNS);
            for (int kill = 0; kill < KILLS; kill++) {
                int next = ledger.size() + 1 + kill % 3; // one to three calls further on: another step boundary
                ApiClient current = api;
                Await.until(() -> "the receiver's call " + next + " (it has " + ledger.size() + ")", WAIT,
                        () -> ledger.size() >= next || runs.allOver(current));
                if (runs.allOver(current)) {
                    break;
                }
                server.kill();
                server = start(args);
                api = new ApiClient(server.awaitBaseUrl(START_BOUND));
            }
            ApiClient last = api;
            Await.until("every run over", WAIT, () -> runs.allOver(last));

            String calls = runs.check(path -> last.get(path).json(), ledger);
            System.out.println("WorkflowKillProcessTest: " + processes.size() + " processes, " + calls);
            assertTrue(processes.size() > 3, "the server was killed mid-run: " + processes.size() + " processes");
        } finally {
            for (ServerProcess process : processes) {
                process.close();
            }
        }
    }

    private ServerProcess start(String[] args) {
        ServerProcess process = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of(args));
        processes.add(process);
        return process;
    }
}
