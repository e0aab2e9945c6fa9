package dev.tickwheel.server.dispatch;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The dispatcher's view of the pools: each read from the store at most once per {@link #MAX_AGE}, so a pool's new
 * limits reach the member that dispatches it within {@link #MAX_AGE}. A pool a job names cannot be deleted (the
 * store refuses), so a stale entry here is never a pool that is gone.
 *
 * <p>Thread-safe (Caffeine).
 */
public final class PoolCatalog {

    /** How long a pool read is reused. */
    public static final Duration MAX_AGE = Duration.ofSeconds(30);

    private final LoadingCache<String, Optional<InstancePool>> cache;

    public PoolCatalog(PoolStore store) {
        Objects.requireNonNull(store, "store");
        this.cache = Caffeine.newBuilder().expireAfterWrite(MAX_AGE).maximumSize(10_000).build(store::get);
    }

    /** The pool of this name, read from the store if it is not cached; empty if there is none. */
    public Optional<InstancePool> get(String name) {
        return cache.get(name);
    }

    /** The pool if it is cached (present or known absent); null if it would have to be read. */
    Optional<InstancePool> getIfCached(String name) {
        return cache.getIfPresent(name);
    }

    /** Forgets a pool this member has just changed, so its next dispatch reads the new limits. */
    public void invalidate(String name) {
        cache.invalidate(name);
    }
}
