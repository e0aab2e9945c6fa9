package dev.tickwheel.server.store;

import dev.tickwheel.server.pool.InstancePool;
import java.util.List;
import java.util.Optional;

/**
 * Named pools of concurrency and rate ({@link InstancePool}). A replaced pool keeps its name and creation time; the
 * owner of its shard sees the new limits at its next read of it.
 *
 * <p>Implementations are thread-safe.
 */
public interface PoolStore {

    /** What {@link #delete} did. */
    enum Deletion {
        DELETED,
        NOT_FOUND,
        /** Jobs still name it: nothing was deleted. */
        IN_USE
    }

    /** Stores the pool unless one of its name exists; returns whether it was stored. */
    boolean insert(InstancePool pool);

    Optional<InstancePool> get(String name);

    /** Replaces the limits of the pool of {@code pool}'s name; false if there is none. */
    boolean replace(InstancePool pool);

    /** Every pool, by name. */
    List<InstancePool> list();

    /** Deletes the pool unless a job names it. */
    Deletion delete(String name);
}
