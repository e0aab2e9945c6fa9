package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.DispatchSettings;
import dev.tickwheel.server.app.ServerSettings;
import dev.tickwheel.server.app.TickwheelApplication;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.schedule.RetentionPurge;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store slower than {@code --store-timeout-ms} answers {@code 503 store_unavailable} at that bound, in the error
 * JSON of every other error, instead of holding the caller; and the contract the 503 states holds: the run may or may
 * not have been written, and repeating it with the same key finds the one instance.
 *
 * <p>How the store is made slow: the test's own connection to the server's H2 file holds the job's row lock, which
 * the run's transaction needs ({@code OnDemandRuns} locks the job against deletion), so the run waits in its group
 * commit; H2 would wait {@value #H2_LOCK_TIMEOUT_MS} ms for the lock, far longer than the store timeout. The time
 * measured is the real answer time of a real HTTP call, which is what the bound is about; nothing sleeps.
 */
class StoreTimeoutApiTest {

    private static final Duration STORE_TIMEOUT = Duration.ofMillis(500);
    private static final long H2_LOCK_TIMEOUT_MS = 30_000;
    /** Generous for a loaded 2-core machine; still far below the lock timeout the call would otherwise wait. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    @Test
    void run_storeSlowerThanTheTimeout_answers503StoreUnavailableInTime_andTheSameKeyThenFindsOneInstance()
            throws SQLException {
        String url = "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath() + ";LOCK_TIMEOUT=" + H2_LOCK_TIMEOUT_MS;
        try (TickwheelApplication app = start(url)) {
            ApiClient api = new ApiClient(app.baseUrl());
            ApiClient.Reply job = api.post("/api/jobs", """
                    {"name": "slow-store", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""");
            assertEquals(201, job.status(), job.toString());
            String jobId = job.json().get("id").asText();
            String run = "{\"key\": \"order-1\", \"delayMs\": 600000}";

            ApiClient.Reply refused;
            long tookMs;
            try (Connection blocker = DriverManager.getConnection(url + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0")) {
                blocker.setAutoCommit(false);
                lockJob(blocker, Long.parseLong(jobId));
                long startNanos = System.nanoTime();
                refused = api.post("/api/jobs/" + jobId + "/run", run);
                tookMs = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
                blocker.rollback();
            }

            assertEquals(503, refused.status(), refused.toString());
            assertEquals("store_unavailable", refused.error(), refused.toString());
            assertTrue(tookMs >= STORE_TIMEOUT.toMillis() - 50 && tookMs <= STORE_TIMEOUT.plus(MARGIN).toMillis(),
                    "answered after " + tookMs + " ms; the store timeout is " + STORE_TIMEOUT.toMillis() + " ms");

            // The refused run was already being written when its caller gave up: written or not, the key decides.
            ApiClient.Reply again = api.post("/api/jobs/" + jobId + "/run", run);
            assertTrue(again.status() == 200 || again.status() == 201, again.toString());
            ApiClient.Reply byKey = api.get("/api/jobs/" + jobId + "/runs/order-1");
            assertEquals(200, byKey.status(), byKey.toString());
            assertEquals(again.json().get("instanceId").asText(), byKey.json().get("id").asText());
            assertEquals(1, api.get("/api/instances?jobId=" + jobId).json().get("items").size(),
                    "one instance for the key, however the refused call ended");
        }
    }

    private static void lockJob(Connection connection, long jobId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT id FROM tw_job WHERE id = ? FOR UPDATE")) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "job " + jobId + " is stored");
            }
        }
    }

    private static TickwheelApplication start(String jdbcUrl) {
        return TickwheelApplication.start(new ServerSettings(new ApiSettings("127.0.0.1", 0, null, false), jdbcUrl,
                OptionalInt.empty(), Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(15),
                Duration.ofSeconds(30), Duration.ofMinutes(2), STORE_TIMEOUT, DispatchSettings.DEFAULTS, false,
                RetentionPurge.Settings.DEFAULTS, AlertSettings.DEFAULTS, null,
                dev.tickwheel.server.store.SecretKeys.NONE));
    }
}
