package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.InstanceFilter;
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
 * restarted on the same H2 files. Every instance must be delivered and end SUCCEEDED (a crash never consumes an
 * attempt, never fails an instance), each under the key of its first attempt; only calls the kill caught in flight
 * (at most the handler pool's threads) may be delivered twice, and then with the same key.
 */
class RestartRecoveryTest {

    @TempDir
    Path dir;

    @Test
    void kill9WhileFiring_restartDeliversEveryInstance_repeatsOnlyCallsInFlightWithTheSameKey() throws Exception {
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

        Map<String, Integer> deliveredByKey = new HashMap<>();
        for (String key : lines(deliveries)) {
            deliveredByKey.merge(key, 1, Integer::sum);
        }
        try (JdbcStores stores = JdbcStores.open(jdbcUrl)) {
            List<Instance> instances = stores.instances().listLatest(InstanceFilter.ALL, Long.MAX_VALUE, 2_000).items();
            assertEquals(1_000, instances.size());
            int repeated = 0;
            for (Instance instance : instances) {
                assertEquals(InstanceStatus.SUCCEEDED, instance.status(), "status of " + instance);
                assertEquals(1, instance.attempt(), "a crash consumes no attempt: " + instance);
                int count = deliveredByKey.getOrDefault(instance.id() + "-1", 0);
                assertTrue(count >= 1, "instance " + instance.id() + " was never delivered");
                assertTrue(count <= 2, "deliveries of " + instance.id() + ": " + count);
                repeated += count - 1;
            }
            assertEquals(1_000, deliveredByKey.size(), "every delivery carries its instance's first-attempt key: "
                    + deliveredByKey.keySet().stream().filter(k -> !k.endsWith("-1")).toList());
            assertTrue(repeated <= TickwheelServer.DEFAULT_HANDLER_THREADS,
                    "only calls in flight at the kill may be repeated: " + repeated);
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
