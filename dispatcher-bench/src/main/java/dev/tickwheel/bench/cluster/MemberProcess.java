package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.ChildJvm;
import dev.tickwheel.server.app.Main;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Tickwheel server ({@link Main}) in a child JVM with the benchmark's class path: its output copied to a log file
 * and the last lines kept, its API address read from the "listening" line, and the signals a cluster benchmark sends
 * it ({@code SIGKILL}, {@code SIGTERM}).
 *
 * <p>Thread-safe: the output lines are guarded by the tail's lock; the base URL is volatile (the reader thread
 * writes it, the benchmark thread reads it).
 */
final class MemberProcess {

    private static final Pattern LISTENING = Pattern.compile("HTTP API listening on (http://[^/ ]+)/");
    private static final int TAIL_LINES = 60;

    private final Process process;
    private final Path log;
    private final ArrayDeque<String> tail = new ArrayDeque<>(); // guarded by itself; the reader thread appends
    private final Thread reader;
    private volatile String baseUrl; // written once by the reader thread

    private MemberProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.reader = new Thread(this::copyOutput, "tickwheel-bench-member-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java <jvmFlags> -cp <this class path> dev.tickwheel.server.app.Main <serverArgs>}, its standard
     * output and error going to {@code log}.
     */
    static MemberProcess start(List<String> jvmFlags, List<String> serverArgs, Path log) {
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(ChildJvm.command(Main.class, jvmFlags, serverArgs))
                    .redirectErrorStream(true).start();
            return new MemberProcess(process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a server process (log " + log + ")", e);
        }
    }

    /** Waits (bounded) for the server's "HTTP API listening on ..." line; returns e.g. {@code http://127.0.0.1:4321}. */
    String awaitBaseUrl(Duration bound) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        while (baseUrl == null) {
            if (!process.isAlive()) {
                reader.join(2_000);
                throw new IllegalStateException("server process " + pid() + " ended with " + process.exitValue()
                        + " before it listened; last lines:\n" + tail());
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException("server process " + pid() + " did not listen within " + bound
                        + "; last lines:\n" + tail());
            }
            Thread.sleep(20);
        }
        return baseUrl;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** {@code SIGKILL}, and waits until the process is gone: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * {@code SIGTERM} (a graceful stop) and waits at most {@code bound} for the process to end.
     *
     * @return the exit code
     * @throws IllegalStateException if it is still running after {@code bound} (it is then killed)
     */
    int terminate(Duration bound) throws InterruptedException {
        terminateAsync();
        return awaitExit(bound);
    }

    /** {@code SIGTERM}, without waiting; the future completes with the exit code when the process has ended. */
    CompletableFuture<Integer> terminateAsync() {
        process.destroy();
        return process.onExit().thenApply(Process::exitValue);
    }

    /**
     * Waits at most {@code bound} for the process to end.
     *
     * @return the exit code
     * @throws IllegalStateException if it is still running after {@code bound} (it is then killed)
     */
    int awaitExit(Duration bound) throws InterruptedException {
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            String lines = tail();
            kill();
            throw new IllegalStateException("server process " + pid() + " still ran " + bound + " after SIGTERM (then"
                    + " killed); last lines:\n" + lines);
        }
        return process.exitValue();
    }

    /** The last lines the process printed, one per line. */
    String tail() {
        synchronized (tail) {
            return String.join("\n", new ArrayList<>(tail));
        }
    }

    Path log() {
        return log;
    }

    private void copyOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
                BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.newLine();
                out.flush(); // so that a log read while the benchmark runs, or after a crash of it, is whole
                if (baseUrl == null) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        baseUrl = m.group(1);
                    }
                }
                synchronized (tail) {
                    if (tail.size() == TAIL_LINES) {
                        tail.removeFirst();
                    }
                    tail.addLast(line);
                }
            }
        } catch (IOException e) {
            // the process was killed mid-line, or the log could not be written: the tail says what was seen
        }
    }
}
