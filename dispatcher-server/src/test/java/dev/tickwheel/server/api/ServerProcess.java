package dev.tickwheel.server.api;

import dev.tickwheel.server.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server started as a separate JVM ({@code dev.tickwheel.server.app.Main} on the test class path), its output kept so
 * that the test can find the bound port and show the last lines when something fails. Public for the cluster process
 * tests ({@code dev.tickwheel.server.cluster.process}), which signal it by {@link #pid()}. Thread-safe.
 */
public final class ServerProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("HTTP API listening on (http://[^/ ]+)/");

    private final Process process;
    private final List<String> lines = new ArrayList<>(); // guarded by itself; appended by the reader thread
    private final Thread reader;

    private ServerProcess(Process process) {
        this.process = process;
        this.reader = new Thread(this::readOutput, "server-process-output");
        reader.setDaemon(true);
        reader.start();
    }

    public static ServerProcess start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.tickwheel.server.app.Main"));
        command.addAll(List.of(args));
        return new ServerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Waits for the "listening" log line and returns the base URL, e.g. http://127.0.0.1:41234. */
    public String awaitBaseUrl(Duration bound) {
        String[] found = new String[1];
        Await.until(() -> "the server's listening line; last lines: " + tail(), bound, () -> {
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
                throw new AssertionError("server process ended with " + process.exitValue() + ": " + tail());
            }
            return false;
        });
        return found[0];
    }

    /** Waits for the process to end by itself; returns its exit code. */
    public int awaitExit(Duration bound) throws InterruptedException {
        if (!process.waitFor(bound.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new AssertionError("server process still running after " + bound + ": " + tail());
        }
        int exit = process.exitValue();
        drainOutput();
        return exit;
    }

    /** Lets the reader thread take the last lines of a process that has ended. */
    private void drainOutput() throws InterruptedException {
        reader.join(5_000);
    }

    /** The operating system's process id, for signals the JDK cannot send (SIGSTOP, SIGCONT). */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook runs. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM and wait; returns the exit code. */
    int terminate() throws InterruptedException {
        process.destroy();
        return process.waitFor();
    }

    /**
     * SIGTERM and wait at most {@code bound} for the process to end; returns the exit code as soon as it has ended
     * (the reader thread takes the last lines on its own), so a caller can time the stop.
     */
    public int terminate(Duration bound) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(bound.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new AssertionError("server process still running " + bound + " after SIGTERM: " + tail());
        }
        return process.exitValue();
    }

    public List<String> tail() {
        synchronized (lines) {
            return new ArrayList<>(lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
    }

    public List<String> output() {
        synchronized (lines) {
            return new ArrayList<>(lines);
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
            // the process was killed
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
