package dev.tickwheel.client;

import java.net.URI;
import java.time.Duration;

/**
 * A {@link TickwheelClient}'s effective configuration, as its builder made it.
 *
 * <p>Immutable.
 *
 * @param baseUri        the server, e.g. {@code http://127.0.0.1:7700} (paths are appended to it)
 * @param connectTimeout the bound on opening a connection
 * @param requestTimeout the bound on each attempt, from sending it to its whole answer
 * @param retry          how calls that are safe to repeat are repeated
 * @param maxConnections the most connections to the server at once, per form (sync calls share one pool, async calls
 *                       another); a call that finds them all busy waits for one within its request time-out
 * @param tokenSupplied  whether a token supplier is set (the token itself is not kept here)
 */
public record ClientSettings(URI baseUri, Duration connectTimeout, Duration requestTimeout, RetryPolicy retry,
                             int maxConnections, boolean tokenSupplied) {
}
