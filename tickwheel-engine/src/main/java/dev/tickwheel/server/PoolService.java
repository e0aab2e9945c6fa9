package dev.tickwheel.server;

import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Named pools that jobs share ({@link InstancePool}): a concurrency limit, a rate of starts, or both, across all the
 * pool's jobs. A replaced pool's limits reach the member that dispatches the pool within 30 s (that member reads a pool
 * again at most every 30 s; at once when the pool was replaced through this member); one that a job names cannot be
 * deleted.
 *
 * <p>Thread-safe.
 */
public final class PoolService {

    /** What {@link #create} did. */
    public enum Creation {
        CREATED,
        /** A pool of the name exists: nothing was written. */
        NAME_TAKEN
    }

    private final PoolStore pools;
    private final Clock clock;
    private final Consumer<String> replaced;

    /** @param replaced told the name of each pool replaced here (this member's dispatch then reads it again at once) */
    PoolService(PoolStore pools, Clock clock, Consumer<String> replaced) {
        this.pools = Objects.requireNonNull(pools, "pools");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.replaced = Objects.requireNonNull(replaced, "replaced");
    }

    /**
     * Stores a pool in {@code namespace} (which the caller has checked exists) unless its name is taken there. Names
     * are per namespace: a job names the pools of its own namespace only.
     *
     * @param name          its local name
     * @param maxConcurrent calls in flight at once, at most; 0 for no limit
     * @param rate          how fast calls may start, or null for no rate
     * @return the pool as stored (or the existing one, with {@link Creation#NAME_TAKEN})
     * @throws IllegalArgumentException if a field is invalid, or neither limit is given (see {@link InstancePool})
     */
    public Result create(String namespace, String name, int maxConcurrent, InstancePool.Rate rate) {
        String qualified = Namespaces.qualified(namespace, name);
        InstancePool pool = new InstancePool(qualified, maxConcurrent, rate, Instant.ofEpochMilli(clock.millis()));
        if (pools.insert(pool)) {
            return new Result(pool, Creation.CREATED);
        }
        return new Result(pools.get(qualified).orElse(pool), Creation.NAME_TAKEN);
    }

    /**
     * Replaces the limits of pool {@code name} of {@code namespace}; its creation time stays. Calls already started
     * are not touched.
     *
     * @return the pool as stored, or empty if there is none of that name
     * @throws IllegalArgumentException if a field is invalid, or neither limit is given (see {@link InstancePool})
     */
    public Optional<InstancePool> replace(String namespace, String name, int maxConcurrent,
            InstancePool.Rate rate) {
        Optional<InstancePool> current = get(namespace, name);
        if (current.isEmpty()) {
            return Optional.empty();
        }
        InstancePool pool = new InstancePool(current.get().name(), maxConcurrent, rate, current.get().createdAt());
        if (!pools.replace(pool)) {
            return Optional.empty();
        }
        replaced.accept(pool.name());
        return Optional.of(pool);
    }

    /** A pool and whether {@link #create} stored it. */
    public record Result(InstancePool pool, Creation creation) {
    }

    /** Pool {@code name} of {@code namespace}; empty for a name that is not a valid one. */
    public Optional<InstancePool> get(String namespace, String name) {
        return Namespaces.isLocalName(name) ? pools.get(Namespaces.qualified(namespace, name)) : Optional.empty();
    }

    /** The pools of {@code namespace} (null: of every namespace), by qualified name. */
    public List<InstancePool> list(String namespace) {
        return pools.list().stream()
                .filter(pool -> namespace == null || pool.namespace().equals(namespace))
                .toList();
    }

    /** Deletes pool {@code name} of {@code namespace} unless a job names it. */
    public PoolStore.Deletion delete(String namespace, String name) {
        return Namespaces.isLocalName(name) ? pools.delete(Namespaces.qualified(namespace, name))
                : PoolStore.Deletion.NOT_FOUND;
    }
}
