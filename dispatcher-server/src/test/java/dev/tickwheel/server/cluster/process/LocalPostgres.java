package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.Await;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * This machine's PostgreSQL cluster, stopped and started with {@code pg_ctlcluster} the way the CI image runs it
 * (as root, no systemd), for the test that takes the store away from a running cluster; readiness is
 * {@code pg_isready -h 127.0.0.1 -p 5432}.
 *
 * <p>Stateless.
 *
 * <p>Caveats: this stops the PostgreSQL of the whole machine: anything else using it at the time (another test run)
 * loses its connections. Surefire runs this module's test classes one at a time, so a build disturbs only itself.
 */
final class LocalPostgres {

    private static final String CTL = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main ";
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(90);
    private static final Duration READY_PROBE_BOUND = Duration.ofSeconds(10);

    private LocalPostgres() {
    }

    /** Fails (never skips, like the PostgreSQL fixture) unless the test database is this machine's cluster. */
    static void requireLocal() {
        String url = System.getenv("TICKWHEEL_TEST_PG_URL");
        if (url != null && !url.isBlank() && !url.contains("//127.0.0.1:5432/") && !url.contains("//localhost:5432/")) {
            throw new AssertionError("this test restarts the PostgreSQL of this machine (127.0.0.1:5432) but "
                    + "TICKWHEEL_TEST_PG_URL points elsewhere: " + url);
        }
    }

    /** {@code pg_ctlcluster ... stop} (fast mode: clients are disconnected at once). */
    static void stop() {
        int exit = run(CTL + "stop");
        if (exit != 0) {
            throw new AssertionError("`" + CTL + "stop` exited with " + exit);
        }
    }

    /** {@code pg_ctlcluster ... start}; "already running" (exit 2) is fine. Does not wait for readiness. */
    static void start() {
        int exit = run(CTL + "start");
        if (exit != 0 && exit != 2) {
            throw new AssertionError("`" + CTL + "start` exited with " + exit);
        }
    }

    static boolean ready() {
        return run("pg_isready -q -h 127.0.0.1 -p 5432", READY_PROBE_BOUND, false) == 0;
    }

    static void awaitReady(Duration bound) {
        Await.until("PostgreSQL to accept connections (pg_isready -h 127.0.0.1 -p 5432)", bound,
                Throttled.every(Duration.ofMillis(250), LocalPostgres::ready));
    }

    /** Starts it unless it accepts connections, and waits until it does: for {@code finally} blocks. */
    static void ensureRunning(Duration bound) {
        if (!ready()) {
            start();
        }
        awaitReady(bound);
    }

    private static int run(String command) {
        return run(command, COMMAND_BOUND, true);
    }

    /**
     * Runs {@code sh -c command} with its output in a temporary file, never a pipe: a server that the command starts
     * inherits the output and would hold a pipe open for as long as it runs.
     */
    private static int run(String command, Duration bound, boolean printOutput) {
        File output = null;
        try {
            output = File.createTempFile("local-postgres", ".log");
            Process process = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true)
                    .redirectOutput(output).start();
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("`" + command + "` did not end within " + bound);
            }
            if (printOutput) {
                System.out.println("$ " + command + " -> " + process.exitValue() + ": "
                        + Files.readString(output.toPath(), StandardCharsets.UTF_8).trim());
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run `" + command + "`", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running `" + command + "`", e);
        } finally {
            if (output != null && !output.delete()) {
                output.deleteOnExit();
            }
        }
    }
}
