package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.util.Objects;

/**
 * A pool to create ({@code client.pools().create}) or its limits to replace ({@code client.pools().replace}): a
 * concurrency limit, a rate, or both; the server refuses a pool with neither (400 naming {@code maxConcurrent}).
 *
 * <p>Immutable. Start from {@link #of(String, int)}, then {@link #withRate}.
 *
 * @param name          1..100 letters, digits, '.', '_' or '-'
 * @param maxConcurrent calls in flight at once across the pool's jobs, 0..100 000 (0 or null: no limit)
 * @param rate          how fast calls may start, or null for no rate
 * @param namespace     on a create, the namespace to make it in (for a token of every namespace; null: the token's
 *                      own, {@code default} for a token of every namespace); on a replace, null or the pool's
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolRequest(String name, Integer maxConcurrent, PoolRate rate, String namespace) {

    public PoolRequest {
        Objects.requireNonNull(name, "name");
    }

    /** A pool of at most {@code maxConcurrent} calls in flight at once (0: no limit; then give a rate). */
    public static PoolRequest of(String name, int maxConcurrent) {
        return new PoolRequest(name, maxConcurrent, null, null);
    }

    /** This pool with a rate: at most {@code permits} calls start in any {@code period}. */
    public PoolRequest withRate(int permits, Duration period) {
        return new PoolRequest(name, maxConcurrent, PoolRate.of(permits, period), namespace);
    }

    /** This pool in {@code namespace} (a token of every namespace chooses; a namespace's token may give its own). */
    public PoolRequest inNamespace(String namespace) {
        return new PoolRequest(name, maxConcurrent, rate, namespace);
    }
}
