package dev.tickwheel.server.cluster;

import java.util.Set;

/**
 * Which shards this member holds, as far as it may act on them now. The store's fencing is the truth (a claim or a
 * settle under a lease this member no longer holds changes nothing); this view only keeps the member from starting
 * work it could not finish: it says "held" only while the lease is certainly unexpired by this member's own monotonic
 * clock, counted from when the renewal that extended it was <em>sent</em>, minus a safety margin.
 *
 * <p>Thread-safe.
 */
public interface ShardOwnership {

    /** Shards of the store, fixed at schema creation. */
    int shardCount();

    /** The shard of a job and of all its instances. */
    int shardOf(long jobId);

    /** True while this member holds {@code shard} and its lease is certainly unexpired. */
    boolean holds(int shard);

    /**
     * True while this member's lease of {@code shard} under {@code epoch} is certainly unexpired, <em>draining
     * included</em>: a shard on its way to another member takes no new work, but what was claimed under it is still
     * this member's to call and settle, and the lease is released only once that is done.
     */
    boolean mayFinish(int shard, long epoch);

    /** The shards {@link #holds} is true for now. */
    Set<Integer> heldShards();

    /** This member's node id. */
    int nodeId();
}
