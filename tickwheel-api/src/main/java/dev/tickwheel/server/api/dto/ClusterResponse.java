package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Answer of {@code GET /api/cluster}: the members and the shard leases as the store sees them, judged by the
 * database's clock. Any member answers it the same way.
 *
 * <p>Immutable.
 *
 * @param nodeId     the answering member's node id
 * @param shardCount shards of the store (fixed at schema creation)
 * @param nodes      every node row, live or not
 * @param shards     every shard's lease
 */
public record ClusterResponse(int nodeId, int shardCount, List<Node> nodes, List<Shard> shards) {

    /**
     * One member.
     *
     * @param nodeId         0..1023
     * @param description    host and process id
     * @param live           its node lease is unexpired
     * @param self           it is the answering member
     * @param startedAt      when it joined (ISO-8601, UTC)
     * @param heartbeatAgeMs since its last renewal
     * @param shardsHeld     shards whose unexpired lease it holds
     */
    public record Node(int nodeId, String description, boolean live, boolean self, String startedAt,
                       long heartbeatAgeMs, int shardsHeld) {
    }

    /**
     * One shard's lease.
     *
     * @param shard       0..shardCount-1
     * @param nodeId      the holder's node id, or -1 if nobody holds it
     * @param epoch       grows by one each time the shard changes hands
     * @param heldForMs   since the holder acquired it (0 if nobody holds it)
     * @param expiresInMs until it may be taken unless renewed (negative: expired)
     */
    public record Shard(int shard, int nodeId, long epoch, long heldForMs, long expiresInMs) {
    }
}
