package dev.tickwheel.server.store.jdbc;

import com.google.common.base.Ticker;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.tickwheel.server.store.AccessStore;
import dev.tickwheel.server.store.AuditStore;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.CalendarStore;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.PoolStore;
import dev.tickwheel.server.store.SecretBox;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the JDBC store: picks the dialect from the URL, starts a HikariCP pool, brings the schema up to date with
 * the Flyway migrations shipped in this jar ({@link #migrations}), reads the store's shard count, on PostgreSQL
 * makes sure the history has its partitions for today and the next days ({@link HistoryPartitions}), checks and
 * re-encrypts the secrets at rest under the configured keys ({@link SecretsAtRest}), and hands out
 * the {@link JobStore}, {@link InstanceStore} and {@link ClusterStore} over that pool, all three acting as one cluster
 * member: one session, the fence token of every claim and settle.
 * The job and instance stores come twice: the engine's, and the callers' ({@link #callerJobs()},
 * {@link #callerInstances()}), whose reads wait at most {@link JdbcStoreConfig#callerNetworkTimeout()} for the
 * database. {@link #probe()} builds the health check's {@link StoreProbe}. {@link #close()} closes the pool.
 *
 * <pre>{@code
 * try (JdbcStores stores = JdbcStores.open(JdbcStoreConfig.DEFAULT_JDBC_URL)) {
 *     stores.jobs().insert(job);
 * }
 * }</pre>
 *
 * <p>Thread-safe: the stores may be shared by any number of threads; {@link #close()} should be called once no
 * call is in flight.
 *
 * <p>Caveats: several servers may open the same PostgreSQL database at once (Flyway serialises migrations with a
 * lock); an H2 file can be opened by one process only.
 */
public final class JdbcStores implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JdbcStores.class);

    /** The pool the store opened, or the application's data source ({@link JdbcStoreConfig#dataSource()}). */
    private final DataSource dataSource;
    /** The pool the store opened and closes; null on the application's data source. */
    private final HikariDataSource ownPool;
    private final SqlDialect dialect;
    private final JobStore jobs;
    private final InstanceStore instances;
    private final JobStore callerJobs;
    private final JdbcCalendarStore calendars;
    private final JdbcPoolStore pools;
    private final JdbcAccessStore access;
    private final JdbcAuditStore audit;
    private final JdbcWorkflowStore callerWorkflows;
    private final InstanceStore callerInstances;
    private final ClusterStore cluster;
    private final String redactedUrl;
    private final JdbcStoreConfig config;
    /** The engine's fence, for {@link InstancePathStatements}, which runs the engine's statements outside a store. */
    private final Fence fence;
    private final int shardCount;

    private JdbcStores(DataSource dataSource, HikariDataSource ownPool, SqlDialect dialect, String redactedUrl,
                       JdbcStoreConfig config, int shardCount, long session, HistoryPartitions partitions) {
        this.dataSource = dataSource;
        this.ownPool = ownPool;
        this.redactedUrl = redactedUrl;
        this.dialect = dialect;
        this.config = config;
        TransactionRunner runner = new TransactionRunner(dataSource, Duration.ZERO);
        TransactionRunner callerRunner = new TransactionRunner(dataSource, config.callerNetworkTimeout(),
                config.callerTransactions());
        DatabaseClock leaseClock = new DatabaseClock(dialect, config.leaseClock());
        Fence fence = new Fence(session, leaseClock);
        this.fence = fence;
        this.shardCount = shardCount;
        SecretBox secrets = new SecretBox(config.secretKeys());
        this.jobs = new JdbcJobStore(runner, dialect, config.clock(), shardCount, secrets);
        this.calendars = new JdbcCalendarStore(runner);
        this.pools = new JdbcPoolStore(runner);
        this.access = new JdbcAccessStore(callerRunner);
        this.audit = new JdbcAuditStore(callerRunner);
        this.callerWorkflows = new JdbcWorkflowStore(callerRunner);
        this.instances = new JdbcInstanceStore(runner, dialect, config.clock(), shardCount, fence, partitions);
        this.callerJobs = new JdbcJobStore(callerRunner, dialect, config.clock(), shardCount, secrets);
        this.callerInstances = new JdbcInstanceStore(callerRunner, dialect, config.clock(), shardCount, fence,
                partitions);
        // H2 is single-process: its file lock admits one process (an in-memory database, one JVM). Caveat: two
        // processes on one H2 TCP server are kept apart only by SingleServerLock; each join would end the other.
        this.cluster = new JdbcClusterStore(runner, dialect, leaseClock, session, shardCount,
                dialect.name().equals("h2"), secrets);
    }

    /** Opens the store at {@code jdbcUrl} with the default pool settings and the system UTC clock. */
    public static JdbcStores open(String jdbcUrl) {
        return open(JdbcStoreConfig.builder().jdbcUrl(jdbcUrl).build());
    }

    /**
     * Opens the store: pool, migrations, stores. On failure nothing stays open.
     *
     * @throws org.flywaydb.core.api.FlywayException if the schema cannot be migrated
     * @throws RuntimeException                      from HikariCP if the database cannot be reached
     */
    public static JdbcStores open(JdbcStoreConfig config) {
        if (config.external()) {
            String url = urlOf(config.dataSource());
            if (url.startsWith("jdbc:h2:") && !url.startsWith("jdbc:h2:mem:")
                    && !url.toUpperCase(java.util.Locale.ROOT).contains("DB_CLOSE_ON_EXIT=FALSE")) {
                log.warn("the application's H2 database {} closes itself at JVM exit, before the application stops:"
                        + " outcomes of calls in flight at a stop may be lost (made again at the next start);"
                        + " add ;DB_CLOSE_ON_EXIT=FALSE to its URL", url);
            }
            return open(config, config.dataSource(), null, SqlDialect.forJdbcUrl(url),
                    JdbcStoreConfig.redacted(url) + " (the application's data source)");
        }
        HikariDataSource pool;
        try {
            refuseH2FileInUse(config);
            pool = new HikariDataSource(hikariConfig(config));
        } catch (RuntimeException e) {
            throw inUse(e, config).orElseThrow(() -> e);
        }
        return open(config, pool, pool, SqlDialect.forJdbcUrl(config.jdbcUrl()), config.redactedJdbcUrl());
    }

    /** The JDBC URL of an application's data source, from a connection's metadata (for the dialect and the logs). */
    private static String urlOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return connection.getMetaData().getURL();
        } catch (SQLException e) {
            throw new dev.tickwheel.server.store.StoreException("cannot connect to the application's data source: "
                    + e.getMessage(), e);
        }
    }

    private static JdbcStores open(JdbcStoreConfig config, DataSource dataSource, HikariDataSource ownPool,
                                   SqlDialect dialect, String redactedUrl) {
        try {
            int applied = migrations(dataSource, config.schemaHistoryTable()).load().migrate().migrationsExecuted;
            int shardCount;
            try (Connection connection = dataSource.getConnection()) {
                shardCount = readShardCount(connection);
            }
            HistoryPartitions partitions = HistoryPartitions.none();
            if (dialect.partitionsHistory()) {
                partitions = HistoryPartitions.of(new TransactionRunner(dataSource, Duration.ZERO));
                partitions.load();
                partitions.createAhead(config.clock().instant());
            }
            // Before any store reads a secret: refuses keys that do not match, re-encrypts under the current one.
            new SecretsAtRest(new TransactionRunner(dataSource, Duration.ZERO), new SecretBox(config.secretKeys()))
                    .prepare();
            long session = config.sessionForOpen();
            log.info("Store opened: dialect={}, url={}, maxPoolSize={}, connectionTimeout={},"
                    + " callerNetworkTimeout={}, migrationsApplied={} (history in {}), shards={}, session={},"
                    + " secretKeys={}{}",
                    dialect.name(), redactedUrl, ownPool == null ? "the application's" : config.maxPoolSize(),
                    config.connectionTimeout(), config.callerNetworkTimeout(), applied, config.schemaHistoryTable(),
                    shardCount, session, config.secretKeys(),
                    config.leaseClock() == null ? "" : ", leaseClock=" + config.leaseClock() + " (tests only)");
            return new JdbcStores(dataSource, ownPool, dialect, redactedUrl, config, shardCount, session,
                    partitions);
        } catch (SQLException e) {
            closeQuietly(ownPool);
            throw new dev.tickwheel.server.store.StoreException("cannot read the shard count of "
                    + redactedUrl + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(ownPool);
            throw e;
        }
    }

    private static void closeQuietly(HikariDataSource pool) {
        if (pool != null) {
            pool.close();
        }
    }

    /**
     * The schema's migrations: the SQL files shipped in this jar ({@code dev/tickwheel/store/migration}, not Flyway's
     * default {@code db/migration}, where an application's own Flyway would find them too) and the Java steps
     * {@link ShardsOfExistingRows} (3.1), {@link RunKeyColumn} (7), {@link WaitingDueIndex} (8) and
     * {@link PartitionedHistory} (9), with their history in {@code historyTable}. In a table of its own (beside an application that
     * runs Flyway itself in the same schema), the store's history starts with a baseline at version 0, so that the
     * application's tables do not stop Flyway (which refuses a non-empty schema without a history) and every one of
     * the store's migrations still runs.
     */
    static FluentConfiguration migrations(DataSource dataSource, String historyTable) {
        FluentConfiguration flyway = Flyway.configure().dataSource(dataSource).table(historyTable);
        if (!historyTable.equals(JdbcStoreConfig.DEFAULT_SCHEMA_HISTORY_TABLE)) {
            flyway.baselineOnMigrate(true).baselineVersion("0")
                    .baselineDescription("Tickwheel migrations start after this");
        }
        return flyway
                .locations("classpath:dev/tickwheel/store/migration")
                .javaMigrations(new ShardsOfExistingRows(ShardsOfExistingRows.DEFAULT_PAGE_SIZE), new RunKeyColumn(),
                        new WaitingDueIndex(), new PartitionedHistory());
    }

    private static HikariConfig hikariConfig(JdbcStoreConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(connectionUrl(config.jdbcUrl()));
        if (config.username() != null) {
            hikari.setUsername(config.username());
        }
        if (config.password() != null) {
            hikari.setPassword(config.password());
        }
        hikari.setPoolName(config.poolName());
        hikari.setMaximumPoolSize(config.maxPoolSize());
        // A fixed-size pool: the dispatcher's load comes in bursts, and opening connections mid-burst is slow.
        hikari.setMinimumIdle(config.maxPoolSize());
        hikari.setConnectionTimeout(config.connectionTimeout().toMillis());
        hikari.setAutoCommit(true);
        // Fail at open, not at the first call, when the database is unreachable.
        hikari.setInitializationFailTimeout(config.connectionTimeout().toMillis());
        if (config.meterRegistry() != null) {
            hikari.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(config.meterRegistry()));
        }
        return hikari;
    }

    /** The job store over this pool. */
    public JobStore jobs() {
        return jobs;
    }

    /** Namespaces, API tokens and the namespaces of jobs, read with the callers' timeout. */
    public AccessStore access() {
        return access;
    }

    /** The audit trail, with the callers' timeout. */
    public AuditStore audit() {
        return audit;
    }

    /** The calendar store over this pool. */
    public CalendarStore calendars() {
        return calendars;
    }

    /** Workflow definitions for API callers: every statement bounded by the caller network timeout. */
    public dev.tickwheel.server.store.WorkflowStore callerWorkflows() {
        return callerWorkflows;
    }

    /** The store of named instance pools ({@code tw_pool}), over this connection pool. */
    public PoolStore pools() {
        return pools;
    }

    /** The instance store over this pool. */
    public InstanceStore instances() {
        return instances;
    }

    /** The job store for API callers: its reads wait at most {@link JdbcStoreConfig#callerNetworkTimeout()}. */
    public JobStore callerJobs() {
        return callerJobs;
    }

    /** The instance store for API callers: its reads wait at most {@link JdbcStoreConfig#callerNetworkTimeout()}. */
    public InstanceStore callerInstances() {
        return callerInstances;
    }

    /**
     * A health check of this database on a connection of its own (not the pool's), and of the pool's connection count,
     * not yet started: see {@link StoreProbe}. Its connection is opened with the store's URL and credentials; on
     * PostgreSQL the connect is bounded by the driver's login timeout ({@code answerBound}; the TCP connect alone by
     * at least 1 s, the driver's unit).
     */
    public StoreProbe probe(Duration answerBound, Duration staleAfter) {
        if (ownPool == null) {
            // The application's data source: the probe borrows from it (there is no URL of our own to connect to).
            return new StoreProbe(dataSource::getConnection, () -> true, answerBound, staleAfter,
                    Ticker.systemTicker());
        }
        String url = connectionUrl(config.jdbcUrl());
        Properties properties = new Properties();
        if (config.username() != null) {
            properties.setProperty("user", config.username());
        }
        if (config.password() != null) {
            properties.setProperty("password", config.password());
        }
        if (dialect instanceof PostgresDialect) {
            // pgjdbc: loginTimeout in (fractional) seconds bounds the whole connect; connectTimeout whole seconds.
            properties.setProperty("loginTimeout", Double.toString(answerBound.toMillis() / 1000.0));
            properties.setProperty("connectTimeout", Long.toString(Math.max(1, answerBound.toSeconds())));
            properties.setProperty("ApplicationName", "tickwheel-store-probe");
        }
        return new StoreProbe(() -> DriverManager.getConnection(url, properties), this::poolHasConnections,
                answerBound, staleAfter, Ticker.systemTicker());
    }

    /** Whether the pool holds a connection now, in use or idle (HikariCP's own count; never waits). */
    private boolean poolHasConnections() {
        HikariPoolMXBean pool = ownPool.getHikariPoolMXBean();
        return pool != null && pool.getTotalConnections() > 0;
    }

    /** This member's view of cluster membership and shard leases. */
    public ClusterStore cluster() {
        return cluster;
    }

    /** Reads {@code tw_cluster.shard_count}. */
    static int readShardCount(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_SHARD_COUNT);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("tw_cluster has no row: the schema's cluster migration did not run");
            }
            return rs.getInt(1);
        }
    }

    /**
     * Takes the lock a running server holds on its store; a second server on the same store gets
     * {@link dev.tickwheel.server.store.StoreInUseException}. Closing the returned lock, or this pool, releases it.
     */
    public SingleServerLock lockForServer() {
        return SingleServerLock.acquire(dataSource, redactedUrl);
    }

    /** The JDBC URL with any password removed, for logs. */
    public String redactedUrl() {
        return redactedUrl;
    }

    /** The callers' transactions that {@link #callerJobs()} and {@link #callerInstances()} join. */
    public CallerTransactions callerTransactions() {
        return config.callerTransactions();
    }

    /** The pooled data source, for components that need their own SQL (cluster leases, health checks). */
    public DataSource dataSource() {
        return dataSource;
    }

    SqlDialect dialect() {
        return dialect;
    }

    Fence fence() {
        return fence;
    }

    int shardCount() {
        return shardCount;
    }

    JdbcStoreConfig config() {
        return config;
    }

    /** Closes the pool; calls in flight may fail. Idempotent. */
    @Override
    public void close() {
        if (ownPool != null && !ownPool.isClosed()) {
            ownPool.close();
            log.info("Store closed: dialect={}", dialect.name());
        }
    }

    /**
     * Opens an H2 file database once before the pool does: if another process has it, H2 refuses at once, and the
     * refusal becomes one clear {@link dev.tickwheel.server.store.StoreInUseException} rather than the pool's logged
     * stack trace.
     */
    private static void refuseH2FileInUse(JdbcStoreConfig config) {
        String url = config.jdbcUrl();
        if (!url.startsWith("jdbc:h2:") || url.startsWith("jdbc:h2:mem:") || url.startsWith("jdbc:h2:tcp:")) {
            return;
        }
        try (java.sql.Connection probe = java.sql.DriverManager.getConnection(url,
                config.username() == null ? "" : config.username(),
                config.password() == null ? "" : config.password())) {
            probe.isValid(1);
        } catch (java.sql.SQLException e) {
            RuntimeException wrapped = new dev.tickwheel.server.store.StoreException("cannot open " + url, e);
            throw inUse(wrapped, config).orElse(wrapped);
        }
    }

    /** H2's "Database may be already in use" (another process has the file), as one clear sentence. */
    private static java.util.Optional<RuntimeException> inUse(RuntimeException e, JdbcStoreConfig config) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException sql && sql.getErrorCode() == 90020) { // DATABASE_ALREADY_OPEN_1
                return java.util.Optional.of(new dev.tickwheel.server.store.StoreInUseException("the H2 database "
                        + config.redactedJdbcUrl() + " is in use by another process (another Tickwheel server?);"
                        + " H2 serves one server: stop the other one, or use PostgreSQL", e));
            }
        }
        return java.util.Optional.empty();
    }

    /** The URL the pool (and the probe) connect with: {@link #durableUrl} and {@link #closedByServerUrl} applied. */
    private static String connectionUrl(String jdbcUrl) {
        return closedByServerUrl(durableUrl(jdbcUrl));
    }

    /**
     * H2 writes committed changes to its file up to 500 ms later by default (WRITE_DELAY), so a killed process can
     * forget a claim it had committed and dispatch the instance again after a restart. The store is the source of
     * truth: unless the URL sets it, commits are written at once.
     */
    static String durableUrl(String jdbcUrl) {
        boolean h2File = jdbcUrl.startsWith("jdbc:h2:") && !jdbcUrl.startsWith("jdbc:h2:mem:");
        return h2File ? withSettingUnlessSet(jdbcUrl, "WRITE_DELAY", "0") : jdbcUrl;
    }

    /**
     * An embedded H2 database closes itself in a JVM shutdown hook of its own, which races the server's hook: on
     * Ctrl-C or SIGTERM the store could be closed before the server released its leases and stopped its calls
     * ("Database is already closed"). Unless the URL sets it, the server's own {@link #close()} closes it.
     */
    static String closedByServerUrl(String jdbcUrl) {
        boolean embedded = jdbcUrl.startsWith("jdbc:h2:") && !jdbcUrl.startsWith("jdbc:h2:tcp:")
                && !jdbcUrl.startsWith("jdbc:h2:ssl:");
        return embedded ? withSettingUnlessSet(jdbcUrl, "DB_CLOSE_ON_EXIT", "FALSE") : jdbcUrl;
    }

    /** An H2 URL with {@code ;name=value} appended, unless the URL already names the setting. */
    private static String withSettingUnlessSet(String jdbcUrl, String name, String value) {
        return jdbcUrl.toUpperCase(java.util.Locale.ROOT).contains(name) ? jdbcUrl : jdbcUrl + ";" + name + "=" + value;
    }
}
