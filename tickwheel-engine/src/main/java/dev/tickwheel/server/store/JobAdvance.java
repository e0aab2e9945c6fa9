package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.NewInstance;
import java.time.Instant;
import java.util.List;

/**
 * One job's advance by a loader: the instances to create for its schedule slots and where its next trigger time
 * moves, conditional on the job being as the loader read it (next trigger time and version).
 *
 * <p>Immutable.
 *
 * @param jobId               the job; every instance must belong to it
 * @param expectedVersion     the job's version the caller read; a job changed since then is not advanced
 * @param expectedNextTrigger the next trigger time the caller read; null matches a job that has none
 * @param newNextTrigger      the next trigger time after these instances, or null if the job has no more
 * @param instances           instances for schedule slots; may be empty (only advance)
 * @param spread              true if the job spreads its instances over the shards
 *                            ({@link dev.tickwheel.server.job.Job#spreadsInstances()}), false to keep them on its own
 *                            or its pool's
 * @param pool                the job's pool, whose shard its instances keep, or null
 */
public record JobAdvance(long jobId, long expectedVersion, Instant expectedNextTrigger, Instant newNextTrigger,
                         List<NewInstance> instances, boolean spread, String pool) {

    public JobAdvance {
        instances = List.copyOf(instances);
    }

    /** The shard of one of these instances among {@code shardCount}. */
    public int shardOf(NewInstance instance, int shardCount) {
        return Shards.ofInstance(instance.id(), jobId, spread, pool, shardCount);
    }
}
