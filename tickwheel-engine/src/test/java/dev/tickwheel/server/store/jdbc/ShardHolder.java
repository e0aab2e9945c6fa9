package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.server.store.ClusterStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * Makes an opened store a cluster member that holds every shard, for a test class's whole life, so that its claims
 * and settles pass the lease fence: the state every store test that is not about fencing starts from.
 *
 * <p>Not thread-safe: call from a test class's setup.
 */
final class ShardHolder {

    /** Longer than any test class runs: the leases never expire during the tests that rely on them. */
    static final Duration LONG_TTL = Duration.ofHours(6);

    private ShardHolder() {
    }

    /** Every shard of the store, 0..shardCount-1. */
    static List<Integer> allShards(ClusterStore cluster) {
        return IntStream.range(0, cluster.shardCount()).boxed().toList();
    }

    /** Joins and acquires every shard; fails the test unless it got them all. Returns shard → epoch. */
    static Map<Integer, Long> joinAndHoldAll(JdbcStores stores) {
        ClusterStore cluster = stores.cluster();
        cluster.join(OptionalInt.empty(), "store test " + cluster.session(), LONG_TTL);
        Map<Integer, Long> held = cluster.acquire(allShards(cluster), LONG_TTL);
        assertEquals(cluster.shardCount(), held.size(), "shards acquired by the test member");
        return held;
    }
}
