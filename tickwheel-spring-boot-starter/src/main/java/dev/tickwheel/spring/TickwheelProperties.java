package dev.tickwheel.spring;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.store.SecretKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code tickwheel.*} properties: one per setting of {@link TickwheelServer.Builder}, with the builder's defaults
 * (written as literals, so that the configuration metadata shows them; a test compares them with the builder's), plus
 * where the store lives and the web mount. Durations take Spring's forms ({@code 15s}, {@code 500ms}, {@code PT2M}).
 * Bound once at start-up; the builder validates every value and names the bad one.
 */
@ConfigurationProperties(prefix = "tickwheel")
public class TickwheelProperties {

    /** Whether Tickwheel is configured at all; false makes no Tickwheel bean. */
    private boolean enabled = true;
    /** Node part of instance and job IDs, 0..1023; unset, a free one is leased from the store. */
    private Integer nodeId;
    /** How long a shard lease lasts without renewal: how soon other members take over after this one dies. */
    private Duration leaseTtl = Duration.ofSeconds(5);
    /** How often the leases are renewed; at most a third of the lease TTL. */
    private Duration leaseRenewInterval = Duration.ofSeconds(1);
    /** How often the loader creates the instances due within the load window. */
    private Duration loaderPeriod = Duration.ofSeconds(15);
    /** How far ahead the loader creates instances; longer than the loader period. */
    private Duration loadWindow = Duration.ofSeconds(30);
    /** How far ahead waiting instances are armed in memory; at least twice the loader period. */
    private Duration armHorizon = Duration.ofMinutes(2);
    /** A trigger time older than this when loaded or recovered is a misfire. */
    private Duration misfireThreshold = Duration.ofSeconds(5);
    /** The most missed triggers a FIRE_ALL misfire policy fires at once. */
    private int fireAllLimit = 100;
    /** The whole-call deadline of jobs that set none. */
    private Duration callTimeout = Duration.ofSeconds(10);
    /** Calls in flight on this member, at most (webhooks and handlers together). */
    private int maxCallsInFlight = 4000;
    /** Calls in flight to one webhook host, at most. */
    private int maxCallsPerHost = 500;
    /** Threads of the pool that runs synchronous handlers. */
    private int handlerThreads = 256;
    /** How long stopping lets calls in flight end and records their outcomes. */
    private Duration stopTimeout = Duration.ofSeconds(10);
    /** The longest a caller waits on the store (at least 250ms); past it the call fails and may be repeated. */
    private Duration storeTimeout = Duration.ofSeconds(2);
    /**
     * 32 random bytes as base64 (make one with: openssl rand -base64 32) that encrypt jobs' signing secrets and the
     * callback key in the store (AES-256-GCM); unset, they are kept as given, and a store already encrypted refuses
     * to start.
     */
    private String secretKey;
    /**
     * Keys (base64) that only decrypt: the one being rotated out, or in; what is under them is re-encrypted under
     * secret-key at start.
     */
    private List<String> previousSecretKeys = new ArrayList<>();

    /**
     * Whether webhook and alert calls are refused loopback, link-local, private, CGNAT, multicast and cloud metadata
     * addresses unless allow-targets lets them through (checked when a job is created or changed, and on the address
     * connected to). Off by default: an embedded scheduler usually calls the application's own internal services;
     * turn it on when callers you do not trust create jobs (the HTTP API mounted on a public address).
     */
    private boolean outboundGuard = false;
    /**
     * CIDR blocks, addresses and host patterns the outbound guard lets through, e.g. 10.1.0.0/16,
     * hooks.internal.example.com, *.svc.cluster.local.
     */
    private List<String> allowTargets = new ArrayList<>();

    private final Store store = new Store();
    private final Retention retention = new Retention();
    private final Alerts alerts = new Alerts();
    private final Web web = new Web();

    /** The HTTP API and console on the application's own web server. */
    public static class Web {
        /** Whether to mount the HTTP API and console (needs tickwheel-api and a servlet web server). */
        private boolean enabled = false;
        /** Where they are mounted: {path}/api/jobs, {path}/ for the console. */
        private String path = "/tickwheel";
        /**
         * The bearer token POST, PUT and DELETE need (reads stay open); required unless the application's server
         * listens on loopback only (server.address).
         */
        private String token;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public String getToken() {
            return token;
        }

        public void setToken(String token) {
            this.token = token;
        }
    }

    /** Where the store lives. */
    public static class Store {
        /**
         * The name of the DataSource bean to use when the application has several (default: the only one, or the
         * primary one).
         */
        private String dataSource;
        /**
         * A JDBC URL (H2 or PostgreSQL) for a pool of Tickwheel's own instead of the application's DataSource; also
         * where the store lives when the application has no DataSource (default: an H2 file under ./data).
         */
        private String jdbcUrl;
        /**
         * The table of Tickwheel's migration history, beside the application's own Flyway history. A store first
         * created by the standalone server keeps its history in flyway_schema_history: set that name for it.
         */
        private String schemaHistoryTable = "tickwheel_schema_history";

        public String getDataSource() {
            return dataSource;
        }

        public void setDataSource(String dataSource) {
            this.dataSource = dataSource;
        }

        public String getJdbcUrl() {
            return jdbcUrl;
        }

        public void setJdbcUrl(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
        }

        public String getSchemaHistoryTable() {
            return schemaHistoryTable;
        }

        public void setSchemaHistoryTable(String schemaHistoryTable) {
            this.schemaHistoryTable = schemaHistoryTable;
        }
    }

    /** How long finished instances are kept, and how the purge runs. */
    public static class Retention {
        /** Days finished instances are kept (jobs may set their own). */
        private int days = 7;
        /** Rows one purge batch deletes at most. */
        private int batchSize = 500;
        /** Time between the starts of two purge runs. */
        private Duration interval = Duration.ofMinutes(1);
        /** Batches one purge run makes at most. */
        private int maxBatchesPerRun = 100;

        RetentionPurge.Settings toSettings() {
            return new RetentionPurge.Settings(days, batchSize, interval, maxBatchesPerRun);
        }

        public int getDays() {
            return days;
        }

        public void setDays(int days) {
            this.days = days;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getMaxBatchesPerRun() {
            return maxBatchesPerRun;
        }

        public void setMaxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = maxBatchesPerRun;
        }
    }

    /** Failure alerts. */
    public static class Alerts {
        /** The server-wide alert webhook (http or https); unset, only jobs with their own alertUrl alert. */
        private String url;
        /** The secret alerts are signed with (32..256 characters). */
        private String secret;
        /** Failures of one job within the window that make an alert. */
        private int failureThreshold = 5;
        /** The window failures are counted in. */
        private Duration failureWindow = Duration.ofMinutes(10);
        /** The least time between two alerts of one job. */
        private Duration minInterval = Duration.ofMinutes(5);

        AlertSettings toSettings() {
            return new AlertSettings(url, secret, failureThreshold, failureWindow, minInterval);
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getSecret() {
            return secret;
        }

        public void setSecret(String secret) {
            this.secret = secret;
        }

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getFailureWindow() {
            return failureWindow;
        }

        public void setFailureWindow(Duration failureWindow) {
            this.failureWindow = failureWindow;
        }

        public Duration getMinInterval() {
            return minInterval;
        }

        public void setMinInterval(Duration minInterval) {
            this.minInterval = minInterval;
        }
    }

    /** Sets every engine setting of these properties on {@code builder} (the store is chosen elsewhere). */
    void applyTo(TickwheelServer.Builder builder) {
        if (nodeId != null) {
            builder.nodeId(nodeId);
        }
        builder.leaseTtl(leaseTtl).leaseRenewInterval(leaseRenewInterval).loaderPeriod(loaderPeriod)
                .loadWindow(loadWindow).armHorizon(armHorizon).misfireThreshold(misfireThreshold)
                .fireAllLimit(fireAllLimit).callTimeout(callTimeout).maxCallsInFlight(maxCallsInFlight)
                .maxCallsPerHost(maxCallsPerHost).handlerThreads(handlerThreads).stopTimeout(stopTimeout)
                .storeTimeout(storeTimeout).retention(retention.toSettings()).alerts(alerts.toSettings())
                .secretKeys(SecretKeys.parse(secretKey, "tickwheel.secret-key", previousSecretKeys,
                        "tickwheel.previous-secret-keys"));
        if (outboundGuard) {
            builder.outboundGuard(OutboundGuard.builder().howToAllow("tickwheel.allow-targets").allowAll(allowTargets)
                    .build());
        }
    }

    public boolean isOutboundGuard() {
        return outboundGuard;
    }

    public void setOutboundGuard(boolean outboundGuard) {
        this.outboundGuard = outboundGuard;
    }

    public List<String> getAllowTargets() {
        return allowTargets;
    }

    public void setAllowTargets(List<String> allowTargets) {
        this.allowTargets = allowTargets;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Integer getNodeId() {
        return nodeId;
    }

    public void setNodeId(Integer nodeId) {
        this.nodeId = nodeId;
    }

    public Duration getLeaseTtl() {
        return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public Duration getLeaseRenewInterval() {
        return leaseRenewInterval;
    }

    public void setLeaseRenewInterval(Duration leaseRenewInterval) {
        this.leaseRenewInterval = leaseRenewInterval;
    }

    public Duration getLoaderPeriod() {
        return loaderPeriod;
    }

    public void setLoaderPeriod(Duration loaderPeriod) {
        this.loaderPeriod = loaderPeriod;
    }

    public Duration getLoadWindow() {
        return loadWindow;
    }

    public void setLoadWindow(Duration loadWindow) {
        this.loadWindow = loadWindow;
    }

    public Duration getArmHorizon() {
        return armHorizon;
    }

    public void setArmHorizon(Duration armHorizon) {
        this.armHorizon = armHorizon;
    }

    public Duration getMisfireThreshold() {
        return misfireThreshold;
    }

    public void setMisfireThreshold(Duration misfireThreshold) {
        this.misfireThreshold = misfireThreshold;
    }

    public int getFireAllLimit() {
        return fireAllLimit;
    }

    public void setFireAllLimit(int fireAllLimit) {
        this.fireAllLimit = fireAllLimit;
    }

    public Duration getCallTimeout() {
        return callTimeout;
    }

    public void setCallTimeout(Duration callTimeout) {
        this.callTimeout = callTimeout;
    }

    public int getMaxCallsInFlight() {
        return maxCallsInFlight;
    }

    public void setMaxCallsInFlight(int maxCallsInFlight) {
        this.maxCallsInFlight = maxCallsInFlight;
    }

    public int getMaxCallsPerHost() {
        return maxCallsPerHost;
    }

    public void setMaxCallsPerHost(int maxCallsPerHost) {
        this.maxCallsPerHost = maxCallsPerHost;
    }

    public int getHandlerThreads() {
        return handlerThreads;
    }

    public void setHandlerThreads(int handlerThreads) {
        this.handlerThreads = handlerThreads;
    }

    public Duration getStopTimeout() {
        return stopTimeout;
    }

    public void setStopTimeout(Duration stopTimeout) {
        this.stopTimeout = stopTimeout;
    }

    public Duration getStoreTimeout() {
        return storeTimeout;
    }

    public void setStoreTimeout(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    public String getSecretKey() {
        return secretKey;
    }

    public void setSecretKey(String secretKey) {
        this.secretKey = secretKey;
    }

    public List<String> getPreviousSecretKeys() {
        return previousSecretKeys;
    }

    public void setPreviousSecretKeys(List<String> previousSecretKeys) {
        this.previousSecretKeys = previousSecretKeys;
    }

    public Store getStore() {
        return store;
    }

    public Retention getRetention() {
        return retention;
    }

    public Alerts getAlerts() {
        return alerts;
    }

    public Web getWeb() {
        return web;
    }
}
