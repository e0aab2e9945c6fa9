package dev.tickwheel.server.store;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Cluster membership and shard leases as one member (one opened store, one {@link #session()}) sees and changes them.
 * Every time here is judged by the <em>database's</em> clock, never by a node's: a lease is expired when the database
 * says so, so nodes whose clocks disagree still agree on who owns what.
 *
 * <p>The tables: one row per node id ({@code tw_node}: the session holding it, heartbeat, expiry) and one row per shard
 * ({@code tw_shard_lease}: owner node and session, epoch, when acquired, expiry). A shard's epoch grows by one every
 * time the shard changes hands, and only then; so (shard, epoch) names one owner, and a row claimed under an epoch can
 * be settled only while its claimant still holds that epoch (see {@link InstanceStore}).
 *
 * <p>Thread-safe.
 */
public interface ClusterStore {

    /** How long a node id whose member stopped renewing stays unused, so two processes never mint IDs with it at once. */
    Duration NODE_ID_REUSE_GRACE = Duration.ofSeconds(60);

    /** Shards of this store, fixed when its schema was created (256). */
    int shardCount();

    /**
     * The cluster's key for callback tokens ({@code dev.tickwheel.server.dispatch.CallbackTokens}): 32 random bytes
     * made by the first member that asks and shared by all through the store. Read once, then kept.
     */
    byte[] callbackKey();

    /** This member's session: random, distinct per opened store; the owner token of its leases. */
    long session();

    /**
     * True if the store can be opened by one process only (H2): a lease left by an earlier member of this store then
     * belonged to a process that is gone, and its calls are over.
     */
    boolean singleProcess();

    /**
     * Registers this member under a node id, leased like a shard: {@code requested} if given (refused if a live
     * member holds it), else the lowest id nobody has held for {@link #NODE_ID_REUSE_GRACE}.
     *
     * <p>On a {@link #singleProcess()} store, joining first ends every other member's node row and shard leases: they
     * belong to a process that no longer runs (the store's file lock proves it), so this member need not wait for
     * them to expire.
     *
     * @param description what the member calls itself in views (host, pid, address); at most 200 characters
     * @return the node id, 0..1023
     * @throws StoreInUseException if the requested id is held by a live member, or all 1024 are taken
     */
    int join(OptionalInt requested, String description, Duration ttl);

    /**
     * Heartbeat and renewal in one transaction: this member's node row and every shard lease it holds (expired or
     * not, as long as nobody took it) now expire {@code ttl} after the database's now.
     *
     * @return the shards this member holds after the renewal, with their epochs
     * @throws MemberEvictedException if this member's node row was taken by another member (it stopped renewing for
     *                                longer than the node id's grace)
     */
    Renewal renew(Duration ttl);

    /**
     * Takes those of {@code shards} that nobody holds (never held, released, or expired by the database's clock):
     * owner := this member, epoch := epoch + 1, acquired := now, expiry := now + ttl. One compare-and-set per shard,
     * so of two members racing for a shard exactly one gets it.
     *
     * @return the shards taken, with their new epochs
     */
    Map<Integer, Long> acquire(Collection<Integer> shards, Duration ttl);

    /** Gives up those of {@code shards} this member holds, at once: another member may take them right away. */
    void release(Collection<Integer> shards);

    /** Releases every shard this member holds and ends its node row (a graceful stop). Idempotent. */
    void leave();

    /** Members and leases as the database sees them now. */
    ClusterView view();

    /** The outcome of {@link #renew}: the database's now, and shard → epoch of every lease this member holds. */
    record Renewal(long dbNowMs, Map<Integer, Long> held) {
        public Renewal {
            held = Map.copyOf(held);
        }
    }
}
