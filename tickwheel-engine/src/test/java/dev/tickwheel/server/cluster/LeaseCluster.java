package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tickwheel.server.store.ClusterView.ShardLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Members with lease keepers on one {@link FakeClusterDatabase}, driven step by step: {@link #step} moves the
 * database's clock and every member's ticker by one check interval (time passes for members that do not run too), then
 * runs one round on each running member, then checks the safety invariants.
 *
 * <p>The tickers start far apart, one of them just below {@link Long#MAX_VALUE} so that it wraps during a test: the
 * keeper must only ever compare ticker differences.
 *
 * <p>Not thread-safe: driven by the test thread.
 */
final class LeaseCluster {

    static final long DB_START_MS = 1_790_000_000_000L;
    private static final long[] TICKER_STARTS = {
            Long.MAX_VALUE - Duration.ofSeconds(3).toNanos(), Long.MIN_VALUE + 7, 0, 123_456_789_012_345L};

    final FakeClusterDatabase db;
    final LeaseKeeper.Settings settings;
    final List<Node> nodes = new ArrayList<>();

    /** One member: its store, ticker, listener and keeper; {@code running} says whether {@link #step} runs it. */
    static final class Node {
        final FakeClusterStore store;
        final ManualTicker ticker;
        final RecordingShardListener listener = new RecordingShardListener();
        final LeaseKeeper keeper;
        final int nodeId;
        boolean running = true;

        Node(FakeClusterStore store, ManualTicker ticker, LeaseKeeper.Settings settings) {
            this.store = store;
            this.ticker = ticker;
            this.nodeId = store.joinedNodeId();
            this.keeper = new LeaseKeeper(store, nodeId, settings, ticker, listener);
        }

        Set<Integer> held() {
            return keeper.heldShards();
        }

        int draining() {
            return keeper.stats().shardsDraining();
        }

        @Override
        public String toString() {
            return "node " + nodeId;
        }
    }

    LeaseCluster(LeaseKeeper.Settings settings) {
        this.db = new FakeClusterDatabase(256, DB_START_MS);
        this.settings = settings;
    }

    LeaseCluster() {
        this(LeaseKeeper.Settings.defaults());
    }

    /**
     * How long a server takes from its join (when it opens) to its first lease round (when scheduling starts); the
     * members count it for assignment only once it has renewed after joining, later than its join on the
     * database's clock.
     */
    static final Duration OPEN_TO_START = Duration.ofMillis(1);

    /**
     * A new member: joined under the lowest free node id, keeper made, no round run yet; every clock then moves by
     * {@link #OPEN_TO_START}.
     */
    Node join() {
        return join(OptionalInt.empty());
    }

    Node join(OptionalInt requestedId) {
        FakeClusterStore store = db.open();
        store.join(requestedId, "member " + nodes.size(), settings.ttl());
        Node node = new Node(store, new ManualTicker(TICKER_STARTS[nodes.size() % TICKER_STARTS.length]), settings);
        nodes.add(node);
        advance(OPEN_TO_START);
        return node;
    }

    /** Moves every clock, of running members and others alike. */
    void advance(Duration duration) {
        db.advance(duration);
        for (Node node : nodes) {
            node.ticker.advance(duration);
        }
    }

    /** One check interval later, one round on each running member in join order, then the invariants. */
    void step() {
        advance(settings.checkInterval());
        for (Node node : nodes) {
            if (node.running) {
                node.keeper.runOnce();
            }
        }
        checkSafety();
    }

    void steps(int count) {
        for (int i = 0; i < count; i++) {
            step();
        }
    }

    /** Steps until {@code duration} has passed. */
    void stepFor(Duration duration) {
        steps((int) (duration.toNanos() / settings.checkInterval().toNanos()));
    }

    /**
     * What must hold at every moment: a shard {@link LeaseKeeper#holds}-true on a member is leased to that member in
     * the database, under the epoch its listener was given, unexpired by the database's clock; so no shard is held by
     * two members. And holds() is never true for a shard the listener was not told it holds.
     */
    void checkSafety() {
        long nowMs = db.nowMs();
        int[] holders = new int[db.shardCount()];
        for (Node node : nodes) {
            for (int shard : node.held()) {
                holders[shard]++;
                ShardLease lease = db.lease(shard);
                Long epoch = node.listener.held.get(shard);
                if (epoch == null) {
                    fail(node + " holds shard " + shard + " that its listener was not told of");
                }
                if (lease.ownerSession() != node.store.session() || lease.epoch() != epoch
                        || lease.expiresAtMs() <= nowMs) {
                    fail(node + " holds shard " + shard + " under epoch " + epoch + " but the database says " + lease
                            + " at " + nowMs);
                }
                assertTrue(node.keeper.mayFinish(shard, epoch));
            }
        }
        for (int shard = 0; shard < holders.length; shard++) {
            if (holders[shard] > 1) {
                fail("shard " + shard + " is held by " + holders[shard] + " members");
            }
        }
    }

    /**
     * No gap: every shard is leased in the database, unexpired, and its lessee either holds it or is draining it;
     * true after every full step of a cluster that is not failing.
     */
    void checkEveryShardHeldOrDraining() {
        long nowMs = db.nowMs();
        int heldOrDraining = 0;
        for (Node node : nodes) {
            heldOrDraining += node.held().size() + node.draining();
        }
        for (int shard = 0; shard < db.shardCount(); shard++) {
            assertTrue(db.lease(shard).heldAt(nowMs), "shard " + shard + " is leased to nobody: " + db.lease(shard));
        }
        assertEquals(db.shardCount(), heldOrDraining, "shards held or draining, over all members");
    }

    /** The shards {@code node} is preferred for among {@code live}. */
    Set<Integer> preferredShards(Node node, List<Node> live) {
        int[] owners = Rendezvous.assign(live.stream().map(n -> n.nodeId).toList(), db.shardCount());
        Set<Integer> shards = new TreeSet<>();
        for (int shard = 0; shard < owners.length; shard++) {
            if (owners[shard] == node.nodeId) {
                shards.add(shard);
            }
        }
        return shards;
    }

    /** Every shard is held (holds() true) by its preferred member among {@code live}, and by no other. */
    void assertSettled(List<Node> live) {
        for (Node node : live) {
            assertEquals(preferredShards(node, live), node.held(), node + " holds exactly its preferred shards");
            assertEquals(0, node.draining(), node + " drains nothing");
        }
        int total = live.stream().mapToInt(n -> n.held().size()).sum();
        assertEquals(db.shardCount(), total, "every shard held: " + live.stream()
                .map(n -> n + "=" + n.held().size()).collect(Collectors.joining(", ")));
    }
}
