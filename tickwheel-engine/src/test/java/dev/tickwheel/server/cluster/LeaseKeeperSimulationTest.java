package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.server.cluster.LeaseCluster.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Members joining, leaving, pausing, losing the database and stalling in slow store calls at random, on manual clocks,
 * with the safety invariants checked after every step ({@link LeaseCluster#checkSafety}: nothing acted on by two
 * members, nothing acted on that the database does not lease to the actor); then every fault healed, and every shard
 * must end up held by its preferred member. The seed is printed; a failure names it, and
 * {@code -Dsimulation.seed=<seed>} replays it.
 */
class LeaseKeeperSimulationTest {

    private static final int STEPS = 4_000; // 1 000 s of cluster time

    @RepeatedTest(5)
    void randomFaults_neverTwoActorsPerShard_andEveryShardSettlesOnItsPreferredMember() {
        long seed = Long.getLong("simulation.seed", new Random().nextLong()); // -Dsimulation.seed=... replays one
        System.out.println("LeaseKeeperSimulationTest seed=" + seed);
        Random random = new Random(seed);
        LeaseCluster cluster = new LeaseCluster();
        List<Node> closed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            cluster.join();
        }
        try {
            for (int step = 0; step < STEPS; step++) {
                perturb(cluster, closed, random);
                cluster.step();
            }
            heal(cluster);
            cluster.step(); // a resumed member whose node id was taken finds out now
            if (cluster.nodes.stream().noneMatch(n -> isLive(n, closed))) {
                cluster.join(); // every member was closed or evicted: the cluster must still come back
            }
            cluster.stepFor(LeaseKeeper.DEFAULT_MAX_DRAIN.plus(Duration.ofSeconds(15)));
            cluster.assertSettled(cluster.nodes.stream().filter(n -> isLive(n, closed)).toList());
            cluster.checkEveryShardHeldOrDraining();
            for (Node node : cluster.nodes) {
                if (!closed.contains(node)) { // close() does not call the listener
                    assertEquals(node.listener.held.keySet(), node.held(), node + ": the listener knows what it holds");
                }
            }
            System.out.println("LeaseKeeperSimulationTest seed=" + seed + ": " + summary(cluster, closed));
        } catch (AssertionError e) {
            throw new AssertionError("seed=" + seed + ": " + e.getMessage(), e);
        }
    }

    private static void perturb(LeaseCluster cluster, List<Node> closed, Random random) {
        List<Node> open = cluster.nodes.stream().filter(n -> !closed.contains(n)).toList();
        Node node = open.get(random.nextInt(open.size()));
        int roll = random.nextInt(1_000);
        if (roll < 15) {
            node.running = !node.running; // a pause (SIGSTOP, GC) or its end
        } else if (roll < 30) {
            node.store.failing(random.nextBoolean()); // its database connection breaks or heals
        } else if (roll < 40) {
            node.listener.busy.clear();
            if (random.nextBoolean()) {
                IntStream.range(0, 256).filter(s -> random.nextInt(4) == 0).forEach(node.listener.busy::add);
            }
        } else if (roll < 50) {
            // Slow calls, the time spent before or after the database executes them (up to more than the margin).
            Duration before = Duration.ofMillis(random.nextBoolean() ? 0 : random.nextInt(2_500));
            Duration after = Duration.ofMillis(random.nextBoolean() ? 0 : random.nextInt(2_500));
            node.store.beforeCall(() -> cluster.advance(before));
            node.store.afterCall(() -> cluster.advance(after));
        } else if (roll < 53 && open.size() < 6) {
            cluster.join();
        } else if (roll < 56 && open.size() > 1) {
            node.keeper.close();
            node.running = false;
            closed.add(node);
        }
    }

    private static boolean isLive(Node node, List<Node> closed) {
        return !closed.contains(node) && node.listener.evictedBy == null;
    }

    private static String summary(LeaseCluster cluster, List<Node> closed) {
        long evicted = cluster.nodes.stream().filter(n -> n.listener.evictedBy != null).count();
        long takeovers = cluster.nodes.stream().mapToLong(n -> n.keeper.stats().takeovers()).sum();
        long released = cluster.nodes.stream().mapToLong(n -> n.keeper.stats().shardsReleased()).sum();
        long renewFailures = cluster.nodes.stream().mapToLong(n -> n.keeper.stats().renewFailures()).sum();
        long lost = cluster.nodes.stream().mapToLong(n -> n.listener.lostCount.values().stream()
                .mapToLong(Integer::longValue).sum()).sum();
        return cluster.nodes.size() + " members (" + closed.size() + " closed, " + evicted + " evicted), "
                + takeovers + " takeovers, " + released + " released, " + lost + " lost, " + renewFailures
                + " failed renewals";
    }

    private static void heal(LeaseCluster cluster) {
        for (Node node : cluster.nodes) {
            node.store.failing(false);
            node.store.beforeCall(() -> { });
            node.store.afterCall(() -> { });
            node.listener.busy.clear();
            node.running = true; // closed and evicted keepers run no rounds anyway
        }
    }
}
