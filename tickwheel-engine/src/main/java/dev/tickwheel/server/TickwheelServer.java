package dev.tickwheel.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.cluster.ClusterBus;
import dev.tickwheel.server.cluster.LeaseKeeper;
import dev.tickwheel.server.cluster.PgClusterBus;
import dev.tickwheel.server.cluster.ShardListener;
import dev.tickwheel.server.dispatch.CallSlots;
import dev.tickwheel.server.dispatch.CallbackTokens;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.AsyncJobHandler;
import dev.tickwheel.server.dispatch.InProcessHandlers;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.dispatch.JobHandler;
import dev.tickwheel.server.dispatch.PoolCatalog;
import dev.tickwheel.server.dispatch.TargetRouter;
import dev.tickwheel.server.dispatch.alert.AlertListener;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.dispatch.alert.Alerter;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.dispatch.webhook.TransportSettings;
import dev.tickwheel.server.dispatch.webhook.WebhookInvoker;
import dev.tickwheel.server.dispatch.webhook.WebhookSigner;
import dev.tickwheel.server.dispatch.webhook.WebhookTransport;
import dev.tickwheel.server.schedule.CalendarCatalog;
import dev.tickwheel.server.schedule.FixedDelayFollowUp;
import dev.tickwheel.server.schedule.OwnerArming;
import dev.tickwheel.server.schedule.ForeignClaimSettler;
import dev.tickwheel.server.schedule.InstanceLoader;
import dev.tickwheel.server.schedule.InstancePlanner;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.schedule.RetentionStats;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.schedule.ShardRecovery;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.store.jdbc.CallerTransactions;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.store.jdbc.SingleServerLock;
import dev.tickwheel.server.store.jdbc.StoreProbe;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch engine: store, cluster membership, loaders, two-tier wheel and dispatcher, wired together.
 *
 * <p>Every server is a cluster member; one server is a one-node cluster. {@link #open()} opens the store (running its
 * migrations) and joins the cluster (a node id leased from the store unless one is set); {@link #startScheduling()}
 * starts the {@link LeaseKeeper}, which takes this member's share of the shards, and for each shard it comes to hold
 * the {@link ShardOwner} rebuilds the wheel from the store ({@link ShardRecovery}); the loader then runs every
 * {@code loaderPeriod} over the held shards, creating the instances due within {@code loadWindow}, and the
 * {@link RetentionPurge} deletes their finished instances past their retention, on a thread of its own. {@link #close()}
 * stops the loader and the wheels, lets calls end, releases the shards (another member takes them at once) and closes
 * the store; pending instances stay WAITING in the store.
 *
 * <p>Thread-safe. Lifecycle: start once, close once (close is idempotent).
 */
public final class TickwheelServer implements AutoCloseable {

    public static final Duration DEFAULT_LOADER_PERIOD = Duration.ofSeconds(15);
    public static final Duration DEFAULT_LOAD_WINDOW = Duration.ofSeconds(30);
    /**
     * How far ahead waiting instances are armed in memory: later ones wait in the store and are read as they come
     * within it, so memory follows the rate of instances, not the backlog. Two minutes is eight loader periods.
     */
    public static final Duration DEFAULT_ARM_HORIZON = Duration.ofMinutes(2);
    public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(5);
    /** How long {@link #startScheduling()} waits for the recovery of the shards held at start. */
    private static final Duration START_RECOVERY_BOUND = Duration.ofMinutes(2);
    /** How long {@link #close()} lets calls in flight end before it stops anyway. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The longest an API caller waits on the store: for a pooled connection, for its group commit, for the database's
     * answer to one read. Past it the call fails with a {@link dev.tickwheel.server.store.StoreException} (503).
     */
    public static final Duration DEFAULT_STORE_TIMEOUT = Duration.ofSeconds(2);
    /** The shortest store timeout: HikariCP refuses connection timeouts below 250 ms. */
    public static final Duration MIN_STORE_TIMEOUT = Duration.ofMillis(250);
    /**
     * Threads of the in-process handler pool: the most synchronous handler calls in flight. 256: a handler's slot is
     * taken before its claim, so the pool's size also bounds how many handler calls the claim statements in flight
     * carry; with 64 the claim thread was busy all the time with statements of a few dozen rows, each paying a
     * statement's fixed cost (docs/e2e-benchmark.md, "Store ceiling"). Handlers are usually I/O-bound; the pool
     * starts threads only as calls come and ends those idle for a minute.
     */
    public static final int DEFAULT_HANDLER_THREADS = 256;

    private static final Logger log = LoggerFactory.getLogger(TickwheelServer.class);
    private static final String LOADER_TASK = "instance-loader";
    private static final String RETENTION_TASK = "retention-purge";
    private static final String AUDIT_PURGE_TASK = "audit-purge";
    private static final Duration AUDIT_PURGE_INTERVAL = Duration.ofHours(1);
    /** The alerts' own transport: a handful of calls at a time, one I/O thread. */
    private static final TransportSettings ALERT_TRANSPORT = new TransportSettings(16, 16,
            WebhookInvoker.Builder.DEFAULT_IDLE_EVICTION, WebhookInvoker.Builder.DEFAULT_CONNECT_TIMEOUT, 1);

    /** Where a server is in its life; moves forward only. */
    public enum Lifecycle {
        /** Built, nothing opened. */
        NEW,
        /** Store open, cluster joined, wheels running; no shard held, nothing recovered or loaded yet. */
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
    private ClusterStore cluster;
    private volatile int nodeId = -1;
    private LeaseKeeper leases;
    private ClusterBus bus = ClusterBus.NONE;
    private ShardOwner owner;
    private TimeExpressionParser parser;
    private JobCatalog catalog;
    private PoolCatalog poolCatalog;
    private MisfireResolver misfires;
    private InProcessHandlers handlers;
    private WebhookInvoker webhooks;
    /** Failure alerts, on a transport of their own: an alert receiver never holds a connection instance calls need. */
    private WebhookTransport alertTransport;
    private Alerter alerter;
    private JdbcStores stores;
    /** Whether the database answers, for health; checked on its own thread. */
    private StoreProbe storeProbe;
    private InstanceTimeWheelService wheel;
    private InstanceDispatcher dispatcher;
    private PeriodicTaskScheduler loaderThread;
    private InstanceLoader loader;
    // Its own thread: a long purge run never delays loading, and loading never delays the purge.
    private PeriodicTaskScheduler retentionThread;
    private AccessService accessService;
    private AuditService auditService;
    private RetentionPurge retention;
    // Written by the loader thread, read by metrics scrapes.
    private final java.util.concurrent.atomic.LongAdder loaderNanos = new java.util.concurrent.atomic.LongAdder();
    private JobService jobService;
    private CalendarService calendarService;
    private PoolService poolService;
    private CallbackService callbackReports;
    private WorkflowService workflowService;
    private volatile CallbackTokens callbackTokens;
    private InstanceService instanceService;

    private TickwheelServer(Config config) {
        this.config = config;
    }

    /**
     * The engine's configuration as {@link Builder#build()} checked it. Immutable (handler maps are copies).
     */
    public record Config(String jdbcUrl, javax.sql.DataSource dataSource, String schemaHistoryTable,
                         CallerTransactions callerTransactions, Clock clock, Ticker ticker, OptionalInt nodeId, Duration leaseTtl,
                         Duration leaseRenewInterval, Duration loaderPeriod,
                         Duration loadWindow, Duration armHorizon, Duration misfireThreshold, int fireAllLimit, Duration callTimeout,
                         int maxCallsInFlight, int maxCallsPerHost, int handlerThreads, Duration stopTimeout,
                         Duration storeTimeout, Map<String, JobHandler> handlers,
                         Map<String, AsyncJobHandler> asyncHandlers, DispatchListener listener,
                         Consumer<InstanceTimeWheelService.Builder> wheelSettings,
                         Consumer<JdbcStoreConfig.Builder> storeSettings, RetentionPurge.Settings retention,
                         AlertSettings alerts, AlertListener alertListener, String callbackBaseUrl,
                         Duration auditRetention, SecretKeys secretKeys, OutboundGuard outboundGuard) {

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
            JdbcStoreConfig.Builder storeBuilder = JdbcStoreConfig.builder().jdbcUrl(config.jdbcUrl())
                    .clock(config.clock()).connectionTimeout(config.storeTimeout())
                    .callerNetworkTimeout(config.storeTimeout());
            if (config.dataSource() != null) {
                storeBuilder.dataSource(config.dataSource());
            }
            storeBuilder.schemaHistoryTable(config.schemaHistoryTable())
                    .callerTransactions(config.callerTransactions()).secretKeys(config.secretKeys());
            config.storeSettings().accept(storeBuilder);
            stores = JdbcStores.open(storeBuilder.build());
            storeProbe = stores.probe(StoreProbe.DEFAULT_ANSWER_BOUND, StoreProbe.DEFAULT_STALE_AFTER)
                    .start(StoreProbe.DEFAULT_INTERVAL);
            cluster = stores.cluster();
            if (cluster.singleProcess()) {
                serverLock = stores.lockForServer(); // H2: one server per store, and it says so
            }
            nodeId = cluster.join(config.nodeId(), describeMember(), config.leaseTtl());
            JobStore jobs = stores.jobs();
            InstanceStore instances = stores.instances();
            InstanceTimeWheelService.Builder wheelBuilder = InstanceTimeWheelService.builder().ticker(config.ticker());
            config.wheelSettings().accept(wheelBuilder);
            wheel = wheelBuilder.build();
            SnowflakeIdGenerator ids = new SnowflakeIdGenerator(nodeId, config.clock());
            parser = new TimeExpressionParser(config.clock());
            catalog = new JobCatalog(jobs, JobCatalog.DEFAULT_TTL);
            // The owner is built after the dispatcher, which needs the leases: the keeper reaches it through this.
            ShardListener toOwner = new ShardListener() {
                @Override
                public void acquired(Map<Integer, Long> shards) {
                    owner.acquired(shards);
                }

                @Override
                public void lost(Set<Integer> shards) {
                    owner.lost(shards);
                }

                @Override
                public boolean drained(Set<Integer> shards) {
                    return owner.drained(shards);
                }

                @Override
                public void evicted(RuntimeException cause) {
                    owner.evicted(cause);
                }
            };
            leases = new LeaseKeeper(cluster, nodeId, leaseSettings(), Ticker.systemTicker(), toOwner);
            ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
            Map<String, JobHandler> withTrigger = new HashMap<>(config.handlers());
            // Workflows' trigger jobs: the service exists by the time any job fires (scheduling starts later).
            withTrigger.put(WorkflowService.TRIGGER_HANDLER, context -> workflowService.trigger(context));
            handlers = new InProcessHandlers(withTrigger, config.asyncHandlers(), config.handlerThreads());
            // The pool is never the tighter bound: the call slots are.
            webhooks = WebhookInvoker.builder().json(json).clock(config.clock())
                    .outboundGuard(config.outboundGuard())
                    .maxConnections(config.maxCallsInFlight())
                    .maxConnectionsPerHost(Math.min(config.maxCallsPerHost(), config.maxCallsInFlight())).build();
            TargetRouter targets = new TargetRouter(handlers, webhooks, config.maxCallsPerHost(),
                    config.maxCallsInFlight());
            alertTransport = new WebhookTransport(ALERT_TRANSPORT, new WebhookSigner(config.clock()), "alert",
                    config.outboundGuard());
            alerter = new Alerter(config.alerts(), nodeId, config.clock(), alertTransport, config.callTimeout(),
                    config.alertListener());
            DispatchListener listener = DispatchListener.both(config.listener(), alerter);
            FixedDelayFollowUp followUp = new FixedDelayFollowUp(instances, ids, cluster.shardCount());
            poolCatalog = new PoolCatalog(stores.pools());
            dispatcher = new InstanceDispatcher(instances, catalog, poolCatalog, leases, targets, wheel,
                    config.clock(), listener, followUp, config.maxCallsInFlight(), config.callTimeout());
            followUp.bind(dispatcher);
            misfires = new MisfireResolver(config.fireAllLimit());
            if (!cluster.singleProcess()) {
                bus = new PgClusterBus(stores.dataSource(), PgClusterBus.channelOf(stores.dataSource()),
                        cluster.session());
            }
            OwnerArming arming = new OwnerArming(leases, dispatcher, bus);
            loader = new InstanceLoader(jobs, instances, arming, leases, new InstancePlanner(
                    config.misfireThreshold(), misfires), parser, ids, config.clock(), config.loadWindow(),
                    InstanceLoader.DEFAULT_PAGE_SIZE, listener, new CalendarCatalog(stores.calendars()), catalog);
            loaderThread = new PeriodicTaskScheduler("loader", 1,
                    (task, failure) -> log.error("loader task {} failed; it runs again next period", task, failure),
                    PeriodicTaskScheduler.DEFAULT_CLOSE_TIMEOUT);
            retention = new RetentionPurge(instances, jobs, leases, config.retention(), config.clock(),
                    Ticker.systemTicker());
            retentionThread = new PeriodicTaskScheduler("retention", 1,
                    (task, failure) -> log.error("{} failed; it runs again next period", task, failure),
                    PeriodicTaskScheduler.DEFAULT_CLOSE_TIMEOUT);
            owner = new ShardOwner(leases, jobs, instances, catalog, dispatcher, loader,
                    new ShardRecovery(instances, catalog, dispatcher, parser, misfires, config.clock(),
                            config.misfireThreshold(), config.armHorizon(), listener),
                    new ForeignClaimSettler(instances, catalog, dispatcher, config.callTimeout(),
                            cluster.singleProcess(), listener),
                    bus, arming, loaderThread, config.clock(), config.armHorizon(), this::closeAfterEviction);
            // The services answer API callers: their stores' reads, pool waits and group commits wait at most the
            // store timeout (the engine's own work keeps the unbounded reads of the engine's stores).
            AfterWrite afterWrite = new AfterWrite(stores.callerTransactions(), stores.dataSource());
            accessService = new AccessService(stores.access(), ids, config.clock());
            jobService = new JobService(stores.callerJobs(), stores.callerInstances(), owner, parser, ids,
                    config.clock(), config.storeTimeout(), afterWrite, stores.calendars(), stores.pools(),
                    config.outboundGuard(), accessService::namespaceOfJob);
            calendarService = new CalendarService(stores.calendars(), config.clock());
            auditService = new AuditService(stores.audit(), ids, config.clock(), config.storeTimeout(),
                    config.auditRetention());
            poolService = new PoolService(stores.pools(), config.clock(), poolCatalog::invalidate);
            instanceService = new InstanceService(stores.callerInstances(), stores.callerJobs(), owner, ids,
                    config.clock(), config.storeTimeout(), afterWrite);
            workflowService = new WorkflowService(stores.callerWorkflows(), stores.callerInstances(), instances,
                    stores.callerJobs(), owner, ids, config.clock());
            dispatcher.takeWorkflowSteps(ids::nextId, owner::stored);
            workflowService.useJobs(jobService);
            callbackTokens = new CallbackTokens(cluster.callbackKey());
            if (config.callbackBaseUrl() != null) {
                takeCallbacksAt(config.callbackBaseUrl());
            }
            CallbackTokens tokens = callbackTokens;
            callbackReports = new CallbackService(instances, catalog, dispatcher, owner, leases, bus, tokens,
                    new WebhookSigner(config.clock()), listener, followUp, config.clock(), ids::nextId);
            log.info("tickwheel server opened: store {}, node {} of a cluster of {} shards, calls in flight <= {}"
                    + " (<= {} per host, {} handler threads), call deadline {}, store timeout {}",
                    stores.redactedUrl(), nodeId, cluster.shardCount(), config.maxCallsInFlight(),
                    config.maxCallsPerHost(), config.handlerThreads(), config.callTimeout(), config.storeTimeout());
            log.info("failure alerts: {}", config.alerts());
            log.info("outbound guard of webhook and alert calls: {}", config.outboundGuard());
            return this;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private LeaseKeeper.Settings leaseSettings() {
        // The margin shrinks with short TTLs (tests, impatient operators): a fifth of the TTL at most.
        Duration margin = min(LeaseKeeper.DEFAULT_SAFETY_MARGIN, config.leaseTtl().dividedBy(5));
        return new LeaseKeeper.Settings(config.leaseTtl(), config.leaseRenewInterval(),
                min(LeaseKeeper.DEFAULT_CHECK_INTERVAL, config.leaseRenewInterval()), margin,
                LeaseKeeper.DEFAULT_MAX_DRAIN);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** What this member calls itself in the cluster's views: host and process id. */
    private static String describeMember() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "unknown-host";
        }
        String description = host + " pid " + ProcessHandle.current().pid();
        return description.length() <= 200 ? description : description.substring(0, 200);
    }

    /** Eviction: nothing this member does can be trusted any more (its IDs could collide); stop everything. */
    private void closeAfterEviction() {
        Thread stopper = new Thread(this::close, "tickwheel-evicted-stop");
        stopper.setDaemon(false);
        stopper.start();
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
            bus.start(owner::onEvent);
            leases.start(); // takes the free shards this member prefers; their recovery is queued on the loader thread
            owner.awaitLoaderThread(START_RECOVERY_BOUND);
            loaderThread.scheduleAtFixedRate(LOADER_TASK, this::timedLoaderPass, Duration.ZERO,
                    config.loaderPeriod());
            RetentionPurge.Settings kept = config.retention();
            retentionThread.scheduleAtFixedRate(RETENTION_TASK, retention::run, kept.interval(), kept.interval());
            retentionThread.scheduleAtFixedRate(AUDIT_PURGE_TASK, this::purgeAudit, AUDIT_PURGE_INTERVAL,
                    AUDIT_PURGE_INTERVAL);
            log.info("retention: finished instances kept {} days unless their job sets retentionDays; purged every {}"
                    + " in batches of {}", kept.defaultDays(), kept.interval(), kept.batchSize());
            log.info("tickwheel server scheduling: node {} holds {} of {} shards; loader every {} for the next {},"
                    + " misfire threshold {}", nodeId, leases.heldShards().size(), cluster.shardCount(),
                    config.loaderPeriod(), config.loadWindow(), config.misfireThreshold());
            return this;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting", e);
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

    /** Namespaces, API tokens and the namespace of each job. */
    public AccessService access() {
        requireStarted();
        return accessService;
    }

    /** The audit trail of changes made through the API. */
    public AuditService audit() {
        requireStarted();
        return auditService;
    }

    /**
     * The audit purge: entries past the retention, deleted by the member holding shard 0 (one member at a time, so
     * that two purges do not contend for the same rows).
     */
    private void purgeAudit() {
        if (leases.holds(0)) {
            long deleted = auditService.purge();
            if (deleted > 0) {
                log.info("audit: purged {} entries older than {}", deleted, auditService.retention());
            }
        }
    }

    /** Named calendars of excluded days, which CRON and FIXED_RATE jobs may name. */
    public CalendarService calendars() {
        requireStarted();
        return calendarService;
    }

    /** Named pools of concurrency and rate that jobs share. */
    public PoolService pools() {
        requireStarted();
        return poolService;
    }

    /**
     * Where targets of jobs completing by callback report from now on ({@link Builder#callbackBaseUrl}), for a server
     * that learns its public URL only once its HTTP listener is up: call it after {@link #open()}, before
     * {@link #startScheduling()}.
     */
    public void takeCallbacksAt(String baseUrl) {
        if (callbackTokens == null) {
            throw new IllegalStateException("takeCallbacksAt needs an open server; it is " + state.get());
        }
        String callbacksAt = checkedBaseUrl(baseUrl) + "/api/callbacks/";
        CallbackTokens tokens = callbackTokens;
        dispatcher.takeCallbacksAt(attempt -> callbacksAt + tokens.issue(attempt));
        log.info("callback reports of jobs completing by callback go to {}<token>", callbacksAt);
    }

    /** An absolute http(s) URL without a query, without its trailing slash. */
    private static String checkedBaseUrl(String url) {
        Objects.requireNonNull(url, "callbackBaseUrl");
        java.net.URI uri;
        try {
            uri = new java.net.URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("callbackBaseUrl must be an absolute http or https URL: " + url, e);
        }
        if (uri.getScheme() == null || !uri.getScheme().matches("(?i)https?") || uri.getHost() == null
                || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("callbackBaseUrl must be an absolute http or https URL without a"
                    + " query: " + url);
        }
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** Workflows of jobs and their runs. */
    public WorkflowService workflows() {
        requireStarted();
        return workflowService;
    }

    /** Reports of targets of jobs completing by callback, taken by the API's callback route. */
    public CallbackService callbacks() {
        requireStarted();
        return callbackReports;
    }

    /** The wheel, for metrics and health. */
    public InstanceTimeWheelService wheel() {
        requireStarted();
        return wheel;
    }

    /**
     * Runs the periodic pass now (it also runs every loader period): the loader, the horizon pass that arms what came
     * within the horizon, the foreign-claim settler and the sweep, on the loader thread; returns once it has run.
     *
     * @throws InterruptedException if interrupted while waiting for it
     */
    public void passNow() throws InterruptedException {
        requireStarted();
        loaderThread.runOnce("pass", this::timedLoaderPass);
        owner.awaitLoaderThread(START_RECOVERY_BOUND);
    }

    private void timedLoaderPass() {
        long startNanos = System.nanoTime();
        try {
            owner.periodicPass();
            callbackReports.sweep();
            workflowService.advance();
        } finally {
            loaderNanos.add(System.nanoTime() - startNanos);
        }
    }

    /**
     * Runs one retention run now, on the calling thread (it also runs every retention interval on its own): deletes
     * finished instances past their retention, in batches, up to the run's batch budget.
     *
     * @return instances deleted
     */
    public long purgeNow() {
        requireStarted();
        return retention.run();
    }

    /** The retention purge's counters (all zero before {@link #open()}); readable after close. */
    public RetentionStats retentionStats() {
        RetentionPurge purge = retention;
        return purge == null ? new RetentionStats(0, 0, 0, 0, 0) : purge.stats();
    }

    /** This member's node id (leased from the store unless set), or -1 before {@link #open()}. */
    public int nodeId() {
        return nodeId;
    }

    /** The lease keeper: shards held, renewals, take-overs (metrics, the cluster view). */
    public LeaseKeeper leases() {
        requireStarted();
        return leases;
    }

    /** Members and shard leases as the store sees them now. */
    public ClusterView clusterView() {
        requireStarted();
        return cluster.view();
    }

    /** Time spent in periodic loader passes since start, failed ones included. */
    public Duration loaderTotalTime() {
        return Duration.ofNanos(loaderNanos.sum());
    }

    /**
     * Runs and failures of the loader since start: zero until scheduling starts (the HTTP listener, and so health and
     * metrics, come up before it, during start-up recovery).
     */
    public dev.tickwheel.concurrent.PeriodicTaskStats loaderStats() {
        requireStarted();
        return loaderThread.stats(LOADER_TASK)
                .orElseGet(() -> new dev.tickwheel.concurrent.PeriodicTaskStats(LOADER_TASK, 0, 0));
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

    /**
     * Whether the store answered the store probe's last check ({@link StoreProbe}: {@code SELECT 1} every 250 ms on a
     * connection of its own, each answer awaited 500 ms at most, and the pool holding a connection). Never waits for
     * the database.
     */
    public boolean storeHealthy() {
        Lifecycle now = state.get();
        StoreProbe probe = storeProbe;
        return (now == Lifecycle.OPEN || now == Lifecycle.RUNNING) && probe != null && probe.up();
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

    /**
     * Tells {@code listener} each pool this member dispatches for, once (see {@link InstanceDispatcher#onPoolSeen}).
     */
    public void onPoolSeen(Consumer<String> listener) {
        requireStarted();
        dispatcher.onPoolSeen(listener);
    }

    /** A pool's calls in flight and instances waiting for it, on this member. */
    public CallSlots.PoolUsage poolUsage(String pool) {
        requireStarted();
        return dispatcher.poolUsage(pool);
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
        if (jobService != null) {
            jobService.close(); // first: queued single runs and cancels are written (or failed) while the store is up
        }
        if (instanceService != null) {
            instanceService.close();
        }
        if (auditService != null) {
            auditService.close();
        }
        if (loaderThread != null) {
            loaderThread.close();
        }
        if (retentionThread != null) {
            retentionThread.close(); // before the store: a run in progress ends its batch first
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
        if (alerter != null) {
            alerter.close(); // after the dispatcher: the last failures it wrote still alert
        }
        if (alertTransport != null) {
            alertTransport.close();
        }
        if (webhooks != null) {
            webhooks.close();
        }
        if (leases != null) {
            leases.close(); // after the outcomes are written (settles need the leases); other members take over now
        }
        bus.close();
        if (serverLock != null) {
            serverLock.close();
        }
        if (storeProbe != null) {
            storeProbe.close(); // before the store: an embedded H2 database closes with its last connection
        }
        if (stores != null) {
            stores.close();
        }
        log.info("tickwheel server stopped; its shards are released, pending instances stay WAITING in the store");
    }

    /**
     * Builds a {@link TickwheelServer}. Setters validate and name the setting and the value. Mutable, not
     * thread-safe.
     */
    public static final class Builder {
        private String jdbcUrl = JdbcStoreConfig.DEFAULT_JDBC_URL;
        private javax.sql.DataSource dataSource;
        private String schemaHistoryTable = JdbcStoreConfig.DEFAULT_SCHEMA_HISTORY_TABLE;
        private CallerTransactions callerTransactions = CallerTransactions.NONE;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private OptionalInt nodeId = OptionalInt.empty();
        private Duration leaseTtl = LeaseKeeper.DEFAULT_TTL;
        private Duration leaseRenewInterval = LeaseKeeper.DEFAULT_RENEW_INTERVAL;
        private Duration loaderPeriod = DEFAULT_LOADER_PERIOD;
        private Duration loadWindow = DEFAULT_LOAD_WINDOW;
        private Duration armHorizon = DEFAULT_ARM_HORIZON;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private int fireAllLimit = MisfireResolver.DEFAULT_FIRE_ALL_LIMIT;
        private Duration callTimeout = InstanceDispatcher.DEFAULT_CALL_TIMEOUT;
        private int maxCallsInFlight = InstanceDispatcher.DEFAULT_MAX_CALLS_IN_FLIGHT;
        private int maxCallsPerHost = InstanceDispatcher.DEFAULT_MAX_CALLS_PER_HOST;
        private int handlerThreads = DEFAULT_HANDLER_THREADS;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
        private Duration storeTimeout = DEFAULT_STORE_TIMEOUT;
        private final Map<String, JobHandler> handlers = new HashMap<>();
        private final Map<String, AsyncJobHandler> asyncHandlers = new HashMap<>();
        private DispatchListener listener = DispatchListener.NONE;
        private Consumer<InstanceTimeWheelService.Builder> wheelSettings = b -> { };
        private Consumer<JdbcStoreConfig.Builder> storeSettings = b -> { };
        private RetentionPurge.Settings retention = RetentionPurge.Settings.DEFAULTS;
        private AlertSettings alerts = AlertSettings.DEFAULTS;
        private AlertListener alertListener = AlertListener.NONE;
        private String callbackBaseUrl;
        private Duration auditRetention = AuditService.DEFAULT_RETENTION;
        private SecretKeys secretKeys = SecretKeys.NONE;
        private OutboundGuard outboundGuard = OutboundGuard.OFF;

        private Builder() {
        }

        /** How long audit entries are kept: 1 day to 10 years; default {@link AuditService#DEFAULT_RETENTION}. */
        public Builder auditRetention(Duration retention) {
            Objects.requireNonNull(retention, "auditRetention");
            if (retention.compareTo(Duration.ofDays(1)) < 0 || retention.compareTo(Duration.ofDays(3650)) > 0) {
                throw new IllegalArgumentException("auditRetention must be 1 day to 3650 days: " + retention);
            }
            this.auditRetention = retention;
            return this;
        }

        /**
         * The keys that encrypt the store's secrets at rest: jobs' signing secrets and the cluster's callback key,
         * with AES-256-GCM under the current key; previous keys only decrypt. At open the store refuses to start if
         * its secrets are under a key not given ({@link dev.tickwheel.server.store.SecretKeyMismatchException}), and
         * re-encrypts whatever is not under the current key. Default {@link SecretKeys#NONE}: secrets are kept as
         * given (a warning at open if a job has one). Make them with
         * {@code SecretKeys.parse(current, "secretKey", previous, "previousSecretKeys")}.
         */
        public Builder secretKeys(SecretKeys keys) {
            this.secretKeys = Objects.requireNonNull(keys, "secretKeys");
            return this;
        }

        /**
         * Which addresses webhook and alert calls may reach: checked when a job is created or changed (a refused
         * {@code target.url} or {@code alertUrl} throws {@link RefusedTargetException}), when this builder builds
         * (the alert URL of {@link #alerts}), and as each connection opens (a refused call fails its attempt, which
         * goes through the job's retry policy). Default {@link OutboundGuard#OFF}: the engine does not know where, or
         * whether, its API listens, so only the composition root can tell that callers are untrusted (the standalone
         * server turns the guard on when it binds a non-loopback address).
         */
        public Builder outboundGuard(OutboundGuard guard) {
            this.outboundGuard = Objects.requireNonNull(guard, "outboundGuard");
            return this;
        }

        /**
         * Where targets of jobs completing by callback reach this server: its public base URL (scheme, host, port and
         * the path the API is served under, e.g. {@code https://jobs.example.com}), to which
         * {@code /api/callbacks/<token>} is added. Without it, such jobs' attempts fail at once, saying so.
         */
        public Builder callbackBaseUrl(String url) {
            this.callbackBaseUrl = checkedBaseUrl(url);
            return this;
        }

        /** H2 ({@code jdbc:h2:…}) or PostgreSQL ({@code jdbc:postgresql:…}); default: H2 file under ./data. */
        public Builder jdbcUrl(String url) {
            JdbcStoreConfig.builder().jdbcUrl(url); // validates
            this.jdbcUrl = url;
            return this;
        }

        /**
         * Runs the store on this data source (H2 or PostgreSQL; an application's own) instead of a pool opened from
         * {@link #jdbcUrl}: the URL is then unused, and the store never closes the data source (close this server
         * first). The store's tables are created and migrated in its default schema. Long-lived connections it keeps:
         * the health probe's, and on PostgreSQL the cluster bus's {@code LISTEN} connection (H2: the single-server
         * lock's); size the pool for them and for the loader, claims and outcomes (10 more than the application's
         * own need is ample).
         */
        public Builder dataSource(javax.sql.DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /**
         * The table where the store's migrations are recorded (default {@code flyway_schema_history}, Flyway's). A table
         * of its own lets the store share a schema with an application that runs Flyway itself.
         */
        public Builder schemaHistoryTable(String table) {
            this.schemaHistoryTable = JdbcStoreConfig.builder().schemaHistoryTable(table).build().schemaHistoryTable();
            return this;
        }

        /**
         * Lets runs, cancels, reschedules and job changes join a transaction their caller has open on the store's
         * {@link #dataSource}: written in it, armed after it commits, gone if it rolls back (see
         * {@link CallerTransactions}; the Spring Boot starter sets Spring's). Default: every call commits on its own.
         */
        public Builder callerTransactions(CallerTransactions transactions) {
            this.callerTransactions = Objects.requireNonNull(transactions, "callerTransactions");
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

        /**
         * Node part of instance and job IDs, 0..1023. By default a free one is leased from the store at open; set one
         * only to pin it (the open fails if a live member holds it).
         */
        public Builder nodeId(int nodeId) {
            if (nodeId < 0 || nodeId > SnowflakeIdGenerator.MAX_NODE_ID) {
                throw new IllegalArgumentException(
                        "nodeId must be in 0.." + SnowflakeIdGenerator.MAX_NODE_ID + ": " + nodeId);
            }
            this.nodeId = OptionalInt.of(nodeId);
            return this;
        }

        /**
         * How long a shard lease (and this member's node id) lasts without renewal, by the database's clock: how soon
         * other members take over after this one dies or pauses.
         */
        public Builder leaseTtl(Duration ttl) {
            this.leaseTtl = positive("leaseTtl", ttl);
            return this;
        }

        /** How often the leases are renewed; must be well below the lease TTL (at most a third of it). */
        public Builder leaseRenewInterval(Duration interval) {
            this.leaseRenewInterval = positive("leaseRenewInterval", interval);
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
            if (name.equals(WorkflowService.TRIGGER_HANDLER)) {
                throw new IllegalArgumentException("'" + name + "' is reserved: it starts scheduled workflows");
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

        /**
         * The longest an API caller ({@link JobService}, {@link InstanceService}) waits on the store, at least 250 ms:
         * for a pooled connection (the pool's connection timeout, for the engine's work too), for its run's or
         * cancel's group commit, and for the database's answer to each read of its statements. Past it the call
         * throws a {@link dev.tickwheel.server.store.StoreException} (HTTP 503 {@code store_unavailable}); a write may
         * or may not have been made. Default {@link #DEFAULT_STORE_TIMEOUT}.
         */
        public Builder storeTimeout(Duration timeout) {
            positive("storeTimeout", timeout);
            if (timeout.compareTo(MIN_STORE_TIMEOUT) < 0 || timeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("storeTimeout must be " + MIN_STORE_TIMEOUT.toMillis() + ".."
                        + Integer.MAX_VALUE + " ms: " + timeout);
            }
            this.storeTimeout = timeout;
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

        /**
         * How far ahead waiting instances are armed in memory (at least twice the loader period): those due later
         * wait in the store, and each loader period arms the ones that came within it.
         */
        public Builder armHorizon(Duration horizon) {
            this.armHorizon = positive("armHorizon", horizon);
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

        /**
         * Adjusts the store (pool metrics, for one) before it is opened; the URL, the clock and the store timeout's
         * connection and network timeouts are set already (what this sets wins).
         */
        public Builder storeSettings(Consumer<JdbcStoreConfig.Builder> settings) {
            this.storeSettings = Objects.requireNonNull(settings, "storeSettings");
            return this;
        }

        /**
         * How long finished instances are kept (jobs may set their own {@code retentionDays}) and how the purge runs:
         * batch size, interval, batches per run. Default {@link RetentionPurge.Settings#DEFAULTS}.
         */
        public Builder retention(RetentionPurge.Settings settings) {
            this.retention = Objects.requireNonNull(settings, "retention");
            return this;
        }

        /**
         * Failure alerts: the server-wide alert URL and secret, the failure threshold and window, the rate limit.
         * Jobs with their own {@code alertUrl} get alerts whatever these say; the default has no server-wide URL.
         */
        public Builder alerts(AlertSettings settings) {
            this.alerts = Objects.requireNonNull(settings, "alerts");
            return this;
        }

        /** Told how each failure alert ended (metrics). */
        public Builder alertListener(AlertListener listener) {
            this.alertListener = Objects.requireNonNull(listener, "alertListener");
            return this;
        }

        public TickwheelServer build() {
            if (loadWindow.compareTo(loaderPeriod) <= 0) {
                throw new IllegalArgumentException("loadWindow (" + loadWindow
                        + ") must be longer than loaderPeriod (" + loaderPeriod
                        + "), or instances due between two passes would be created late");
            }
            if (armHorizon.compareTo(loaderPeriod.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("armHorizon (" + armHorizon + ") must be at least twice"
                        + " loaderPeriod (" + loaderPeriod + "), or an instance could come due between two passes"
                        + " before one armed it");
            }
            if (leaseRenewInterval.multipliedBy(3).compareTo(leaseTtl) > 0) {
                throw new IllegalArgumentException("leaseRenewInterval (" + leaseRenewInterval + ") must be at most a"
                        + " third of leaseTtl (" + leaseTtl + "), so that one slow renewal does not lose the leases");
            }
            outboundGuard.check(alerts.url()).ifPresent(refusal -> {
                throw new RefusedTargetException("alerts.url", refusal.message());
            });
            return new TickwheelServer(new Config(jdbcUrl, dataSource, schemaHistoryTable, callerTransactions, clock, ticker, nodeId, leaseTtl, leaseRenewInterval,
                    loaderPeriod, loadWindow, armHorizon,
                    misfireThreshold, fireAllLimit, callTimeout, maxCallsInFlight, maxCallsPerHost, handlerThreads,
                    stopTimeout, storeTimeout, handlers, asyncHandlers, listener, wheelSettings, storeSettings,
                    retention, alerts, alertListener, callbackBaseUrl, auditRetention,
                    secretKeys, outboundGuard));
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
