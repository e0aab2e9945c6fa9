package dev.tickwheel.server.cluster.process;

import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.process.ServerLaunch;
import java.util.List;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit's side of a process test's cluster: a {@link ClusterProcesses} of servers on this test's class path, and,
 * registered with {@code @RegisterExtension}, its teardown right after the test method, before any
 * {@code @AfterEach}: it prints the output of every process it started if the test failed, then continues paused
 * processes and kills them all, so a failing test never leaves a server behind (nor one still writing to a schema
 * that is being dropped).
 *
 * <p>Thread-safe as the cluster is.
 */
final class ClusterTeardown implements AfterTestExecutionCallback {

    private static final int OUTPUT_LINES_ON_FAILURE = 250;

    private final ClusterProcesses cluster;

    /**
     * @param jdbcUrl the PostgreSQL schema every member shares
     * @param flags   further server flags, the same for every member (e.g. {@code --lease-ttl-ms 5000})
     */
    ClusterTeardown(String jdbcUrl, String... flags) {
        this.cluster = new ClusterProcesses(ServerLaunch.onThisClassPath(), jdbcUrl, List.of(flags), null);
    }

    ClusterProcesses cluster() {
        return cluster;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws Exception {
        if (context.getExecutionException().isPresent()) {
            System.out.println("==== " + context.getDisplayName() + " failed; output of the server processes:\n"
                    + cluster.outputs(OUTPUT_LINES_ON_FAILURE));
        }
        cluster.close();
    }
}
