package dev.tickwheel.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.HandlerRegistry;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.dispatch.JobHandler;
import dev.tickwheel.server.dispatch.TargetRouter;
import dev.tickwheel.server.dispatch.WebhookInvoker;
import dev.tickwheel.server.schedule.FixedDelayFollowUp;
import dev.tickwheel.server.schedule.InstanceLoader;
import dev.tickwheel.server.schedule.InstancePlanner;
import dev.tickwheel.server.schedule.StartupRecovery;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch engine: store, loaders, two-tier wheel and dispatcher, wired together.
 *
 * <p>{@link #start()} opens the store (running its migrations), rebuilds the wheels from it
 * ({@link StartupRecovery}) and starts the loader, which every {@code loaderPeriod} creates the instances due within
 * {@code loadWindow}. {@link #close()} stops the loader and the wheels and closes the store; pending instances stay
 * WAITING in the store and are re-armed on the next start.
 *
 * <p>Thread-safe. Lifecycle: start once, close once (close is idempotent).
 */
public final class TickwheelServer implements AutoCloseable {

    public static final Duration DEFAULT_LOADER_PERIOD = Duration.ofSeconds(15);
    public static final Duration DEFAULT_LOAD_WINDOW = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(5);
    public static final int DEFAULT_NODE_ID = 0;

    private static final Logger log = LoggerFactory.getLogger(TickwheelServer.class);
    private static final String LOADER_TASK = "instance-loader";

    private final Builder config;
    // Guards the lifecycle: 0 new, 1 started, 2 closed.
    private final AtomicInteger state = new AtomicInteger();
    private JdbcStores stores;
    private InstanceTimeWheelService wheel;
    private InstanceDispatcher dispatcher;
    private WebhookInvoker webhooks;
    private PeriodicTaskScheduler loaderThread;
    private InstanceLoader loader;
    // Written by the loader thread, read by metrics scrapes.
    private final java.util.concurrent.atomic.LongAdder loaderNanos = new java.util.concurrent.atomic.LongAdder();
    private JobService jobService;
    private InstanceService instanceService;

    private TickwheelServer(Builder config) {
        this.config = config;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Opens the store, recovers pending instances and starts loading. */
    public TickwheelServer start() {
        if (!state.compareAndSet(0, 1)) {
            throw new IllegalStateException("TickwheelServer can be started only once");
        }
        try {
            stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(config.jdbcUrl).clock(config.clock).build());
            JobStore jobs = stores.jobs();
            InstanceStore instances = stores.instances();
            InstanceTimeWheelService.Builder wheelBuilder = InstanceTimeWheelService.builder().ticker(config.ticker);
            config.wheelSettings.accept(wheelBuilder);
            wheel = wheelBuilder.build();
            SnowflakeIdGenerator ids = new SnowflakeIdGenerator(config.nodeId, config.clock);
            TimeExpressionParser parser = new TimeExpressionParser(config.clock);
            JobCatalog catalog = new JobCatalog(jobs, JobCatalog.DEFAULT_TTL);
            ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
            webhooks = WebhookInvoker.builder().json(json).build();
            Duration webhookTimeout = config.webhookTimeout;
            // Temporary: waits for the asynchronous call until the dispatcher takes futures.
            TargetRouter targets = new TargetRouter(new HandlerRegistry(config.handlers),
                    (job, context) -> awaitWebhook(webhooks.invoke(job, context, webhookTimeout)));
            FixedDelayFollowUp followUp = new FixedDelayFollowUp(instances, ids);
            dispatcher = new InstanceDispatcher(instances, catalog, targets, wheel, config.clock,
                    config.listener, followUp);
            followUp.bind(dispatcher);
            InstancePlanner planner = new InstancePlanner(config.misfireThreshold,
                    new MisfireResolver(config.fireAllLimit));
            loader = new InstanceLoader(jobs, instances, dispatcher, planner, parser, ids, config.clock,
                    config.loadWindow, InstanceLoader.DEFAULT_PAGE_SIZE);
            jobService = new JobService(jobs, instances, catalog, loader, dispatcher, parser, ids, config.clock);
            instanceService = new InstanceService(instances, dispatcher);

            new StartupRecovery(instances, catalog, dispatcher, config.clock, config.misfireThreshold).run();
            loaderThread = new PeriodicTaskScheduler("loader", 1,
                    (task, failure) -> log.error("periodic task {} failed; it runs again next period", task, failure),
                    PeriodicTaskScheduler.DEFAULT_CLOSE_TIMEOUT);
            loaderThread.scheduleAtFixedRate(LOADER_TASK, this::timedLoaderPass, Duration.ZERO, config.loaderPeriod);
            log.info("tickwheel server started: store {}, node {}, loader every {} for the next {}, misfire threshold {}",
                    JdbcStoreConfig.builder().jdbcUrl(config.jdbcUrl).build().redactedJdbcUrl(), config.nodeId,
                    config.loaderPeriod, config.loadWindow, config.misfireThreshold);
            return this;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    public JobService jobs() {
        requireStarted();
        return jobService;
    }

    public InstanceService instances() {
        requireStarted();
        return instanceService;
    }

    /** The wheel, for metrics and health. */
    public InstanceTimeWheelService wheel() {
        requireStarted();
        return wheel;
    }

    /** Runs one loader pass now (it also runs every loader period). */
    public int loadNow() {
        requireStarted();
        return loader.loadDue();
    }

    private void timedLoaderPass() {
        long startNanos = System.nanoTime();
        try {
            loader.loadDue();
        } finally {
            loaderNanos.add(System.nanoTime() - startNanos);
        }
    }

    /** Time spent in periodic loader passes since start, failed ones included. */
    public Duration loaderTotalTime() {
        return Duration.ofNanos(loaderNanos.sum());
    }

    /** Runs and failures of the loader since start. */
    public dev.tickwheel.concurrent.PeriodicTaskStats loaderStats() {
        requireStarted();
        return loaderThread.stats(LOADER_TASK).orElseThrow();
    }

    /** True between {@link #start()} and {@link #close()}, while the wheels accept and fire timers. */
    public boolean wheelsRunning() {
        return state.get() == 1 && wheel != null && wheel.isRunning();
    }

    /** Names of the in-process handlers registered on the builder, for validating HANDLER targets. */
    public java.util.Set<String> handlerNames() {
        return java.util.Set.copyOf(config.handlers.keySet());
    }

    /** Whether the store answers a trivial query. */
    public boolean storeHealthy() {
        if (state.get() != 1) {
            return false;
        }
        try (java.sql.Connection connection = stores.dataSource().getConnection()) {
            return connection.isValid(2);
        } catch (java.sql.SQLException | RuntimeException e) {
            log.warn("store health check failed: {}", e.toString());
            return false;
        }
    }

    private static void awaitWebhook(java.util.concurrent.CompletableFuture<Void> call) throws Exception {
        try {
            call.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private void requireStarted() {
        if (state.get() != 1) {
            throw new IllegalStateException("TickwheelServer is not running");
        }
    }

    /** Stops loading and the wheels, then closes the store. Idempotent. */
    @Override
    public void close() {
        if (state.getAndSet(2) == 2) {
            return;
        }
        if (loaderThread != null) {
            loaderThread.close();
        }
        if (wheel != null) {
            wheel.close();
        }
        if (dispatcher != null) {
            dispatcher.close(); // after the wheel: nothing fires any more; before the store: outcomes get written
        }
        if (webhooks != null) {
            webhooks.close();
        }
        if (stores != null) {
            stores.close();
        }
        log.info("tickwheel server stopped; pending instances stay WAITING in the store");
    }

    /**
     * Builds a {@link TickwheelServer}. Setters validate and name the setting and the value. Mutable, not
     * thread-safe.
     */
    public static final class Builder {
        private String jdbcUrl = JdbcStoreConfig.DEFAULT_JDBC_URL;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private int nodeId = DEFAULT_NODE_ID;
        private Duration loaderPeriod = DEFAULT_LOADER_PERIOD;
        private Duration loadWindow = DEFAULT_LOAD_WINDOW;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private int fireAllLimit = MisfireResolver.DEFAULT_FIRE_ALL_LIMIT;
        private Duration webhookTimeout = WebhookInvoker.DEFAULT_TIMEOUT;
        private final Map<String, JobHandler> handlers = new HashMap<>();
        private DispatchListener listener = DispatchListener.NONE;
        private Consumer<InstanceTimeWheelService.Builder> wheelSettings = b -> { };

        private Builder() {
        }

        /** H2 ({@code jdbc:h2:…}) or PostgreSQL ({@code jdbc:postgresql:…}); default: H2 file under ./data. */
        public Builder jdbcUrl(String url) {
            JdbcStoreConfig.builder().jdbcUrl(url); // validates
            this.jdbcUrl = url;
            return this;
        }

        /** Wall clock for trigger times (cron, zones, store timestamps). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Monotonic time for the wheels. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Node part of instance and job IDs, 0..1023; distinct per server sharing a store. */
        public Builder nodeId(int nodeId) {
            if (nodeId < 0 || nodeId > SnowflakeIdGenerator.MAX_NODE_ID) {
                throw new IllegalArgumentException(
                        "nodeId must be in 0.." + SnowflakeIdGenerator.MAX_NODE_ID + ": " + nodeId);
            }
            this.nodeId = nodeId;
            return this;
        }

        public Builder handler(String name, JobHandler handler) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("handler name must not be blank: '" + name + "'");
            }
            if (handlers.putIfAbsent(name, Objects.requireNonNull(handler, "handler")) != null) {
                throw new IllegalArgumentException("a handler is already registered under '" + name + "'");
            }
            return this;
        }

        public Builder loaderPeriod(Duration period) {
            this.loaderPeriod = positive("loaderPeriod", period);
            return this;
        }

        public Builder loadWindow(Duration window) {
            this.loadWindow = positive("loadWindow", window);
            return this;
        }

        /** A trigger time older than this when loaded or recovered is a misfire; younger ones just fire late. */
        public Builder misfireThreshold(Duration threshold) {
            this.misfireThreshold = positive("misfireThreshold", threshold);
            return this;
        }

        public Builder fireAllLimit(int limit) {
            if (limit < 1) {
                throw new IllegalArgumentException("fireAllLimit must be at least 1: " + limit);
            }
            this.fireAllLimit = limit;
            return this;
        }

        public Builder webhookTimeout(Duration timeout) {
            this.webhookTimeout = positive("webhookTimeout", timeout);
            return this;
        }

        public Builder dispatchListener(DispatchListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Adjusts the wheel (sizes, threshold, dispatch threads) before it is built. */
        public Builder wheelSettings(Consumer<InstanceTimeWheelService.Builder> settings) {
            this.wheelSettings = Objects.requireNonNull(settings, "wheelSettings");
            return this;
        }

        public TickwheelServer build() {
            if (loadWindow.compareTo(loaderPeriod) <= 0) {
                throw new IllegalArgumentException("loadWindow (" + loadWindow
                        + ") must be longer than loaderPeriod (" + loaderPeriod
                        + "), or instances due between two passes would be created late");
            }
            return new TickwheelServer(this);
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
