package dev.tickwheel.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.AsyncJobHandler;
import dev.tickwheel.server.dispatch.InProcessHandlers;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.dispatch.JobHandler;
import dev.tickwheel.server.dispatch.TargetRouter;
import dev.tickwheel.server.dispatch.webhook.WebhookInvoker;
import dev.tickwheel.server.schedule.FixedDelayFollowUp;
import dev.tickwheel.server.schedule.InstanceLoader;
import dev.tickwheel.server.schedule.InstancePlanner;
import dev.tickwheel.server.schedule.StartupRecovery;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.store.jdbc.SingleServerLock;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
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
    /** How long {@link #close()} lets calls in flight end before it stops anyway. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Threads of the in-process handler pool: the most synchronous handler calls in flight. 64: a handler's slot is
     * taken before its claim, so the pool's size also bounds how many handler calls one claim statement carries;
     * handlers are usually I/O-bound; an idle thread costs little.
     */
    public static final int DEFAULT_HANDLER_THREADS = 64;

    private static final Logger log = LoggerFactory.getLogger(TickwheelServer.class);
    private static final String LOADER_TASK = "instance-loader";

    /** Where a server is in its life; moves forward only. */
    public enum Lifecycle {
        /** Built, nothing opened. */
        NEW,
        /** Store open and locked, wheels running; nothing recovered or loaded yet. */
        OPEN,
        /** Recovered and loading: instances fire. */
        RUNNING,
        /** Stopped; cannot be started again. */
        CLOSED
    }

    private final Config config;
    // Guards the lifecycle; compare-and-set so that open, startScheduling and close race safely.
    private final AtomicReference<Lifecycle> state = new AtomicReference<>(Lifecycle.NEW);
    private SingleServerLock serverLock;
    private TimeExpressionParser parser;
    private JobCatalog catalog;
    private MisfireResolver misfires;
    private InProcessHandlers handlers;
    private WebhookInvoker webhooks;
    private JdbcStores stores;
    private InstanceTimeWheelService wheel;
    private InstanceDispatcher dispatcher;
    private PeriodicTaskScheduler loaderThread;
    private InstanceLoader loader;
    // Written by the loader thread, read by metrics scrapes.
    private final java.util.concurrent.atomic.LongAdder loaderNanos = new java.util.concurrent.atomic.LongAdder();
    private JobService jobService;
    private InstanceService instanceService;

    private TickwheelServer(Config config) {
        this.config = config;
    }

    /**
     * The engine's configuration as {@link Builder#build()} checked it. Immutable (handler maps are copies).
     */
    public record Config(String jdbcUrl, Clock clock, Ticker ticker, int nodeId, Duration loaderPeriod,
                         Duration loadWindow, Duration misfireThreshold, int fireAllLimit, Duration callTimeout,
                         int maxCallsInFlight, int maxCallsPerHost, int handlerThreads, Duration stopTimeout,
                         Map<String, JobHandler> handlers, Map<String, AsyncJobHandler> asyncHandlers,
                         DispatchListener listener, Consumer<InstanceTimeWheelService.Builder> wheelSettings) {

        public Config {
            handlers = Map.copyOf(handlers);
            asyncHandlers = Map.copyOf(asyncHandlers);
        }
    }

    /** The configuration this server was built with. */
    public Config config() {
        return config;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Opens the store and starts dispatching: {@link #open()} then {@link #startScheduling()}. For an embedding
     * application; the standalone server starts its HTTP listener between the two.
     */
    public TickwheelServer start() {
        open();
        return startScheduling();
    }

    /**
     * Opens the store (running its migrations), takes the store's single-server lock and builds the wheels and the
     * dispatcher. Jobs can be created and run from now on; nothing fires before {@link #startScheduling()}.
     *
     * @throws dev.tickwheel.server.store.StoreInUseException if another server runs on the store
     */
    public TickwheelServer open() {
        if (!state.compareAndSet(Lifecycle.NEW, Lifecycle.OPEN)) {
            throw new IllegalStateException("TickwheelServer can be opened only once; it is " + state.get());
        }
        try {
            stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(config.jdbcUrl()).clock(config.clock()).build());
            serverLock = stores.lockForServer();
            JobStore jobs = stores.jobs();
            InstanceStore instances = stores.instances();
            InstanceTimeWheelService.Builder wheelBuilder = InstanceTimeWheelService.builder().ticker(config.ticker());
            config.wheelSettings().accept(wheelBuilder);
            wheel = wheelBuilder.build();
            SnowflakeIdGenerator ids = new SnowflakeIdGenerator(config.nodeId(), config.clock());
            parser = new TimeExpressionParser(config.clock());
            catalog = new JobCatalog(jobs, JobCatalog.DEFAULT_TTL);
            ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
            handlers = new InProcessHandlers(config.handlers(), config.asyncHandlers(), config.handlerThreads());
            // The pool is never the tighter bound: the call slots are.
            webhooks = WebhookInvoker.builder().json(json).maxConnections(config.maxCallsInFlight())
                    .maxConnectionsPerHost(Math.min(config.maxCallsPerHost(), config.maxCallsInFlight())).build();
            TargetRouter targets = new TargetRouter(handlers, webhooks, config.maxCallsPerHost(),
                    config.maxCallsInFlight());
            FixedDelayFollowUp followUp = new FixedDelayFollowUp(instances, ids);
            dispatcher = new InstanceDispatcher(instances, catalog, targets, wheel, config.clock(), config.listener(),
                    followUp, config.maxCallsInFlight(), config.callTimeout());
            followUp.bind(dispatcher);
            misfires = new MisfireResolver(config.fireAllLimit());
            loader = new InstanceLoader(jobs, instances, dispatcher, new InstancePlanner(config.misfireThreshold(),
                    misfires), parser, ids, config.clock(), config.loadWindow(), InstanceLoader.DEFAULT_PAGE_SIZE);
            jobService = new JobService(jobs, instances, catalog, loader, dispatcher, parser, ids, config.clock());
            instanceService = new InstanceService(instances, dispatcher);
            log.info("tickwheel server opened: store {}, node {}, calls in flight <= {} (<= {} per host, {} handler"
                    + " threads), call deadline {}", stores.redactedUrl(), config.nodeId(), config.maxCallsInFlight(),
                    config.maxCallsPerHost(), config.handlerThreads(), config.callTimeout());
            return this;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Recovers what the store holds ({@link StartupRecovery}: interrupted calls, one loader pass, waiting instances)
     * and starts the periodic loader.
     */
    public TickwheelServer startScheduling() {
        if (!state.compareAndSet(Lifecycle.OPEN, Lifecycle.RUNNING)) {
            throw new IllegalStateException("startScheduling needs an open server; it is " + state.get());
        }
        try {
            new StartupRecovery(stores.instances(), catalog, dispatcher, parser, misfires, config.clock(),
                    config.misfireThreshold()).run(this::timedCreateOnlyPass);
            loaderThread = new PeriodicTaskScheduler("loader", 1,
                    (task, failure) -> log.error("periodic task {} failed; it runs again next period", task, failure),
                    PeriodicTaskScheduler.DEFAULT_CLOSE_TIMEOUT);
            loaderThread.scheduleAtFixedRate(LOADER_TASK, this::timedLoaderPass, Duration.ZERO,
                    config.loaderPeriod());
            log.info("tickwheel server scheduling: loader every {} for the next {}, misfire threshold {}",
                    config.loaderPeriod(), config.loadWindow(), config.misfireThreshold());
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

    private void timedCreateOnlyPass() {
        long startNanos = System.nanoTime();
        try {
            loader.createDue();
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
        Lifecycle now = state.get();
        return (now == Lifecycle.OPEN || now == Lifecycle.RUNNING) && wheel != null && wheel.isRunning();
    }

    /** Names of the in-process handlers registered on the builder, for validating HANDLER targets. */
    public java.util.Set<String> handlerNames() {
        java.util.Set<String> names = new java.util.TreeSet<>(config.handlers().keySet());
        names.addAll(config.asyncHandlers().keySet());
        return names;
    }

    /** Whether the store answers a trivial query. */
    public boolean storeHealthy() {
        Lifecycle now = state.get();
        if (now != Lifecycle.OPEN && now != Lifecycle.RUNNING) {
            return false;
        }
        try (java.sql.Connection connection = stores.dataSource().getConnection()) {
            return connection.isValid(2);
        } catch (java.sql.SQLException | RuntimeException e) {
            log.warn("store health check failed: {}", e.toString());
            return false;
        }
    }

    private void requireStarted() {
        Lifecycle now = state.get();
        if (now != Lifecycle.OPEN && now != Lifecycle.RUNNING) {
            throw new IllegalStateException("TickwheelServer is not open; it is " + now);
        }
    }

    /** Where the server is in its life. */
    public Lifecycle lifecycle() {
        return state.get();
    }

    /** Instances armed in either wheel now. */
    public int pendingTimers() {
        requireStarted();
        return wheel.pendingCount();
    }

    /** Calls in flight now (admitted and not yet recorded). */
    public int callsInFlight() {
        requireStarted();
        return dispatcher.callsInFlight();
    }

    /** Fired instances waiting for a call slot. */
    public int waitingForCallSlot() {
        requireStarted();
        return dispatcher.waitingForSlot();
    }

    /** Stops loading and the wheels, then closes the store. Idempotent. */
    @Override
    public void close() {
        if (state.getAndSet(Lifecycle.CLOSED) == Lifecycle.CLOSED) {
            return;
        }
        if (loaderThread != null) {
            loaderThread.close();
        }
        if (wheel != null) {
            wheel.close();
        }
        if (dispatcher != null) {
            // After the wheel (nothing fires any more), before the store (outcomes still get written).
            dispatcher.close(config.stopTimeout());
        }
        if (handlers != null) {
            handlers.close(config.stopTimeout()); // then interrupts handlers still running
        }
        if (webhooks != null) {
            webhooks.close();
        }
        if (serverLock != null) {
            serverLock.close();
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
        private Duration callTimeout = InstanceDispatcher.DEFAULT_CALL_TIMEOUT;
        private int maxCallsInFlight = InstanceDispatcher.DEFAULT_MAX_CALLS_IN_FLIGHT;
        private int maxCallsPerHost = InstanceDispatcher.DEFAULT_MAX_CALLS_PER_HOST;
        private int handlerThreads = DEFAULT_HANDLER_THREADS;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
        private final Map<String, JobHandler> handlers = new HashMap<>();
        private final Map<String, AsyncJobHandler> asyncHandlers = new HashMap<>();
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

        /** Registers an in-process handler; it runs on the handler pool ({@link #handlerThreads}). */
        public Builder handler(String name, JobHandler handler) {
            checkHandlerName(name);
            handlers.put(name, Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /** Registers an asynchronous in-process handler: its stage, not a thread, holds the call's slot. */
        public Builder asyncHandler(String name, AsyncJobHandler handler) {
            checkHandlerName(name);
            asyncHandlers.put(name, Objects.requireNonNull(handler, "handler"));
            return this;
        }

        private void checkHandlerName(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("handler name must not be blank: '" + name + "'");
            }
            if (handlers.containsKey(name) || asyncHandlers.containsKey(name)) {
                throw new IllegalArgumentException("a handler is already registered under '" + name + "'");
            }
        }

        /** Threads of the pool that runs synchronous in-process handlers: the most such calls at once. */
        public Builder handlerThreads(int threads) {
            this.handlerThreads = range("handlerThreads", threads, 1, 10_000);
            return this;
        }

        /**
         * How long {@link TickwheelServer#close()} lets calls in flight end and records their outcomes; calls still
         * running then stay DISPATCHING and are made again on the next start (same key), or end INTERRUPTED
         * (AT_MOST_ONCE).
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = positive("stopTimeout", timeout);
            return this;
        }

        /** Calls in flight on this server, at most (webhooks and handlers together). */
        public Builder maxCallsInFlight(int calls) {
            this.maxCallsInFlight = range("maxCallsInFlight", calls, 1, 1_000_000);
            return this;
        }

        /** Calls in flight to one webhook host (scheme, host and port), at most. */
        public Builder maxCallsPerHost(int calls) {
            this.maxCallsPerHost = range("maxCallsPerHost", calls, 1, 1_000_000);
            return this;
        }

        private static int range(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ": " + value);
            }
            return value;
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

        /** The whole-call deadline of jobs that set none (webhooks and handlers alike). */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = positive("callTimeout", timeout);
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
            return new TickwheelServer(new Config(jdbcUrl, clock, ticker, nodeId, loaderPeriod, loadWindow,
                    misfireThreshold, fireAllLimit, callTimeout, maxCallsInFlight, maxCallsPerHost, handlerThreads,
                    stopTimeout, handlers, asyncHandlers, listener, wheelSettings));
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
