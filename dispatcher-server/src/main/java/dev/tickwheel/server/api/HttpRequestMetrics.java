package dev.tickwheel.server.api;

import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Records each HTTP request as the timer {@code http.server.requests} (Prometheus
 * {@code http_server_requests_seconds_count|sum|max}) tagged {@code method}, {@code uri}, {@code status} and
 * {@code outcome}, the names Micrometer's own web instrumentations use.
 *
 * <p>{@code uri} is the matched route template ({@code /api/jobs/{id}}), never the raw path, so the number of series
 * is bounded by the routes: static files are {@code /assets/**} and requests that match no route
 * {@code NOT_FOUND} (or {@code UNKNOWN} with another status).
 *
 * <p>Thread-safe (Micrometer's registry is; this class holds no state of its own).
 */
final class HttpRequestMetrics {

    static final String METER = "http.server.requests";

    private final MeterRegistry registry;

    HttpRequestMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** A Javalin request logger callback: {@code executionTimeMs} from the start of the request to its end. */
    void record(Context ctx, float executionTimeMs) {
        int status = ctx.statusCode();
        Timer.builder(METER)
                .description("HTTP requests served by the API, by route template and status")
                .tag("method", ctx.method().name())
                .tag("uri", uri(ctx, status))
                .tag("status", Integer.toString(status))
                .tag("outcome", outcome(status))
                .register(registry)
                .record((long) (executionTimeMs * 1_000_000.0), TimeUnit.NANOSECONDS);
    }

    private static String uri(Context ctx, int status) {
        String route;
        try {
            route = ctx.endpointHandlerPath();
        } catch (RuntimeException noEndpoint) {
            // Javalin throws for requests no endpoint handled (static files, no such route).
            route = null;
        }
        if (route != null && !route.isEmpty() && !route.equals("*")) {
            return route;
        }
        if (ctx.path().startsWith("/assets/")) {
            return "/assets/**";
        }
        return status == 404 ? "NOT_FOUND" : "UNKNOWN";
    }

    private static String outcome(int status) {
        return switch (status / 100) {
            case 1 -> "INFORMATIONAL";
            case 2 -> "SUCCESS";
            case 3 -> "REDIRECTION";
            case 4 -> "CLIENT_ERROR";
            case 5 -> "SERVER_ERROR";
            default -> "UNKNOWN";
        };
    }
}
