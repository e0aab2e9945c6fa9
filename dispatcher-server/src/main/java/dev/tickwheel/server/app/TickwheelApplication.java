package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.api.ApiServer;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.metrics.DispatchMetrics;
import dev.tickwheel.server.metrics.EngineMetrics;
import dev.tickwheel.server.metrics.RuntimeMetrics;
import dev.tickwheel.time.ScheduleSpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server: engine, metrics registry and HTTP API built from {@link ServerSettings}, started and stopped
 * in the right order. {@link Main} runs one; tests start one in-process on port 0.
 *
 * <p>Start: the engine opens (store, lock, wheels), then metrics, then the API; only then does the engine recover and
 * start loading (a job may call this very server), then the demo jobs. Stop: the API first (no new requests), then
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
        if (settings.demo()) {
            demoHandlers(builder);
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
            // Only now, with the listener up: recovery and the first loader pass may fire calls at this very server
            // (the demo's webhook is its own /demo/echo).
            engine.startScheduling();
            if (settings.demo()) {
                app.registerDemoJobs();
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
        String host = settings.api().host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            return "127.0.0.1";
        }
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static void demoHandlers(TickwheelServer.Builder builder) {
        builder.handler("demo-log", ctx -> log.info("demo: ran instance {} of '{}' (attempt {}, due {})",
                ctx.instanceId(), ctx.jobName(), ctx.attempt(), ctx.expectedTriggerTime()));
        builder.handler("demo-flaky", ctx -> {
            if (ThreadLocalRandom.current().nextInt(3) == 0) {
                throw new IllegalStateException("demo: simulated failure");
            }
            log.info("demo: flaky job succeeded on attempt {}", ctx.attempt());
        });
    }

    private void registerDemoJobs() {
        if (!engine.jobs().list(0, 1).items().isEmpty()) {
            log.info("demo: jobs already exist in the store; not adding more");
            return;
        }
        Target echo = Target.webhook(baseUrl() + "/demo/echo");
        engine.jobs().create(JobSpec.of("every 5 s (cron, webhook)", ScheduleSpec.cron("*/5 * * * * ?", "UTC"), echo));
        engine.jobs().create(JobSpec.of("every 7 s (fixed rate, handler)", ScheduleSpec.fixedRate(7_000, null),
                Target.handler("demo-log")));
        engine.jobs().create(JobSpec.of("flaky, 3 attempts (fixed delay)", ScheduleSpec.fixedDelay(4_000),
                Target.handler("demo-flaky")).withRetry(new RetryPolicy(3, 500)));
        var api = engine.jobs().create(JobSpec.of("on demand (API, webhook)", ScheduleSpec.api(), echo)
                .withParams("{\"hello\":\"world\"}"));
        engine.jobs().run(api.id(), 2_000, "{\"hello\":\"world\"}");
        engine.jobs().run(api.id(), 120_000, null);
        log.info("demo: 4 jobs registered; dashboard at {}/", baseUrl());
    }
}
