package dev.tickwheel.server.api;

import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records each HTTP request as the timer {@code http.server.requests} (Prometheus
 * {@code http_server_requests_seconds_count|sum|max}) tagged {@code method}, {@code uri}, {@code status} and
 * {@code outcome}, the names Micrometer's own web instrumentations use.
 *
 * <p>{@code uri} is the matched route template ({@code /api/jobs/{id}}), never the raw path, so the number of series
 * is bounded by the routes: static files are {@code /assets/**} and requests that match no route
 * {@code NOT_FOUND} (or {@code UNKNOWN} with another status).
 *
 * <p>A failure to record never fails the request: Javalin runs the request logger after the handler has written its
 * answer but before the answer is sent, and answers 500 when the logger throws (the status replaced, seen in
 * {@code HttpRequestMetricsTest}). Such a failure is logged (the first with its stack trace) and the request's answer
 * goes out as the handler wrote it.
 *
 * <p>Thread-safe (Micrometer's registry is; the only state of this class is the flag of the first failure).
 */
final class HttpRequestMetrics {

    static final String METER = "http.server.requests";

    private static final Logger log = LoggerFactory.getLogger(HttpRequestMetrics.class);

    private final MeterRegistry registry;
    private final AtomicBoolean failedBefore = new AtomicBoolean();

    HttpRequestMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** A Javalin request logger callback: {@code executionTimeMs} from the start of the request to its end. */
    void record(Context ctx, float executionTimeMs) {
        try {
            timer(ctx).record((long) (executionTimeMs * 1_000_000.0), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            if (failedBefore.compareAndSet(false, true)) {
                log.warn("could not record {} {} in {}; the request is answered anyway", ctx.method(), ctx.path(),
                        METER, e);
            } else {
                log.warn("could not record {} {} in {}: {}", ctx.method(), ctx.path(), METER, e.toString());
            }
        }
    }

    private Timer timer(Context ctx) {
        int status = ctx.statusCode();
        return Timer.builder(METER)
                .description("HTTP requests served by the API, by route template and status")
                .tag("method", ctx.method().name())
                .tag("uri", uri(ctx, status))
                .tag("status", Integer.toString(status))
                .tag("outcome", outcome(status))
                .register(registry);
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
