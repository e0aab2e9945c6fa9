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

    /** This member no longer holds these shards (released, taken, or its lease could not be renewed in time). */
    void lost(Set<Integer> shards);
}
