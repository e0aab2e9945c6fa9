package dev.tickwheel.server.cluster;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.ClusterView.Member;
import dev.tickwheel.server.store.ClusterView.ShardLease;
import dev.tickwheel.server.store.MemberEvictedException;
import dev.tickwheel.server.store.StoreInUseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The cluster tables in memory, shared by the {@link FakeClusterStore}s of several members: a model of
 * {@link ClusterStore}'s contract with its own settable clock for "the database's now". Each method is one atomic
 * transaction, like the JDBC store's.
 *
 * <p>Thread-safe: guarded by this.
 */
final class FakeClusterDatabase {

    private static final int MAX_NODE_ID = 1023;

    private final int shardCount;
    private final Map<Integer, Member> nodes = new TreeMap<>();
    private final ShardLease[] leases;
    private long nowMs;
    private long nextSession = 0x5e55_1000L;

    FakeClusterDatabase(int shardCount, long startMs) {
        this.shardCount = shardCount;
        this.nowMs = startMs;
        this.leases = new ShardLease[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            leases[shard] = new ShardLease(shard, -1, 0, 0, 0, 0);
        }
    }

    int shardCount() {
        return shardCount;
    }

    /** A new member's store: a fresh session, not joined yet. */
    synchronized FakeClusterStore open() {
        return new FakeClusterStore(this, nextSession++);
    }

    synchronized long nowMs() {
        return nowMs;
    }

    synchronized void advance(Duration duration) {
        nowMs += duration.toMillis();
    }

    synchronized ShardLease lease(int shard) {
        return leases[shard];
    }

    synchronized Member member(int nodeId) {
        return nodes.get(nodeId);
    }

    synchronized int join(long session, OptionalInt requested, String description, Duration ttl) {
        int nodeId;
        if (requested.isPresent()) {
            nodeId = requested.getAsInt();
            Member holder = nodes.get(nodeId);
            if (holder != null && holder.liveAt(nowMs) && holder.session() != session) {
                throw new StoreInUseException("node id " + nodeId + " is held by a live member", null);
            }
        } else {
            nodeId = lowestReusableId();
        }
        nodes.put(nodeId, new Member(nodeId, session, description, nowMs, nowMs, nowMs + ttl.toMillis()));
        return nodeId;
    }

    private int lowestReusableId() {
        long graceMs = ClusterStore.NODE_ID_REUSE_GRACE.toMillis();
        for (int id = 0; id <= MAX_NODE_ID; id++) {
            Member holder = nodes.get(id);
            if (holder == null || holder.expiresAtMs() + graceMs <= nowMs) {
                return id;
            }
        }
        throw new StoreInUseException("all " + (MAX_NODE_ID + 1) + " node ids are taken", null);
    }

    synchronized ClusterStore.Renewal renew(long session, int nodeId, Duration ttl) {
        Member row = nodes.get(nodeId);
        if (row == null || row.session() != session) {
            throw new MemberEvictedException("node id " + nodeId + " was taken by another member");
        }
        long expiresAtMs = nowMs + ttl.toMillis();
        nodes.put(nodeId, new Member(nodeId, session, row.description(), row.startedAtMs(), nowMs, expiresAtMs));
        Map<Integer, Long> held = new TreeMap<>();
        for (int shard = 0; shard < shardCount; shard++) {
            ShardLease lease = leases[shard];
            if (lease.ownerSession() == session) { // expired or not: nobody took it
                leases[shard] = new ShardLease(shard, nodeId, session, lease.epoch(), lease.acquiredAtMs(),
                        expiresAtMs);
                held.put(shard, lease.epoch());
            }
        }
        return new ClusterStore.Renewal(nowMs, held);
    }

    synchronized Map<Integer, Long> acquire(long session, int nodeId, Collection<Integer> shards, Duration ttl) {
        Map<Integer, Long> taken = new TreeMap<>();
        for (int shard : shards) {
            ShardLease lease = leases[shard];
            if (!lease.heldAt(nowMs)) { // compare-and-set: never held, released, or expired by this clock
                long epoch = lease.epoch() + 1;
                leases[shard] = new ShardLease(shard, nodeId, session, epoch, nowMs, nowMs + ttl.toMillis());
                taken.put(shard, epoch);
            }
        }
        return taken;
    }

    synchronized void release(long session, Collection<Integer> shards) {
        for (int shard : shards) {
            ShardLease lease = leases[shard];
            if (lease.ownerSession() == session) {
                leases[shard] = new ShardLease(shard, -1, 0, lease.epoch(), lease.acquiredAtMs(), nowMs);
            }
        }
    }

    synchronized void leave(long session, int nodeId) {
        List<Integer> mine = new ArrayList<>();
        for (ShardLease lease : leases) {
            if (lease.ownerSession() == session) {
                mine.add(lease.shard());
            }
        }
        release(session, mine);
        Member row = nodes.get(nodeId);
        if (row != null && row.session() == session && row.expiresAtMs() > nowMs - 1) {
            nodes.put(nodeId, new Member(nodeId, session, row.description(), row.startedAtMs(),
                    row.heartbeatAtMs(), nowMs - 1));
        }
    }

    synchronized ClusterView view() {
        return new ClusterView(nowMs, List.copyOf(nodes.values()), Arrays.asList(leases.clone()));
    }
}
