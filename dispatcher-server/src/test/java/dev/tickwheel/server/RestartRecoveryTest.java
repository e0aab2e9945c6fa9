package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1 000 instances due over the next few seconds; the server process is killed with SIGKILL while they fire, then
 * restarted on the same H2 files. Every instance must be dispatched exactly once, except those the kill caught inside
 * the target call: they are recorded FAILED with the documented reason (the job allows one attempt) and were
 * delivered at most once.
 */
class RestartRecoveryTest {

    @TempDir
    Path dir;

    @Test
    void kill9WhileFiring_restartDispatchesEveryPendingInstanceExactlyOnce() throws Exception {
        String jdbcUrl = "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath();
        Path deliveries = dir.resolve("deliveries.txt");

        Process first = start(jdbcUrl, deliveries, "create");
        try {
            awaitLine(first, "READY", Duration.ofSeconds(60));
            // Kill once a part has been delivered: the rest is pending or in flight.
            Await.until("some deliveries before the kill", Duration.ofSeconds(30),
                    () -> lines(deliveries).size() >= 200);
        } finally {
            first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful close
            first.waitFor();
        }
        int deliveredBeforeKill = lines(deliveries).size();
        assertTrue(deliveredBeforeKill < 1_000, "the kill came too late to test anything: " + deliveredBeforeKill);

        Process second = start(jdbcUrl, deliveries, "resume");
        try {
            awaitLine(second, "STATUS 0 0", Duration.ofSeconds(60));
        } finally {
            second.destroy();
            second.waitFor();
        }

        Map<Long, Integer> delivered = new HashMap<>();
        for (String line : lines(deliveries)) {
            delivered.merge(Long.parseLong(line), 1, Integer::sum);
        }
        try (JdbcStores stores = JdbcStores.open(jdbcUrl)) {
            List<Instance> instances = stores.instances().list(null, null, 0, 2_000).items();
            assertEquals(1_000, instances.size());
            int interrupted = 0;
            for (Instance instance : instances) {
                int count = delivered.getOrDefault(instance.id(), 0);
                if (instance.status() == InstanceStatus.SUCCEEDED) {
                    assertEquals(1, count, "deliveries of " + instance.id());
                } else {
                    assertEquals(InstanceStatus.FAILED, instance.status(), "status of " + instance.id());
                    assertTrue(instance.error().startsWith("server stopped during dispatch"), instance.error());
                    assertTrue(count <= 1, "deliveries of interrupted " + instance.id() + ": " + count);
                    interrupted++;
                }
            }
            assertTrue(interrupted <= 16, "only calls in flight at the kill can be interrupted: " + interrupted);
        }
    }

    private static Process start(String jdbcUrl, Path deliveries, String mode) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RestartScenario.class.getName(), jdbcUrl, deliveries.toString(), mode)
                .redirectErrorStream(true)
                .start();
    }

    private static void awaitLine(Process process, String expected, Duration bound) throws Exception {
        AtomicReference<String> last = new AtomicReference<>("");
        List<String> tail = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (tail) {
                        tail.add(line);
                        if (tail.size() > 20) {
                            tail.remove(0);
                        }
                    }
                    if (line.equals(expected)) {
                        last.set(line);
                    }
                }
            } catch (IOException ignored) {
                // the process was killed
            }
        });
        reader.setDaemon(true);
        reader.start();
        Await.until(() -> "line '" + expected + "' from the server process; last lines: " + snapshot(tail), bound,
                () -> expected.equals(last.get()) || !process.isAlive());
        assertEquals(expected, last.get(), "server process ended early; last lines: " + snapshot(tail));
    }

    private static List<String> snapshot(List<String> tail) {
        synchronized (tail) {
            return new ArrayList<>(tail);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
