package dev.tickwheel.client;

import dev.tickwheel.fixtures.Poll;
import dev.tickwheel.fixtures.Throttled;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the client's tests start their real server: the shared fixtures' {@link ServerProcess} with
 * {@code dev.tickwheel.server.app.Main} on the test class path (dispatcher-server in test scope), H2 in a directory
 * of the test's, a free loopback port ({@code --port 0}), optionally a token; ready once {@code GET /health} answers
 * 200.
 *
 * <p>Immutable.
 *
 * @param process the server JVM; closing it kills it
 * @param baseUrl its API, e.g. {@code http://127.0.0.1:41234}
 */
record H2Server(ServerProcess process, String baseUrl) implements AutoCloseable {

    private static final Duration READY_BOUND = Duration.ofSeconds(60);
    private static final Duration HEALTH_POLL = Duration.ofMillis(50);

    /** Starts a server on H2 under {@code dataDir}; {@code token} null for none. Returns once it is healthy. */
    static H2Server start(Path dataDir, String token) throws InterruptedException {
        List<String> args = new ArrayList<>(List.of("--port", "0",
                "--db-url", "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath()));
        if (token != null) {
            args.addAll(List.of("--token", token));
        }
        ServerProcess process = ServerProcess.start(ServerLaunch.onThisClassPath().withJvmFlags(List.of("-Xmx256m")),
                args);
        try {
            String baseUrl = process.awaitBaseUrl(READY_BOUND);
            ApiClient api = new ApiClient(baseUrl);
            Poll.until(() -> "the server to answer GET /health 200; last lines:\n" + process.tail(), READY_BOUND,
                    Throttled.every(HEALTH_POLL, () -> healthy(api)));
            return new H2Server(process, baseUrl);
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
    }

    private static boolean healthy(ApiClient api) {
        try {
            return api.get("/health").status() == 200;
        } catch (UncheckedIOException notYet) {
            return false;
        }
    }

    int port() {
        return java.net.URI.create(baseUrl).getPort();
    }

    /** SIGKILL and wait: the H2 files go with the test's directory. */
    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
