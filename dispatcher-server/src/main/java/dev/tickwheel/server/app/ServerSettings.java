package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiSettings;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The effective configuration of the standalone server, built once by {@link SettingsReader} at the composition root.
 *
 * <p>Immutable.
 *
 * @param api            host, port, token, demo endpoint
 * @param dbUrl          the store's JDBC URL
 * @param nodeId         0..1023, or empty to lease a free one from the store
 * @param leaseTtl       shard lease time to live
 * @param leaseRenew     shard lease renewal interval
 * @param loaderPeriod   loader period
 * @param loadWindow     loader look-ahead
 * @param armHorizon     how far ahead waiting instances are armed in memory
 * @param storeTimeout   the longest an API caller waits on the store before its 503
 * @param dispatch       call deadline and bulkheads
 * @param demo           whether to register the demo jobs
 * @param retention      how long finished instances are kept, and how the purge runs
 * @param alerts         failure alerts: server-wide URL and secret, threshold, window, rate limit
 * @param publicUrl      where targets reach this server (callback URLs), or null for its bound address
 * @param auditRetention how long audit entries are kept
 * @param secretKeys     the keys of the secrets at rest ({@link SecretKeys#NONE}: kept as given); shown by key id only
 * @param outbound       when the outbound guard is on, and what it allows
 */
public record ServerSettings(ApiSettings api, String dbUrl, OptionalInt nodeId, Duration leaseTtl, Duration leaseRenew,
                             Duration loaderPeriod, Duration loadWindow, Duration armHorizon,
                             Duration storeTimeout,
                             DispatchSettings dispatch, boolean demo,
                             RetentionPurge.Settings retention, AlertSettings alerts, String publicUrl,
                             Duration auditRetention, SecretKeys secretKeys, OutboundSettings outbound) {

    /**
     * Settings that keep audit entries {@link dev.tickwheel.server.AuditService#DEFAULT_RETENTION}, without secret keys,
     * with the default outbound guard ({@link OutboundSettings#DEFAULTS}: on for a non-loopback host).
     */
    public ServerSettings(ApiSettings api, String dbUrl, OptionalInt nodeId, Duration leaseTtl, Duration leaseRenew,
                          Duration loaderPeriod, Duration loadWindow, Duration armHorizon, Duration storeTimeout,
                          DispatchSettings dispatch, boolean demo, RetentionPurge.Settings retention,
                          AlertSettings alerts, String publicUrl) {
        this(api, dbUrl, nodeId, leaseTtl, leaseRenew, loaderPeriod, loadWindow, armHorizon, storeTimeout, dispatch,
                demo, retention, alerts, publicUrl, dev.tickwheel.server.AuditService.DEFAULT_RETENTION,
                SecretKeys.NONE, OutboundSettings.DEFAULTS);
    }

    public ServerSettings {
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(dbUrl, "dbUrl");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        Objects.requireNonNull(leaseRenew, "leaseRenew");
        Objects.requireNonNull(loaderPeriod, "loaderPeriod");
        Objects.requireNonNull(loadWindow, "loadWindow");
        Objects.requireNonNull(armHorizon, "armHorizon");
        Objects.requireNonNull(storeTimeout, "storeTimeout");
        Objects.requireNonNull(dispatch, "dispatch");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(alerts, "alerts");
        Objects.requireNonNull(auditRetention, "auditRetention");
        Objects.requireNonNull(secretKeys, "secretKeys");
        Objects.requireNonNull(outbound, "outbound");
    }

    /** These settings with {@code newOutbound} as the outbound guard's. */
    public ServerSettings withOutbound(OutboundSettings newOutbound) {
        return new ServerSettings(api, dbUrl, nodeId, leaseTtl, leaseRenew, loaderPeriod, loadWindow, armHorizon,
                storeTimeout, dispatch, demo, retention, alerts, publicUrl, auditRetention, secretKeys, newOutbound);
    }

    /** The outbound guard of webhook and alert calls these settings describe. */
    public OutboundGuard outboundGuard() {
        return outbound.guard(api);
    }

    /** The engine builder these settings describe. */
    public TickwheelServer.Builder engineBuilder() {
        TickwheelServer.Builder builder = TickwheelServer.builder().jdbcUrl(dbUrl).leaseTtl(leaseTtl)
                .leaseRenewInterval(leaseRenew).loaderPeriod(loaderPeriod).loadWindow(loadWindow)
                .armHorizon(armHorizon).storeTimeout(storeTimeout).retention(retention)
                .auditRetention(auditRetention);
        nodeId.ifPresent(builder::nodeId);
        builder.alerts(alerts).secretKeys(secretKeys).outboundGuard(outboundGuard());
        if (publicUrl != null) {
            builder.callbackBaseUrl(publicUrl); // checks it; the application sets it again once it listens
        }
        return dispatch.applyTo(builder);
    }

    /** One line for the log; the token is never printed and the store URL is redacted. */
    public String describe() {
        return "host=" + api.host() + " port=" + api.port() + " token=" + (api.token() == null ? "none" : "set")
                + " db-url=" + dev.tickwheel.server.store.jdbc.JdbcStoreConfig.builder().jdbcUrl(dbUrl).build()
                .redactedJdbcUrl() + " node-id=" + (nodeId.isPresent() ? nodeId.getAsInt() : "leased")
                + " lease-ttl-ms=" + leaseTtl.toMillis() + " lease-renew-ms=" + leaseRenew.toMillis()
                + " loader-period-ms=" + loaderPeriod.toMillis()
                + " load-window-ms=" + loadWindow.toMillis() + " arm-horizon-ms=" + armHorizon.toMillis()
                + " store-timeout-ms=" + storeTimeout.toMillis()
                + " call-timeout-ms=" + dispatch.callTimeout().toMillis()
                + " max-calls-in-flight=" + dispatch.maxCallsInFlight() + " max-calls-per-host="
                + dispatch.maxCallsPerHost() + " handler-threads=" + dispatch.handlerThreads()
                + " demo=" + demo + " retention-days=" + retention.defaultDays() + " retention-batch-size="
                + retention.batchSize() + " retention-interval-ms=" + retention.interval().toMillis()
                + " " + alerts // AlertSettings never prints the secret
                + " public-url=" + (publicUrl == null ? "default" : publicUrl)
                + " open-health=" + api.openHealth() + " audit-retention-days=" + auditRetention.toDays()
                + " secret-key=" + secretKeys.currentKeyId().map(id -> "key id " + id).orElse("none")
                + " previous-secret-keys=" + secretKeys.previousKeyIds() // key ids, never keys
                + " " + outbound.describe(api);
    }
}
