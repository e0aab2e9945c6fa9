package dev.tickwheel.server;

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
     * Stores a pool unless its name is taken.
     *
     * @param maxConcurrent calls in flight at once, at most; 0 for no limit
     * @param rate          how fast calls may start, or null for no rate
     * @return the pool as stored (or the existing one, with {@link Creation#NAME_TAKEN})
     * @throws IllegalArgumentException if a field is invalid, or neither limit is given (see {@link InstancePool})
     */
    public Result create(String name, int maxConcurrent, InstancePool.Rate rate) {
        InstancePool pool = new InstancePool(name, maxConcurrent, rate, Instant.ofEpochMilli(clock.millis()));
        if (pools.insert(pool)) {
            return new Result(pool, Creation.CREATED);
        }
        return new Result(pools.get(name).orElse(pool), Creation.NAME_TAKEN);
    }

    /**
     * Replaces the limits of pool {@code name}; its creation time stays. Calls already started are not touched.
     *
     * @return the pool as stored, or empty if there is none of that name
     * @throws IllegalArgumentException if a field is invalid, or neither limit is given (see {@link InstancePool})
     */
    public Optional<InstancePool> replace(String name, int maxConcurrent, InstancePool.Rate rate) {
        Optional<InstancePool> current = pools.get(name);
        if (current.isEmpty()) {
            return Optional.empty();
        }
        InstancePool pool = new InstancePool(name, maxConcurrent, rate, current.get().createdAt());
        if (!pools.replace(pool)) {
            return Optional.empty();
        }
        replaced.accept(name);
        return Optional.of(pool);
    }

    /** A pool and whether {@link #create} stored it. */
    public record Result(InstancePool pool, Creation creation) {
    }

    public Optional<InstancePool> get(String name) {
        return pools.get(name);
    }

    /** Every pool, by name. */
    public List<InstancePool> list() {
        return pools.list();
    }

    /** Deletes the pool unless a job names it. */
    public PoolStore.Deletion delete(String name) {
        return pools.delete(name);
    }
}
