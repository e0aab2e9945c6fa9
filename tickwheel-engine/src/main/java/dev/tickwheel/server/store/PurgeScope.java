package dev.tickwheel.server.store;

import java.util.Objects;
import java.util.Set;

/**
 * Which instances one pass of the retention purge looks at ({@link InstanceStore#purgeFinished}): one job's, for a job
 * with its own retention, or every other job's, for the server's default retention. Either may be narrowed to the
 * shards a cluster member holds, so that two members never work on the same rows.
 *
 * <p>Immutable.
 *
 * @param jobId      only the instances of this job, or null for the instances of every job (deleted ones included)
 * @param shards     only the instances of these shards, or null for every shard (a member that holds them all)
 * @param exceptJobs instances of these jobs are left alone: they have a pass of their own; empty for a job's pass
 */
public record PurgeScope(Long jobId, Set<Integer> shards, Set<Long> exceptJobs) {

    public PurgeScope {
        shards = shards == null ? null : Set.copyOf(shards);
        exceptJobs = Set.copyOf(exceptJobs);
        if (jobId != null && exceptJobs.contains(jobId)) {
            throw new IllegalArgumentException("a pass over job " + jobId + " cannot also leave it alone");
        }
    }

    /** The default pass: every job's instances but those of {@code exceptJobs}, of {@code shards} (null: all). */
    public static PurgeScope allJobsExcept(Set<Long> exceptJobs, Set<Integer> shards) {
        return new PurgeScope(null, shards, Objects.requireNonNull(exceptJobs, "exceptJobs"));
    }

    /** A job's own pass. */
    public static PurgeScope ofJob(long jobId) {
        return new PurgeScope(jobId, null, Set.of());
    }

    /** True if an instance of {@code jobId} in {@code shard} is in this scope. */
    public boolean includes(long instanceJobId, int shard) {
        return (jobId == null || jobId == instanceJobId) && (shards == null || shards.contains(shard))
                && !exceptJobs.contains(instanceJobId);
    }
}
