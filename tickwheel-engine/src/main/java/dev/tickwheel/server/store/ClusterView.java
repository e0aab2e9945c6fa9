package dev.tickwheel.server.store;

import java.util.List;

/**
 * The cluster's tables at one moment, read in one statement each: every node row and every shard lease, with the
 * database's now to judge their expiries by.
 *
 * <p>Immutable.
 *
 * @param dbNowMs the database's clock when read, epoch milliseconds
 * @param members every node row, live or not, by node id
 * @param leases  every shard's lease, by shard
 */
public record ClusterView(long dbNowMs, List<Member> members, List<ShardLease> leases) {

    public ClusterView {
        members = List.copyOf(members);
        leases = List.copyOf(leases);
    }

    /**
     * One node id's row.
     *
     * @param nodeId       0..1023
     * @param session      the session holding it
     * @param description  what the member calls itself
     * @param startedAtMs  when the member joined (database clock)
     * @param heartbeatAtMs its last renewal (database clock)
     * @param expiresAtMs  when it stops counting as live unless renewed; in the past after a graceful leave
     */
    public record Member(int nodeId, long session, String description, long startedAtMs, long heartbeatAtMs,
                         long expiresAtMs) {

        public boolean liveAt(long dbNowMs) {
            return expiresAtMs > dbNowMs;
        }

        /**
         * Whether it renewed since it joined, that is, its lease rounds run. A member joins when its server opens
         * (it needs its node id for the id generator) but starts its rounds only when scheduling starts; others
         * drain shards to it only from then on, or they would lie free until it takes them. Same millisecond on
         * the database's clock counts as not yet: that member is counted one renewal later.
         */
        public boolean renewedSinceJoin() {
            return heartbeatAtMs > startedAtMs;
        }
    }

    /**
     * One shard's lease.
     *
     * @param shard        0..shardCount-1
     * @param ownerNode    the owner's node id, or -1 if never held or released
     * @param ownerSession the owner's session, or 0 if never held or released
     * @param epoch        grows by one each time the shard changes hands; 0 if never held
     * @param acquiredAtMs when the current owner took it (database clock); 0 if never held
     * @param expiresAtMs  when it may be taken unless renewed (database clock)
     */
    public record ShardLease(int shard, int ownerNode, long ownerSession, long epoch, long acquiredAtMs,
                             long expiresAtMs) {

        public boolean heldAt(long dbNowMs) {
            return ownerSession != 0 && expiresAtMs > dbNowMs;
        }
    }
}
