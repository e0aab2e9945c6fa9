package dev.tickwheel.server.api;

import dev.tickwheel.concurrent.PeriodicTaskStats;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.dto.HealthResponse;
import io.javalin.http.Context;
import java.util.function.Supplier;

/**
 * {@code GET /health} (200 or 503 with details) and {@code GET /metrics} (Prometheus text).
 *
 * <p>Thread-safe (immutable).
 */
final class OpsRoutes {

    static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final TickwheelServer engine;
    private final Supplier<String> scrape;

    /** @param scrape renders the metrics registry in the Prometheus text format */
    OpsRoutes(TickwheelServer engine, Supplier<String> scrape) {
        this.engine = engine;
        this.scrape = scrape;
    }

    void health(Context ctx) {
        boolean store = engine.storeHealthy();
        boolean wheels = engine.wheelsRunning();
        long pending = 0;
        long runs = 0;
        long failures = 0;
        if (wheels) {
            pending = engine.pendingTimers();
            PeriodicTaskStats loader = engine.loaderStats();
            runs = loader.runs();
            failures = loader.failures();
        }
        boolean up = store && wheels;
        ctx.status(up ? 200 : 503).json(new HealthResponse(up ? "UP" : "DOWN", store ? "UP" : "DOWN",
                wheels ? "UP" : "DOWN", pending, runs, failures));
    }

    void metrics(Context ctx) {
        ctx.contentType(PROMETHEUS_CONTENT_TYPE).result(scrape.get());
    }
}
