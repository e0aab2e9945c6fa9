package dev.tickwheel.client;

import java.net.URI;
import java.time.Duration;

/**
 * A {@link TickwheelClient}'s effective configuration, as its builder made it.
 *
 * <p>Immutable.
 *
 * @param baseUri        the server, e.g. {@code http://127.0.0.1:7700} (paths are appended to it)
 * @param connectTimeout the bound on opening a connection (of the client's own {@code HttpClient}; a given one keeps
 *                       its own)
 * @param requestTimeout the bound on each attempt, from sending it to its whole answer
 * @param retry          how calls that are safe to repeat are repeated
 * @param tokenSupplied  whether a token supplier is set (the token itself is not kept here)
 * @param ownHttpClient  whether the client built its own {@code HttpClient} (false: the builder was given one)
 */
public record ClientSettings(URI baseUri, Duration connectTimeout, Duration requestTimeout, RetryPolicy retry,
                             boolean tokenSupplied, boolean ownHttpClient) {
}
