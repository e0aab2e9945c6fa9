package dev.tickwheel.server.dispatch.webhook;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link WebhookTransport}; validated by {@code WebhookInvoker.Builder}.
 *
 * <p>Immutable.
 *
 * @param maxConnections        pooled connections, all hosts together
 * @param maxConnectionsPerHost pooled connections to one scheme, host and port
 * @param idleEviction          longest time a pooled connection stays idle and still gets used
 * @param connectTimeout        longest wait for a TCP (and TLS) connection; a call's deadline may cut it shorter
 * @param ioThreads             I/O reactor threads
 */
public record TransportSettings(int maxConnections, int maxConnectionsPerHost, Duration idleEviction,
                                Duration connectTimeout, int ioThreads) {

    public TransportSettings {
        Objects.requireNonNull(idleEviction, "idleEviction");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
    }

    @Override
    public String toString() {
        return "HTTP/1.1, pool " + maxConnections + " connections (" + maxConnectionsPerHost + " per host), idle "
                + "eviction " + idleEviction.toMillis() + " ms, connect timeout " + connectTimeout.toMillis()
                + " ms, " + ioThreads + " I/O threads";
    }
}
