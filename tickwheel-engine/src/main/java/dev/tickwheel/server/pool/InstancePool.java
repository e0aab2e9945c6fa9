package dev.tickwheel.server.pool;

import dev.tickwheel.server.access.Namespaces;
import java.time.Instant;
import java.util.Objects;

/**
 * A named pool that jobs share: calls in flight of all its jobs together stay at or below {@code maxConcurrent}, and
 * calls start at most {@code rate.permits} per {@code rate.perMs}, spread evenly. Every instance of a pool's jobs is
 * dispatched by one member, the owner of the pool's shard ({@link dev.tickwheel.server.store.Shards#ofPool}), which
 * keeps both limits exact across the cluster.
 *
 * <p>Immutable. A refused value's message starts with the name of its field.
 *
 * @param name          its {@linkplain Namespaces#qualified qualified name}: a local name of
 *                      1..{@value #MAX_NAME_LENGTH} letters, digits, '.', '_' and '-', after {@code <namespace>/}
 *                      outside the default namespace
 * @param maxConcurrent calls in flight at once, at most, 0..{@value #MAX_CONCURRENT}; 0 for no limit
 * @param rate          how fast calls may start, or null for no rate
 * @param createdAt     when it was stored
 */
public record InstancePool(String name, int maxConcurrent, Rate rate, Instant createdAt) {

    /** Longest local name (the store's column holds a namespace, '/' and this). */
    public static final int MAX_NAME_LENGTH = Namespaces.MAX_LOCAL_NAME_LENGTH;
    /** Largest concurrency limit, as a job's. */
    public static final int MAX_CONCURRENT = 100_000;

    /**
     * At most {@code permits} calls start in any {@code perMs} milliseconds, one every {@code perMs / permits} at the
     * fastest (no burst).
     *
     * @param permits 1..{@value #MAX_PERMITS}
     * @param perMs   1..{@value #MAX_PER_MS} (one day)
     */
    public record Rate(int permits, long perMs) {

        public static final int MAX_PERMITS = 1_000_000;
        public static final long MAX_PER_MS = 86_400_000L;

        public Rate {
            if (permits < 1 || permits > MAX_PERMITS) {
                throw new IllegalArgumentException("rate.permits must be in 1.." + MAX_PERMITS + ": " + permits);
            }
            if (perMs < 1 || perMs > MAX_PER_MS) {
                throw new IllegalArgumentException("rate.perMs must be in 1.." + MAX_PER_MS + ": " + perMs);
            }
        }

        /** The least time between two starts, in nanoseconds, rounded up (never faster than asked). */
        public long intervalNanos() {
            return (perMs * 1_000_000L + permits - 1) / permits;
        }
    }

    public InstancePool {
        Namespaces.checkQualified(name);
        if (maxConcurrent < 0 || maxConcurrent > MAX_CONCURRENT) {
            throw new IllegalArgumentException("maxConcurrent must be in 0.." + MAX_CONCURRENT + " (0: no limit): "
                    + maxConcurrent);
        }
        if (maxConcurrent == 0 && rate == null) {
            throw new IllegalArgumentException("maxConcurrent or rate must be given: a pool without either limits"
                    + " nothing");
        }
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** The namespace it belongs to. */
    public String namespace() {
        return Namespaces.namespaceOfQualified(name);
    }

    /** Its name within its namespace: what the API shows and jobs of the namespace name. */
    public String localName() {
        return Namespaces.localName(name);
    }
}
