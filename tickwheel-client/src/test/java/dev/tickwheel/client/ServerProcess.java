package dev.tickwheel.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Tickwheel server in a JVM of its own, started through its command line ({@code dev.tickwheel.server.app.Main}
 * on the test class path, which holds dispatcher-server in test scope): H2 in a directory of the test's, a free
 * loopback port, optionally a token. Ready once {@code GET /health} answers 200.
 *
 * <p>Thread-safe: the output list is guarded by itself (appended by the reader thread).
 */
final class ServerProcess implements AutoCloseable {

    private static final Duration READY_BOUND = Duration.ofSeconds(60);

    private final Process process;
    private final String baseUrl;
    private final List<String> lines = new ArrayList<>(); // guarded by itself

    private ServerProcess(Process process, String baseUrl) {
        this.process = process;
        this.baseUrl = baseUrl;
        Thread reader = new Thread(this::readOutput, "test-server-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a server on H2 under {@code dataDir}; {@code token} null for none. Returns once it is healthy. */
    static ServerProcess start(Path dataDir, String token) throws IOException, InterruptedException {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), "dev.tickwheel.server.app.Main",
                "--port", Integer.toString(port),
                "--db-url", "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath()));
        if (token != null) {
            command.addAll(List.of("--token", token));
        }
        ServerProcess server = new ServerProcess(new ProcessBuilder(command).redirectErrorStream(true).start(),
                "http://127.0.0.1:" + port);
        try {
            server.awaitHealthy();
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    String baseUrl() {
        return baseUrl;
    }

    int port() {
        return URI.create(baseUrl).getPort();
    }

    /** Polls {@code GET /health} (each poll waits for its answer; no fixed sleep) until 200 or the bound. */
    private void awaitHealthy() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create(baseUrl + "/health")).timeout(Duration.ofSeconds(2))
                .build();
        long deadlineNanos = System.nanoTime() + READY_BOUND.toNanos();
        while (System.nanoTime() - deadlineNanos < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the server ended with " + process.exitValue() + ": " + tail());
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet: the connection is refused at once, so this loop waits on the process
                process.waitFor(50, TimeUnit.MILLISECONDS);
            }
        }
        throw new IllegalStateException("the server was not healthy within " + READY_BOUND + ": " + tail());
    }

    List<String> tail() {
        synchronized (lines) {
            return new ArrayList<>(lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** SIGKILL and wait: the H2 files go with the test's directory. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }
}
