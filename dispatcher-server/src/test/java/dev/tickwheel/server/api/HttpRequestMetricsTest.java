package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.TickwheelServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP metrics never cost a request its answer: Javalin runs the request logger after the handler wrote the answer
 * and before it is sent, and a logger that throws makes the answer a 500 (with the handler's own body: this test failed
 * so before the metrics caught their failures). Here the registry refuses every timer, and every request still gets the
 * status and body its handler wrote.
 */
class HttpRequestMetricsTest {

    @TempDir
    Path dir;

    @Test
    void registryRefusingTheTimer_requestsAreAnsweredAsTheirHandlersWrote() throws Exception {
        AtomicInteger refused = new AtomicInteger();
        SimpleMeterRegistry refusing = new SimpleMeterRegistry() {
            @Override
            protected Timer newTimer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
                refused.incrementAndGet();
                throw new IllegalArgumentException("refused by the test: " + id.getName());
            }
        };
        try (TickwheelServer engine = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()).build().start();
             ApiServer api = new ApiServer(engine, new ApiSettings("127.0.0.1", 0, null, false), () -> "", refusing)
                     .start()) {
            ApiClient client = new ApiClient("http://127.0.0.1:" + api.port());

            ApiClient.Reply list = client.get("/api/jobs");
            assertEquals(200, list.status(), list.toString());
            assertTrue(list.json().has("items"), list.toString());

            ApiClient.Reply missing = client.get("/api/jobs/424242");
            assertEquals(404, missing.status(), missing.toString());
            assertEquals("not_found", missing.error(), missing.toString());

            ApiClient.Reply created = client.post("/api/jobs", """
                    {"name": "metrics refused", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/hook"}}""");
            assertEquals(201, created.status(), created.toString());
            assertTrue(refused.get() >= 3, "the registry was asked for the timer and refused: " + refused.get());
        }
    }
}
