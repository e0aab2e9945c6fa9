package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.concurrent.PeriodicTaskStats;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Between {@link TickwheelServer#open()} and {@link TickwheelServer#startScheduling()} (where the standalone server's
 * HTTP listener, and so its health check and metrics, already answer during start-up recovery), the figures read
 * zero instead of failing: a health check there answered 500 with a NoSuchElementException before.
 */
class OpenBeforeSchedulingTest {

    @TempDir
    Path dataDir;

    @Test
    void loaderStats_openNotYetScheduling_readsZeroRuns() {
        try (TickwheelServer server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath()).build().open()) {
            PeriodicTaskStats stats = server.loaderStats();

            assertEquals(0, stats.runs());
            assertEquals(0, stats.failures());
        }
    }
}
