package dev.tickwheel.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code GET /api/cluster} as one member answered it: which node holds which shard (by the database's clock; -1 for
 * a shard nobody holds, its lease released or expired), and which nodes are live.
 *
 * <p>Immutable.
 *
 * @param answeringNode the node id of the member that answered
 * @param shardCount    the store's shards
 * @param liveNodeIds   nodes whose node lease is unexpired
 * @param holders       shard → holder's node id, -1 if none; one entry per shard
 * @param epochs        shard → lease epoch
 * @param readAtMs      when the answer arrived (this JVM's wall clock)
 */
record ClusterSnapshot(int answeringNode, int shardCount, Set<Integer> liveNodeIds, Map<Integer, Integer> holders,
                       Map<Integer, Long> epochs, long readAtMs) {

    ClusterSnapshot {
        liveNodeIds = Set.copyOf(liveNodeIds);
        holders = Map.copyOf(holders);
        epochs = Map.copyOf(epochs);
    }

    /** Reads the answer; fails naming the field if one of the contract's is missing. */
    static ClusterSnapshot parse(JsonNode json, long readAtMs) {
        Set<Integer> live = new TreeSet<>();
        for (JsonNode node : required(json, "nodes")) {
            if (required(node, "live").asBoolean()) {
                live.add(required(node, "nodeId").asInt());
            }
        }
        Map<Integer, Integer> holders = new TreeMap<>();
        Map<Integer, Long> epochs = new TreeMap<>();
        for (JsonNode shard : required(json, "shards")) {
            int number = required(shard, "shard").asInt();
            holders.put(number, required(shard, "nodeId").asInt());
            epochs.put(number, required(shard, "epoch").asLong());
        }
        return new ClusterSnapshot(required(json, "nodeId").asInt(), required(json, "shardCount").asInt(), live,
                holders, epochs, readAtMs);
    }

    private static JsonNode required(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalStateException("GET /api/cluster: no '" + field + "' in " + json);
        }
        return value;
    }

    /** The shards {@code nodeId} holds. */
    Set<Integer> shardsHeldBy(int nodeId) {
        Set<Integer> held = new TreeSet<>();
        holders.forEach((shard, holder) -> {
            if (holder == nodeId) {
                held.add(shard);
            }
        });
        return held;
    }

    /** Shards nobody holds now. */
    int unheldShards() {
        return (int) holders.values().stream().filter(holder -> holder < 0).count();
    }

    /** Whether every one of {@code shards} is held, and by a node other than {@code formerHolder}. */
    boolean movedAway(Set<Integer> shards, int formerHolder) {
        return shards.stream().allMatch(s -> {
            int holder = holders.getOrDefault(s, -1);
            return holder >= 0 && holder != formerHolder;
        });
    }

    /**
     * Whether the shards are spread over exactly {@code nodeIds}: those and only those are live, every shard is held,
     * and each of them holds at least half its fair share.
     */
    boolean spreadOver(Set<Integer> nodeIds) {
        int least = Math.max(1, shardCount / Math.max(1, nodeIds.size()) / 2);
        return liveNodeIds.equals(nodeIds) && unheldShards() == 0
                && nodeIds.stream().allMatch(id -> shardsHeldBy(id).size() >= least);
    }

    /** Node id → shards held, for messages. */
    Map<Integer, Integer> shardsPerNode() {
        Map<Integer, Integer> counts = new TreeMap<>();
        holders.values().stream().filter(h -> h >= 0).forEach(h -> counts.merge(h, 1, Integer::sum));
        return counts;
    }

    /** One line: who holds how many shards, who is live. */
    String describe() {
        List<String> parts = new ArrayList<>();
        shardsPerNode().forEach((node, count) -> parts.add("node " + node + ": " + count));
        return "shards " + String.join(", ", parts) + ", unheld " + unheldShards() + "; live nodes "
                + new TreeSet<>(liveNodeIds) + " (answered by node " + answeringNode + ")";
    }
}
