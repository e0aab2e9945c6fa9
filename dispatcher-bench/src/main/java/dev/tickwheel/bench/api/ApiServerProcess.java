package dev.tickwheel.bench.api;

import dev.tickwheel.server.app.Main;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server under test in a process of its own: {@code java <flags> -jar tickwheel-server.jar --port <free port>
 * --db-url <url>} (or {@link Main} on this JVM's class path when there is no jar), its output going to a log file.
 * The benchmark's client runs in this JVM, so client and server share no heap, no JIT, no GC and no threads, as a
 * real caller and server would not.
 *
 * <p>Not thread-safe: confined to the benchmark's main thread.
 */
final class ApiServerProcess implements AutoCloseable {

    private static final Duration STOP_BOUND = Duration.ofSeconds(30);

    private final Process process;
    private final String baseUrl;
    private final Path log;
    private final String description;
    private final Thread killOnExit; // the child must not outlive a benchmark stopped with Ctrl-C

    private ApiServerProcess(Process process, String baseUrl, Path log, String description) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.log = log;
        this.description = description;
        this.killOnExit = new Thread(process::destroyForcibly, "tickwheel-bench-server-reaper");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts the server on a free loopback port.
     *
     * @param serverJar the jar to run; null: {@link Main} on this JVM's class path
     * @param jvmFlags  the server JVM's flags (heap, GC)
     * @param dbUrl     its {@code --db-url}
     * @param log       where its standard output and error go
     */
    static ApiServerProcess start(Path serverJar, List<String> jvmFlags, String dbUrl, Path log) {
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        if (serverJar != null) {
            command.add("-jar");
            command.add(serverJar.toAbsolutePath().toString());
        } else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(Main.class.getName());
        }
        command.add("--port");
        command.add(String.valueOf(port));
        command.add("--db-url");
        command.add(dbUrl);
        String description = String.join(" ", jvmFlags) + (serverJar != null ? " -jar " + serverJar
                : " -cp <the benchmark's class path> " + Main.class.getName());
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            return new ApiServerProcess(process, "http://127.0.0.1:" + port, log, description);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the server (" + String.join(" ", command) + ")", e);
        }
    }

    /** E.g. {@code http://127.0.0.1:43121}. */
    String baseUrl() {
        return baseUrl;
    }

    /** How it was started: its JVM flags and jar (or main class). */
    String description() {
        return description;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    /**
     * Waits, at most {@code bound}, for {@code GET /health} to answer 200.
     *
     * @throws IllegalStateException if the process ends first or the bound passes, with the log's last lines
     */
    void awaitHealthy(SchedulingApi api, Duration bound) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        while (!api.healthy()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the server (pid " + pid() + ") ended with " + process.exitValue()
                        + " before it was healthy; last lines of " + log + ":\n" + tail(40));
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException("the server (pid " + pid() + ") was not healthy within " + bound
                        + "; last lines of " + log + ":\n" + tail(40));
            }
            Thread.sleep(100);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The last {@code lines} lines of its output. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(could not read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** {@code SIGTERM} (the server's graceful stop), and {@code SIGKILL} if it has not ended after 30 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already exiting: the hook runs, and finds the process gone
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
