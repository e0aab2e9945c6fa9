package dev.tickwheel.server.cluster;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.Shards;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * For tests of the engine's parts without a lease keeper: a member that joins the store and holds every shard for an
 * hour, so the store's fences let it claim and settle, and whose {@link ShardOwnership} says so.
 */
public final class WholeClusterMember implements ShardOwnership {

    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final int shardCount;
    private final int nodeId;

    private WholeClusterMember(int shardCount, int nodeId) {
        this.shardCount = shardCount;
        this.nodeId = nodeId;
    }

    /** Joins {@code store} and acquires all its shards; fails if another member holds any. */
    public static WholeClusterMember join(ClusterStore store) {
        int nodeId = store.join(OptionalInt.empty(), "test member", AN_HOUR);
        List<Integer> all = IntStream.range(0, store.shardCount()).boxed().toList();
        int acquired = store.acquire(all, AN_HOUR).size();
        if (acquired != all.size()) {
            throw new IllegalStateException("another member holds " + (all.size() - acquired) + " shards");
        }
        return new WholeClusterMember(store.shardCount(), nodeId);
    }

    @Override
    public int shardCount() {
        return shardCount;
    }

    @Override
    public int shardOf(long jobId) {
        return Shards.of(jobId, shardCount);
    }

    @Override
    public boolean holds(int shard) {
        return true;
    }

    @Override
    public boolean mayFinish(int shard, long epoch) {
        return true;
    }

    @Override
    public Set<Integer> heldShards() {
        return new HashSet<>(IntStream.range(0, shardCount).boxed().toList());
    }

    @Override
    public int nodeId() {
        return nodeId;
    }
}
