package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiServer;
import dev.tickwheel.server.metrics.AlertMetrics;
import dev.tickwheel.server.metrics.DispatchMetrics;
import dev.tickwheel.server.metrics.EngineMetrics;
import dev.tickwheel.server.metrics.RuntimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server: engine, metrics registry and HTTP API built from {@link ServerSettings}, started and stopped
 * in the right order. {@link Main} runs one; tests start one in-process on port 0.
 *
 * <p>Start: the engine opens (store, lock, wheels), then metrics, then the API; only then does the engine recover and
 * start loading (a job may call this very server), then the demo jobs ({@link DemoJobs}); without
 * {@code --demo}, demo jobs left in the store by an earlier start are removed before recovery. Stop: the API first (no new requests), then
 * the engine (loader, wheels, calls in flight, store); pending instances stay WAITING in the store.
 *
 * <p>Thread-safe. Lifecycle: {@link #start} once, {@link #close()} once (idempotent).
 */
public final class TickwheelApplication implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TickwheelApplication.class);

    private final ServerSettings settings;
    private final TickwheelServer engine;
    private final PrometheusMeterRegistry registry;
    private final RuntimeMetrics runtimeMetrics;
    private final ApiServer api;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private TickwheelApplication(ServerSettings settings, TickwheelServer engine, PrometheusMeterRegistry registry,
            RuntimeMetrics runtimeMetrics, ApiServer api) {
        this.settings = settings;
        this.engine = engine;
        this.registry = registry;
        this.runtimeMetrics = runtimeMetrics;
        this.api = api;
    }

    /** Builds and starts everything; on failure, whatever started is stopped again. */
    public static TickwheelApplication start(ServerSettings settings) {
        log.info("effective configuration: {}", settings.describe());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RuntimeMetrics runtimeMetrics = RuntimeMetrics.bind(registry);
        TickwheelServer.Builder builder = settings.engineBuilder().dispatchListener(new DispatchMetrics(registry))
                .storeSettings(store -> store.meterRegistry(registry));
        builder.alertListener(new AlertMetrics(registry));
        if (settings.demo()) {
            DemoJobs.addHandlers(builder);
        }
        TickwheelServer engine;
        try {
            engine = builder.build().open();
        } catch (RuntimeException | Error e) {
            runtimeMetrics.close();
            throw e;
        }
        ApiServer api = null;
        try {
            EngineMetrics.bind(registry, engine);
            api = new ApiServer(engine, settings.api(), registry::scrape, registry).start();
            TickwheelApplication app = new TickwheelApplication(settings, engine, registry, runtimeMetrics, api);
            engine.takeCallbacksAt(app.publicUrl());
            if (!settings.demo()) {
                // Before recovery, so that no instance of a demo job fires at a handler or endpoint that is absent.
                DemoJobs.removeAll(engine);
            }
            // Only now, with the listener up: recovery and the first loader pass may fire calls at this very server
            // (the demo's webhook is its own /demo/echo).
            engine.startScheduling();
            if (settings.demo()) {
                DemoJobs.register(engine, app.baseUrl());
            }
            return app;
        } catch (RuntimeException | Error e) {
            if (api != null) {
                api.stop();
            }
            engine.close();
            runtimeMetrics.close();
            throw e;
        }
    }

    public TickwheelServer engine() {
        return engine;
    }

    /** The base URL of the API, e.g. {@code http://127.0.0.1:7700}. */
    public String baseUrl() {
        return "http://" + reachableHost() + ":" + api.port();
    }

    /**
     * Where targets reach this server: the {@code public-url} setting, else {@code http://<host>:<port>}, with this
     * machine's name for a wildcard host (a target elsewhere cannot reach 127.0.0.1).
     */
    public String publicUrl() {
        if (settings.publicUrl() != null) {
            return settings.publicUrl();
        }
        String host = settings.api().host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            try {
                return "http://" + java.net.InetAddress.getLocalHost().getCanonicalHostName() + ":" + api.port();
            } catch (java.io.IOException unknownHost) {
                log.warn("this machine's name is unknown; callback URLs name 127.0.0.1: set public-url");
            }
        }
        return baseUrl();
    }

    /** Stops the API, then the engine. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            api.stop();
        } finally {
            engine.close();
            runtimeMetrics.close();
            registry.close();
        }
    }

    private String reachableHost() {
        return reachableHost(settings.api().host());
    }

    /** The host this machine reaches a server bound to {@code host} at: 127.0.0.1 for a wildcard. */
    static String reachableHost(String host) {
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            return "127.0.0.1";
        }
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
