package dev.tickwheel.openapi.check;

import dev.tickwheel.openapi.client.ApiClient;
import dev.tickwheel.openapi.client.ApiException;
import dev.tickwheel.openapi.client.api.OperationsApi;
import dev.tickwheel.openapi.client.model.Health;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Tickwheel server in a JVM of its own, started through its command line ({@code dev.tickwheel.server.app.Main},
 * from this module's test class path) as a user would run it, on a free port with an H2 store in a given directory.
 * Its output is kept to find the bound port and to show the last lines when something fails.
 *
 * <p>Thread-safe: the output list is guarded by itself and appended by the reader thread.
 */
final class ServerJvm implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("HTTP API listening on (http://[^/ ]+)/");

    private final Process process;
    private final List<String> lines = new ArrayList<>(); // guarded by itself
    private final String baseUrl;

    private ServerJvm(Process process, Duration bound) {
        this.process = process;
        Thread reader = new Thread(this::readOutput, "server-jvm-output");
        reader.setDaemon(true);
        reader.start();
        this.baseUrl = awaitListening(bound);
        awaitHealthy(bound);
    }

    /**
     * Starts the server and returns once {@code GET /health} answers UP.
     *
     * @param dataDir where the H2 database lives
     * @param token   the bearer token the server requires on POST, PUT and DELETE
     */
    static ServerJvm start(Path dataDir, String token, Duration bound) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.tickwheel.server.app.Main",
                "--port", "0",
                "--db-url", "jdbc:h2:file:" + dataDir.resolve("tickwheel").toAbsolutePath(),
                "--token", token);
        return new ServerJvm(new ProcessBuilder(command).redirectErrorStream(true).start(), bound);
    }

    /** E.g. {@code http://127.0.0.1:41234}. */
    String baseUrl() {
        return baseUrl;
    }

    private String awaitListening(Duration bound) {
        String[] found = new String[1];
        Poll.until(() -> "the server's 'listening' line; last lines: " + tail(), bound, () -> {
            synchronized (lines) {
                for (String line : lines) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        found[0] = m.group(1);
                        return true;
                    }
                }
            }
            if (!process.isAlive()) {
                throw new AssertionError("the server ended with " + process.exitValue() + ": " + tail());
            }
            return false;
        });
        return found[0];
    }

    /** Polls {@code GET /health} through the generated client until it answers 200 UP. */
    private void awaitHealthy(Duration bound) {
        ApiClient client = new ApiClient();
        client.updateBaseUri(baseUrl);
        OperationsApi operations = new OperationsApi(client);
        Poll.until(() -> "GET /health answering UP; last lines: " + tail(), bound, () -> {
            try {
                return operations.getHealth().getStatus() == Health.StatusEnum.UP;
            } catch (ApiException e) {
                return false; // 503 while the store or the wheels are not up yet
            }
        });
    }

    List<String> tail() {
        synchronized (lines) {
            return new ArrayList<>(lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
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

    /** SIGTERM, then SIGKILL if the server has not stopped within 30 s (or the wait is interrupted). */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the server did not stop within 30 s of SIGTERM: " + tail());
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
