package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * The effective configuration of the standalone server, built once by {@link SettingsReader} at the composition root.
 *
 * <p>Immutable.
 *
 * @param api            host, port, token, demo endpoint
 * @param dbUrl          the store's JDBC URL
 * @param nodeId         0..1023
 * @param loaderPeriod   loader period
 * @param loadWindow     loader look-ahead
 * @param dispatch       call deadline and bulkheads
 * @param demo           whether to register the demo jobs
 */
public record ServerSettings(ApiSettings api, String dbUrl, int nodeId, Duration loaderPeriod, Duration loadWindow,
                             DispatchSettings dispatch, boolean demo) {

    public ServerSettings {
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(dbUrl, "dbUrl");
        Objects.requireNonNull(loaderPeriod, "loaderPeriod");
        Objects.requireNonNull(loadWindow, "loadWindow");
        Objects.requireNonNull(dispatch, "dispatch");
    }

    /** The engine builder these settings describe. */
    public TickwheelServer.Builder engineBuilder() {
        return dispatch.applyTo(TickwheelServer.builder().jdbcUrl(dbUrl).nodeId(nodeId).loaderPeriod(loaderPeriod)
                .loadWindow(loadWindow));
    }

    /** One line for the log; the token is never printed and the store URL is redacted. */
    public String describe() {
        return "host=" + api.host() + " port=" + api.port() + " token=" + (api.token() == null ? "none" : "set")
                + " db-url=" + dev.tickwheel.server.store.jdbc.JdbcStoreConfig.builder().jdbcUrl(dbUrl).build()
                .redactedJdbcUrl() + " node-id=" + nodeId + " loader-period-ms=" + loaderPeriod.toMillis()
                + " load-window-ms=" + loadWindow.toMillis() + " call-timeout-ms=" + dispatch.callTimeout().toMillis()
                + " max-calls-in-flight=" + dispatch.maxCallsInFlight() + " max-calls-per-host="
                + dispatch.maxCallsPerHost() + " handler-threads=" + dispatch.handlerThreads()
                + " demo=" + demo;
    }
}
