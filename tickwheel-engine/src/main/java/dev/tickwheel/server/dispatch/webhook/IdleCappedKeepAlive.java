package dev.tickwheel.server.dispatch.webhook;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hc.client5.http.ConnectionKeepAliveStrategy;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;

/**
 * How long a connection may sit idle in the pool before it is no longer used: the idle-eviction setting, or half of
 * what the server advertises in {@code Keep-Alive: timeout=N}, whichever is shorter.
 *
 * <p>Servers close idle keep-alive connections on their own schedule (Node.js and Apache httpd after 5 s, many
 * others sooner or later); a request written onto a connection at the moment the server closes it fails. Apache's pool
 * records this duration as the entry's expiry, and {@code StrictConnPool} discards an expired entry when it would
 * lease it, so a request never goes out on a connection idle longer than this. The transport's idle sweep closes the
 * sockets of expired entries nobody leases.
 *
 * <p>Immutable; thread-safe.
 */
final class IdleCappedKeepAlive implements ConnectionKeepAliveStrategy {

    private static final Pattern TIMEOUT = Pattern.compile("(?i)(?:^|[,;\\s])timeout\\s*=\\s*(\\d{1,9})");

    private final long maxIdleMs;

    IdleCappedKeepAlive(Duration maxIdle) {
        this.maxIdleMs = maxIdle.toMillis();
    }

    @Override
    public TimeValue getKeepAliveDuration(HttpResponse response, HttpContext context) {
        long idleMs = maxIdleMs;
        Header keepAlive = response.getFirstHeader("Keep-Alive");
        if (keepAlive != null && keepAlive.getValue() != null) {
            Matcher timeout = TIMEOUT.matcher(keepAlive.getValue());
            if (timeout.find()) {
                long advertisedMs = Long.parseLong(timeout.group(1)) * 1000;
                idleMs = Math.min(idleMs, advertisedMs / 2);
            }
        }
        // At least 1 ms: Apache's pool reads a zero keep-alive as "keep forever".
        return TimeValue.ofMilliseconds(Math.max(1, idleMs));
    }
}
