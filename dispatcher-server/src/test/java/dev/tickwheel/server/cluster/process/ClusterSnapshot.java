package dev.tickwheel.server.cluster.process;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code GET /api/cluster} as one member answered it: members and shard leases judged by the database's clock. A
 * shard whose lease has expired or was released shows node -1.
 *
 * <p>Immutable.
 *
 * @param answeringNode the node id of the member that answered
 * @param shardCount    shards of the store
 * @param nodes         every node row, live or not
 * @param shards        every shard's lease
 * @param readAtMillis  when the answer arrived (test JVM wall clock)
 */
record ClusterSnapshot(int answeringNode, int shardCount, List<NodeRow> nodes, List<ShardRow> shards,
                       long readAtMillis) {

    /** One member row. */
    record NodeRow(int nodeId, String description, boolean live, boolean self, long heartbeatAgeMs, int shardsHeld) {
    }

    /** One shard lease; {@code nodeId} is -1 when nobody holds it. */
    record ShardRow(int shard, int nodeId, long epoch, long heldForMs, long expiresInMs) {
    }

    ClusterSnapshot {
        nodes = List.copyOf(nodes);
        shards = List.copyOf(shards);
    }

    /** Reads the answer, failing with the answer in the message if a field of the contract is missing. */
    static ClusterSnapshot parse(JsonNode json, long readAtMillis) {
        List<NodeRow> nodes = new ArrayList<>();
        for (JsonNode node : required(json, "nodes")) {
            nodes.add(new NodeRow(required(node, "nodeId").asInt(), required(node, "description").asText(),
                    required(node, "live").asBoolean(), required(node, "self").asBoolean(),
                    required(node, "heartbeatAgeMs").asLong(), required(node, "shardsHeld").asInt()));
            required(node, "startedAt");
        }
        List<ShardRow> shards = new ArrayList<>();
        for (JsonNode shard : required(json, "shards")) {
            shards.add(new ShardRow(required(shard, "shard").asInt(), required(shard, "nodeId").asInt(),
                    required(shard, "epoch").asLong(), required(shard, "heldForMs").asLong(),
                    required(shard, "expiresInMs").asLong()));
        }
        return new ClusterSnapshot(required(json, "nodeId").asInt(), required(json, "shardCount").asInt(), nodes,
                shards, readAtMillis);
    }

    private static JsonNode required(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            throw new AssertionError("GET /api/cluster: no '" + field + "' in " + json);
        }
        return value;
    }

    /** The shards {@code nodeId} holds (unexpired leases). */
    Set<Integer> shardsHeldBy(int nodeId) {
        Set<Integer> held = new TreeSet<>();
        shards.stream().filter(s -> s.nodeId() == nodeId).forEach(s -> held.add(s.shard()));
        return held;
    }

    /** Node ids whose node lease is unexpired. */
    Set<Integer> liveNodeIds() {
        Set<Integer> live = new TreeSet<>();
        nodes.stream().filter(NodeRow::live).forEach(n -> live.add(n.nodeId()));
        return live;
    }

    /** Shards nobody holds now (never taken, released, or expired). */
    int unheldShards() {
        return (int) shards.stream().filter(s -> s.nodeId() < 0).count();
    }

    /** Node id → shards held, for messages. */
    Map<Integer, Integer> shardsPerNode() {
        Map<Integer, Integer> counts = new TreeMap<>();
        shards.stream().filter(s -> s.nodeId() >= 0).forEach(s -> counts.merge(s.nodeId(), 1, Integer::sum));
        return counts;
    }

    /** One line: who holds how many shards, who is live. */
    String describe() {
        return "shards per node " + shardsPerNode() + ", unheld " + unheldShards() + ", live nodes " + liveNodeIds()
                + " (answered by node " + answeringNode + ")";
    }
}
