package dev.tickwheel.server.api;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Where the HTTP API listens and how it authenticates.
 *
 * <p>Immutable.
 *
 * @param host     interface to bind; a non-loopback host requires a token
 * @param port     TCP port, 0 for any free port
 * @param token    the bootstrap admin token ({@code --token}), or null for none
 * @param demoEcho whether to register {@code POST /demo/echo}
 * @param openHealth whether {@code /health} and {@code /metrics} need no token once tokens exist
 */
public record ApiSettings(String host, int port, String token, boolean demoEcho, boolean openHealth) {

    /** Settings with {@code /health} and {@code /metrics} open. */
    public ApiSettings(String host, int port, String token, boolean demoEcho) {
        this(host, port, token, demoEcho, true);
    }

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 7700;

    public ApiSettings {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank: '" + host + "'");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: " + port);
        }
        if (token != null && token.isBlank()) {
            token = null;
        }
        if (token == null && !isLoopback(host)) {
            throw new IllegalArgumentException("refusing to bind the API to host '" + host
                    + "' without a token: it is not a loopback address, so anyone who can reach it could create,"
                    + " run and delete jobs. Set --token (or TICKWHEEL_TOKEN), or bind to 127.0.0.1.");
        }
    }

    /** True if {@code host} names only this machine (127.0.0.0/8, ::1, localhost). */
    public static boolean isLoopback(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            InetAddress[] all = InetAddress.getAllByName(bare);
            for (InetAddress address : all) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "ApiSettings[host=" + host + ", port=" + port + ", token=" + (token == null ? "none" : "set")
                + ", demoEcho=" + demoEcho + ", openHealth=" + openHealth + "]";
    }
}
