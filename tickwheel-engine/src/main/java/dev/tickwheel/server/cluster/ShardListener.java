package dev.tickwheel.server.cluster;

import java.util.Map;
import java.util.Set;

/**
 * Told when this member's shards change. Called on the lease thread, one call at a time and in order; must not block
 * for long (hand the work to another thread).
 */
public interface ShardListener {

    /** This member now holds these shards (shard → epoch); they were not held a moment ago. */
    void acquired(Map<Integer, Long> shards);

    /**
     * This member no longer acts on these shards: they are to move to another member (their leases are kept, renewed,
     * until {@link #drained} says their calls have ended), were taken, or could not be renewed in time.
     */
    void lost(Set<Integer> shards);

    /**
     * Whether the calls this member started for instances of these shards have all been settled, so that releasing
     * the leases strands nothing (a settle needs the lease). Asked on the lease thread while shards drain.
     */
    default boolean drained(Set<Integer> shards) {
        return true;
    }

    /**
     * Another member took this member's node id after it stopped renewing for longer than the id's grace: IDs this
     * member mints could collide with the new holder's. The member must stop.
     */
    default void evicted(RuntimeException cause) {
    }
}
