package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.TickwheelServer;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API, health, metrics and dashboard of one {@link TickwheelServer}, on Javalin (Jetty).
 *
 * <p>Routes (see {@code docs/openapi.yaml}; {@link #routes()} lists what is registered):
 * <pre>
 *   POST   /api/jobs                    GET /api/jobs          GET /api/jobs/{id}
 *   PUT    /api/jobs/{id}               DELETE /api/jobs/{id}
 *   POST   /api/jobs/{id}/enable        POST /api/jobs/{id}/disable        POST /api/jobs/{id}/run
 *   POST   /api/jobs/{id}/runs          GET /api/jobs/{id}/runs/{key}      POST /api/jobs/{id}/runs/{key}/cancel
 *   POST   /api/jobs/{id}/runs/{key}/reschedule
 *   GET    /api/instances               GET /api/instances/{id}            POST /api/instances/{id}/cancel
 *   POST   /api/instances/cancel        POST /api/instances/{id}/reschedule
 *   GET    /health    GET /metrics    GET /    GET /openapi.yaml    GET /api-docs    (+ POST /demo/echo with the demo)
 * </pre>
 * Every error is {@code {"error", "message"}} with a 4xx status for anything the client can fix; a client input that
 * produces a 500 is a bug.
 *
 * <p>Thread-safe. Lifecycle: {@link #start()} once, {@link #stop()} once (idempotent). It does not own the engine:
 * stop the API first, then close the engine.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    private static final Set<HandlerType> HTTP_METHODS = EnumSet.of(HandlerType.GET, HandlerType.POST,
            HandlerType.PUT, HandlerType.PATCH, HandlerType.DELETE);
    static final int MAX_HTTP_THREADS = 64;

    private final ApiSettings settings;
    private final Javalin app;
    // Filled by Javalin's handlerAdded event while the constructor registers routes; read-only afterwards.
    private final List<String> routes = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param engine       a started engine
     * @param settings     host, port, token
     * @param scrape       renders the metrics in Prometheus text format
     * @param httpRegistry where each request is recorded as {@code http.server.requests} (see
     *                     {@link HttpRequestMetrics}), or null for nowhere
     */
    public ApiServer(TickwheelServer engine, ApiSettings settings, Supplier<String> scrape,
            MeterRegistry httpRegistry) {
        Objects.requireNonNull(engine, "engine");
        this.settings = Objects.requireNonNull(settings, "settings");
        ApiRoutes api = new ApiRoutes(engine, settings.token(), settings.demoEcho(), scrape, settings.openHealth());
        ObjectMapper json = api.json();

        app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.jsonMapper(new JavalinJackson(json, false));
            config.http.maxRequestSize = JsonBodyReader.MAX_BATCH_BODY_BYTES; // each route reads with its own bound
            config.jetty.defaultHost = settings.host();
            config.jetty.defaultPort = settings.port();
            QueuedThreadPool threads = new QueuedThreadPool(MAX_HTTP_THREADS, 4);
            threads.setName("tickwheel-http");
            config.jetty.threadPool = threads;
            api.assets().forEach((hostedPath, directory) -> config.staticFiles.add(files -> {
                files.hostedPath = hostedPath;
                files.directory = directory;
                files.location = Location.CLASSPATH;
            }));
            if (httpRegistry != null) {
                config.requestLogger.http(new HttpRequestMetrics(httpRegistry)::record);
            }
            config.events(events -> events.handlerAdded(meta -> {
                if (HTTP_METHODS.contains(meta.getHttpMethod())) {
                    routes.add(meta.getHttpMethod().name() + " " + meta.getPath());
                }
            }));
        });
        app.exception(Exception.class, (e, ctx) -> api.respond(e, new JavalinExchange(ctx)));
        // Javalin's own refusals (e.g. 413 from reading a body over maxRequestSize) in the API's error shape.
        app.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() < 500) {
                ApiRoutes.httpError(new JavalinExchange(ctx), e.getStatus(), e.getMessage());
            } else {
                api.respond(e, new JavalinExchange(ctx));
            }
        });
        app.error(404, ctx -> {
            // Our handlers answer 404 with JSON already; Javalin's "no such route" answer is plain text.
            String type = ctx.res().getContentType();
            if (type == null || !type.startsWith("application/json")) {
                ApiRoutes.httpError(new JavalinExchange(ctx), 404, null);
            }
        });
        for (ApiRoute route : api.routes()) {
            app.addHttpHandler(HandlerType.valueOf(route.method()), route.path(),
                    ctx -> route.handler().handle(new JavalinExchange(ctx)));
        }
    }

    /** Binds the port and starts serving. */
    public ApiServer start() {
        app.start();
        log.info("HTTP API listening on http://{}:{}/ (auth: {})", displayHost(), port(),
                settings.token() == null ? "tokens created through /api/tokens, else none (loopback only)"
                        : "bearer tokens (--token is the bootstrap admin token)");
        return this;
    }

    /** The bound port (useful with port 0). */
    public int port() {
        return app.port();
    }

    /** "METHOD /path" for every registered route, in registration order. */
    public List<String> routes() {
        synchronized (routes) {
            return List.copyOf(routes);
        }
    }

    /** Stops accepting requests and waits for those in progress. Idempotent. */
    public void stop() {
        app.stop();
    }

    @Override
    public void close() {
        stop();
    }

    private String displayHost() {
        return settings.host().contains(":") && !settings.host().startsWith("[")
                ? "[" + settings.host() + "]" : settings.host();
    }
}
