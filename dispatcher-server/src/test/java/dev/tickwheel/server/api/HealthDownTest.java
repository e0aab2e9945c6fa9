package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** /health answers 503 with details once the engine (store and wheels) is down while HTTP still runs. */
class HealthDownTest {

    @TempDir
    Path dir;

    @Test
    void health_engineClosed_returns503WithDetails() {
        try (TickwheelApplication app = TestServers.start(dir, null, false)) {
            ApiClient api = new ApiClient(app.baseUrl());
            assertEquals(200, api.get("/health").status());
            app.engine().close();
            ApiClient.Reply reply = api.get("/health");
            assertEquals(503, reply.status(), reply.toString());
            assertEquals("DOWN", reply.json().get("status").asText());
            assertEquals("DOWN", reply.json().get("store").asText());
            assertEquals("DOWN", reply.json().get("wheels").asText());
        }
    }
}
