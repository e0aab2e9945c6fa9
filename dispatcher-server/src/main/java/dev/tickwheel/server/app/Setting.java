package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.cluster.LeaseKeeper;
import dev.tickwheel.server.api.ApiSettings;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import java.util.Locale;

/**
 * Every setting of the standalone server, with its flag, environment variable, properties key and default. The one
 * list that {@link SettingsReader} reads and {@code --help} prints, so the two cannot drift apart.
 *
 * <p>Immutable.
 */
public enum Setting {
    HOST("host", ApiSettings.DEFAULT_HOST, "interface the HTTP API binds; a non-loopback host requires a token"),
    PORT("port", Integer.toString(ApiSettings.DEFAULT_PORT), "HTTP port; 0 picks a free port"),
    TOKEN("token", "", "the bootstrap admin token, of every namespace: once it (or any token made with POST"
            + " /api/tokens) exists, every API call needs a token; empty = none"),
    OPEN_HEALTH("open-health", "true", "whether /health and /metrics answer without a token once tokens exist; false"
            + " = they need a READ token of every namespace"),
    AUDIT_RETENTION_DAYS("audit-retention-days", Long.toString(
            dev.tickwheel.server.AuditService.DEFAULT_RETENTION.toDays()),
            "days an audit entry is kept, 1..3650"),
    DB_URL("db-url", JdbcStoreConfig.DEFAULT_JDBC_URL, "store: jdbc:h2:file:... or jdbc:postgresql://..."),
    NODE_ID("node-id", "", "0..1023, part of every ID; empty = lease a free one from the store (set it only to pin"
            + " it)"),
    LEASE_TTL_MS("lease-ttl-ms", Long.toString(LeaseKeeper.DEFAULT_TTL.toMillis()),
            "how long shard leases last unrenewed (database clock): other servers take over this long after a crash"),
    LEASE_RENEW_MS("lease-renew-ms", Long.toString(LeaseKeeper.DEFAULT_RENEW_INTERVAL.toMillis()),
            "how often this server renews its shard leases; at most a third of lease-ttl-ms"),
    LOADER_PERIOD_MS("loader-period-ms", Long.toString(TickwheelServer.DEFAULT_LOADER_PERIOD.toMillis()),
            "how often the loader creates due instances"),
    LOAD_WINDOW_MS("load-window-ms", Long.toString(TickwheelServer.DEFAULT_LOAD_WINDOW.toMillis()),
            "how far ahead the loader creates instances; must exceed the loader period"),
    ARM_HORIZON_MS("arm-horizon-ms", Long.toString(TickwheelServer.DEFAULT_ARM_HORIZON.toMillis()),
            "how far ahead waiting instances are armed in memory; later ones wait in the store and are armed as they"
                    + " come near (at least twice the loader period)"),
    STORE_TIMEOUT_MS("store-timeout-ms", Long.toString(TickwheelServer.DEFAULT_STORE_TIMEOUT.toMillis()),
            "the longest an API call waits on the store (a pooled connection, its commit, each answer), at least 250;"
            + " past it the call answers 503 store_unavailable"),
    CALL_TIMEOUT_MS("call-timeout-ms", Long.toString(DispatchSettings.DEFAULTS.callTimeout().toMillis()),
            "whole-call deadline (connect, request, response headers and body) of jobs that set no timeoutMs"),
    MAX_CALLS_IN_FLIGHT("max-calls-in-flight", Integer.toString(DispatchSettings.DEFAULTS.maxCallsInFlight()),
            "calls in flight on this server, at most; an instance is claimed only when a slot is free"),
    MAX_CALLS_PER_HOST("max-calls-per-host", Integer.toString(DispatchSettings.DEFAULTS.maxCallsPerHost()),
            "calls in flight to one webhook host (scheme, host, port), at most"),
    HANDLER_THREADS("handler-threads", Integer.toString(DispatchSettings.DEFAULTS.handlerThreads()),
            "threads running synchronous in-process handlers (embedding only)"),
    RETENTION_DAYS("retention-days", Integer.toString(RetentionPurge.Settings.DEFAULT_DAYS),
            "days a finished instance is kept before the purge deletes it, 1..3650; a job's retentionDays wins"),
    RETENTION_BATCH_SIZE("retention-batch-size", Integer.toString(RetentionPurge.Settings.DEFAULT_BATCH_SIZE),
            "instances one purge batch (one short transaction) looks at and deletes at most, 1..10000"),
    // Milliseconds under an -ms key like every other duration here: the settings have no "1m" syntax to follow.
    RETENTION_INTERVAL_MS("retention-interval-ms",
            Long.toString(RetentionPurge.Settings.DEFAULT_INTERVAL.toMillis()),
            "how often the retention purge runs; a run stops after "
                    + RetentionPurge.Settings.DEFAULT_MAX_BATCHES_PER_RUN + " batches and the next goes on"),
    ALERT_URL("alert-url", "", "where failure alerts of jobs without their own alertUrl go (http or https URL); empty"
            + " = only jobs with an alertUrl get alerts"),
    ALERT_SECRET("alert-secret", "", "signs the alerts sent to alert-url (Tickwheel-Signature, "
            + JobOperations.MIN_SECRET_LENGTH + ".." + JobOperations.MAX_SECRET_LENGTH + " characters); empty ="
            + " unsigned"),
    ALERT_FAILURE_THRESHOLD("alert-failure-threshold", Integer.toString(AlertSettings.DEFAULT_FAILURE_THRESHOLD),
            "FAILED instances of one job within alert-failure-window-ms that raise a FAILURE_THRESHOLD alert, 1.."
            + AlertSettings.MAX_FAILURE_THRESHOLD),
    ALERT_FAILURE_WINDOW_MS("alert-failure-window-ms", Long.toString(AlertSettings.DEFAULT_FAILURE_WINDOW.toMillis()),
            "the sliding window alert-failure-threshold counts over (10 minutes), 1 s..24 h"),
    ALERT_MIN_INTERVAL_MS("alert-min-interval-ms", Long.toString(AlertSettings.DEFAULT_MIN_INTERVAL.toMillis()),
            "at most one alert per job and kind this often (5 minutes); the ones in between are counted and the"
            + " next alert says how many; 0 = no limit"),
    OUTBOUND_GUARD("outbound-guard", "auto", "auto, on or off: whether webhook and alert calls are refused"
            + " loopback, link-local, private, CGNAT, multicast and cloud metadata addresses (checked on the address"
            + " connected to, and when a job is created or changed); auto = on when --host is not loopback"),
    ALLOW_TARGETS("allow-targets", "", "comma-separated CIDR blocks, addresses and host patterns the outbound guard"
            + " lets through, e.g. 10.1.0.0/16,hooks.internal.example.com,*.svc.cluster.local; empty = none"),
    PUBLIC_URL("public-url", "", "the URL targets reach this server at (scheme, host, port, path prefix; behind a"
            + " proxy, the proxy's): callback URLs of jobs with completion CALLBACK start with it; empty ="
            + " http://<host>:<port>, with this machine's name for a wildcard host"),
    SECRET_KEY("secret-key", "", "32 random bytes as base64 (make one with: " + SecretKeys.HOW_TO_MAKE_ONE + ") that"
            + " encrypt jobs' signing secrets and the callback key in the store (AES-256-GCM); empty = kept as given,"
            + " and a store already encrypted refuses to start"),
    PREVIOUS_SECRET_KEYS("previous-secret-keys", "", "comma-separated keys (base64) that only decrypt: the one being"
            + " rotated out, or in; what is under them is re-encrypted under secret-key at start"),
    DEMO("demo", "false", "register demo jobs (named 'demo: ...') and the POST /demo/echo webhook; a start"
            + " without it removes the demo jobs"),
    CONFIG("config", "", "properties file with any of these settings (keys as the flags without --)");

    private final String key;
    private final String defaultValue;
    private final String description;

    Setting(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The properties-file key, e.g. {@code db-url}. */
    public String key() {
        return key;
    }

    /** The command-line flag, e.g. {@code --db-url}. */
    public String flag() {
        return "--" + key;
    }

    /** The environment variable, e.g. {@code TICKWHEEL_DB_URL}. */
    public String envVar() {
        return "TICKWHEEL_" + key.replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /** The default as text; empty means unset. */
    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** True for {@code --demo}, which takes no value on the command line. */
    public boolean isSwitch() {
        return this == DEMO;
    }
}
