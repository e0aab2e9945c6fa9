package dev.tickwheel.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.lanes.ProcessLane;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.TestKeys;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone server (its {@code Main}, in a JVM of its own) facing a store whose secrets are encrypted under a key
 * it was not given: it refuses to start, exit code 2, and says why in one line naming {@code --secret-key}; given the
 * key it starts.
 */
@ProcessLane
class SecretKeyStartTest {

    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String KEY_A = TestKeys.key(1);
    private static final String KEY_B = TestKeys.key(2);

    @TempDir
    Path dataDir;

    private String jdbcUrl() {
        return "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath();
    }

    /** A store with one signed job, written by a server given key A. */
    private void storeEncryptedUnderA() {
        ServerSettings settings = new SettingsReader().read(List.of("--db-url", jdbcUrl(), "--port", "0"),
                Map.of("TICKWHEEL_SECRET_KEY", KEY_A)).orElseThrow();
        try (TickwheelApplication app = TickwheelApplication.start(settings)) {
            app.engine().jobs().create(new JobSpec("signed", ScheduleSpec.api(),
                    Target.webhook("http://127.0.0.1:9/"), null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE,
                    DeliveryPolicy.DEFAULT, new JobOperations(null, null, "whsec_0123456789abcdef"), false));
        }
    }

    /** Runs Main with {@code args} to its end; returns its exit code and its lines that are not log lines. */
    private static Result run(List<String> args) throws InterruptedException {
        try (ServerProcess process = ServerProcess.start(ServerLaunch.onThisClassPath(), args)) {
            int exit = process.awaitExit(BOUND);
            List<String> all = process.output();
            List<String> told = new ArrayList<>();
            for (String line : all) {
                // Log lines and logback's own status lines (the test class path has two logback-test.xml) start
                // with the time; what Main prints does not.
                if (!line.isBlank() && !line.matches("^\\d\\d:\\d\\d:\\d\\d[.,]\\d{3} .*")) {
                    told.add(line);
                }
            }
            return new Result(exit, told, all);
        }
    }

    private record Result(int exit, List<String> told, List<String> all) {
    }

    @Test
    void start_wrongOrMissingKey_exitCode2AndOneLineNamingTheSetting_theRightKeysStart() throws Exception {
        storeEncryptedUnderA();
        String idA = TestKeys.idOf(1);

        Result wrong = run(List.of("--db-url", jdbcUrl(), "--port", "0", "--secret-key", KEY_B));
        assertEquals(2, wrong.exit(), String.join("\n", wrong.all()));
        assertEquals(List.of("tickwheel: --secret-key does not match the key the store's secrets are encrypted with"
                + " (key id " + idA + "); give that key, or it as --previous-secret-keys beside the new one"),
                wrong.told(), String.join("\n", wrong.all()));
        assertNoStackTrace(wrong);

        Result missing = run(List.of("--db-url", jdbcUrl(), "--port", "0"));
        assertEquals(2, missing.exit(), String.join("\n", missing.all()));
        assertEquals(List.of("tickwheel: the store's secrets are encrypted (key id " + idA + ") and no --secret-key is"
                + " given; give the key they are encrypted with as --secret-key"), missing.told(),
                String.join("\n", missing.all()));
        assertNoStackTrace(missing);

        try (ServerProcess rotated = ServerProcess.start(ServerLaunch.onThisClassPath(), List.of("--db-url",
                jdbcUrl(), "--port", "0", "--secret-key", KEY_B, "--previous-secret-keys", KEY_A))) {
            rotated.awaitBaseUrl(BOUND); // logged before it listens
            assertTrue(rotated.output().stream().anyMatch(line -> line.contains("secrets at rest: 1 job secret(s)"
                    + " and the callback key re-encrypted from key id(s) [" + idA + "]")),
                    String.join("\n", rotated.output()));
            rotated.terminate(BOUND);
        }
    }

    private static void assertNoStackTrace(Result result) {
        for (String line : result.all()) {
            assertFalse(line.startsWith("\tat ") || line.contains("Exception"), "a stack trace: " + line);
        }
    }
}
