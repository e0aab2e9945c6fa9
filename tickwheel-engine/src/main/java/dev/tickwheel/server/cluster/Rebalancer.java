package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import dev.tickwheel.server.cluster.LocalLeases.Lease;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second half of a lease round: from a {@link ClusterView}, moves this member's shards towards what
 * {@link Rendezvous} prefers among the live members (for a held shard, among those that have started their lease
 * rounds), in this order: drops held shards the view shows taken, holds again
 * draining shards it is preferred for again, releases drained shards, starts draining shards another member is
 * preferred for, and acquires the free shards it is preferred for. {@link LeaseKeeper} explains why that is safe.
 *
 * <p>Not thread-safe: confined to one lease round at a time. The counters are read by any thread.
 */
final class Rebalancer {

    private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);

    private final ClusterStore store;
    private final int nodeId;
    private final long session;
    private final LeaseKeeper.Settings settings;
    private final Ticker ticker;
    private final ShardListener listener;
    private final LocalLeases local;
    private final RepeatedFailureLog failureLog;
    /** ttl − safetyMargin: how long after an acquisition was sent its shards count as held. */
    private final long validityNanos;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long takeovers;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long shardsReleased;
    private Set<Integer> lastLiveMembers = Set.of();
    private Set<Integer> lastRunningMembers = Set.of();

    Rebalancer(ClusterStore store, int nodeId, LeaseKeeper.Settings settings, Ticker ticker, ShardListener listener,
               LocalLeases local, RepeatedFailureLog failureLog) {
        this.store = store;
        this.nodeId = nodeId;
        this.session = store.session();
        this.settings = settings;
        this.ticker = ticker;
        this.listener = listener;
        this.local = local;
        this.failureLog = failureLog;
        this.validityNanos = settings.ttl().minus(settings.safetyMargin()).toNanos();
    }

    long takeovers() {
        return takeovers;
    }

    long shardsReleased() {
        return shardsReleased;
    }

    void rebalance(ClusterView view) {
        long dbNowMs = view.dbNowMs();
        // Two sets of members. A member joins when its server opens but runs lease rounds only once scheduling
        // starts (seconds later, after recovery): until it has renewed, shards drained to it would lie free, so
        // held shards move only to members that renewed ("running"). Free shards it is preferred for are left to it
        // while its node row is live ("live"), so that members starting together do not first take everything and
        // then hand it on; should it never start, its row expires after a TTL and they are taken then.
        Set<Integer> live = new TreeSet<>();
        Set<Integer> running = new TreeSet<>();
        live.add(nodeId); // live by its own renewal, whatever a view read before it says
        running.add(nodeId);
        for (ClusterView.Member member : view.members()) {
            if (member.liveAt(dbNowMs)) {
                live.add(member.nodeId());
                if (member.renewedSinceJoin()) {
                    running.add(member.nodeId());
                }
            }
        }
        int[] preferred = Rendezvous.assign(running, local.shardCount());
        int[] preferredOfFree = live.equals(running) ? preferred : Rendezvous.assign(live, local.shardCount());
        if (!live.equals(lastLiveMembers) || !running.equals(lastRunningMembers)) {
            log.info("node {}: live members {} (running {}), preferred shards {}", nodeId, live, running,
                    Rendezvous.describe(preferred));
            lastLiveMembers = live;
            lastRunningMembers = running;
        }
        ClusterView.ShardLease[] leases = new ClusterView.ShardLease[local.shardCount()];
        for (ClusterView.ShardLease lease : view.leases()) {
            if (lease.shard() >= 0 && lease.shard() < leases.length) {
                leases[lease.shard()] = lease;
            }
        }
        dropContradicted(leases);
        resumeReturned(preferred);
        boolean released = releaseDrained();
        startDrains(preferred);
        if (acquireFree(preferredOfFree, leases, dbNowMs) && released) {
            failureLog.succeeded();
        }
    }

    /**
     * A held shard the view shows under another owner or epoch was taken: believe the store at once rather than at
     * the next renewal. (A release that failed but took effect shows up here too, for a shard already draining.)
     */
    private void dropContradicted(ClusterView.ShardLease[] leases) {
        Set<Integer> lost = new TreeSet<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            ClusterView.ShardLease lease = leases[entry.getKey()];
            if (lease != null && (lease.ownerSession() != session || lease.epoch() != entry.getValue().epoch())) {
                local.remove(entry.getKey());
                if (!entry.getValue().draining()) {
                    lost.add(entry.getKey());
                }
            }
        }
        if (!lost.isEmpty()) {
            log.warn("node {}: {} shards lost, the store shows them taken: {}", nodeId, lost.size(), lost);
            listener.lost(lost);
        }
    }

    /** Draining shards this member is preferred for again: held again, under the lease they never gave up. */
    private void resumeReturned(int[] preferred) {
        Map<Integer, Long> resumed = new TreeMap<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            if (entry.getValue().draining() && preferred[entry.getKey()] == nodeId) {
                local.put(entry.getKey(), entry.getValue().resumed());
                resumed.put(entry.getKey(), entry.getValue().epoch());
            }
        }
        if (!resumed.isEmpty()) {
            log.info("node {}: {} draining shards are this member's again: {}", nodeId, resumed.size(),
                    resumed.keySet());
            listener.acquired(resumed);
        }
    }

    /**
     * Releases the shards that were draining before this round and are drained, or have drained for maxDrain; false
     * if the release failed. A shard whose drain begins this round is first asked about in the next, so that work
     * which checked {@link ShardOwnership#holds} just before the drain began has a check interval to show up in
     * {@link ShardListener#drained}.
     */
    private boolean releaseDrained() {
        long nowNanos = ticker.read();
        List<Integer> ready = new ArrayList<>();
        List<Integer> forced = new ArrayList<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            Lease lease = entry.getValue();
            if (!lease.draining()) {
                continue;
            }
            if (nowNanos - lease.drainingSinceNanos() >= settings.maxDrain().toNanos()) {
                forced.add(entry.getKey());
            } else if (listener.drained(Set.of(entry.getKey()))) {
                ready.add(entry.getKey());
            }
        }
        if (ready.isEmpty() && forced.isEmpty()) {
            return true;
        }
        List<Integer> release = new ArrayList<>(ready);
        release.addAll(forced);
        try {
            store.release(release);
        } catch (RuntimeException e) {
            failureLog.failed(e); // still draining and renewed: tried again next round
            return false;
        }
        release.forEach(local::remove);
        shardsReleased += release.size();
        if (!ready.isEmpty()) {
            log.info("node {}: released {} drained shards: {}", nodeId, ready.size(), ready);
        }
        if (!forced.isEmpty()) {
            log.warn("node {}: released {} shards still undrained after maxDrain {}: {}", nodeId, forced.size(),
                    settings.maxDrain(), forced);
        }
        return true;
    }

    /** Held shards that a live member is preferred for: lost at once, released once drained. */
    private void startDrains(int[] preferred) {
        long nowNanos = ticker.read();
        Set<Integer> draining = new TreeSet<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            if (!entry.getValue().draining() && preferred[entry.getKey()] != nodeId) {
                local.put(entry.getKey(), entry.getValue().drainingFrom(nowNanos));
                draining.add(entry.getKey());
            }
        }
        if (!draining.isEmpty()) {
            log.info("node {}: draining {} shards to other members: {}", nodeId, draining.size(), draining);
            listener.lost(draining);
        }
    }

    /** Takes the shards this member is preferred for that nobody holds by the database's clock; false if it failed. */
    private boolean acquireFree(int[] preferred, ClusterView.ShardLease[] leases, long dbNowMs) {
        List<Integer> wanted = new ArrayList<>();
        for (int shard = 0; shard < preferred.length; shard++) {
            if (preferred[shard] == nodeId && local.get(shard) == null
                    && (leases[shard] == null || !leases[shard].heldAt(dbNowMs))) {
                wanted.add(shard);
            }
        }
        if (wanted.isEmpty()) {
            return true;
        }
        long sentNanos = ticker.read();
        Map<Integer, Long> acquired;
        try {
            acquired = new TreeMap<>(store.acquire(wanted, settings.ttl()));
        } catch (RuntimeException e) {
            failureLog.failed(e); // if it took some after all, the next renewal says so
            return false;
        }
        int takenOver = 0;
        for (Map.Entry<Integer, Long> entry : acquired.entrySet()) {
            int shard = entry.getKey();
            ClusterView.ShardLease before = leases[shard];
            if (before != null && before.epoch() != 0 && before.epoch() != local.lastEpoch(shard)) {
                takenOver++; // another member held it since this one last did
            }
            // The store set the lease to expire ttl after it executed the acquisition, which was after sentNanos.
            local.put(shard, Lease.active(entry.getValue(), sentNanos + validityNanos));
        }
        takeovers += takenOver;
        if (!acquired.isEmpty()) {
            log.info("node {}: acquired {} shards ({} held by another member before): {}", nodeId, acquired.size(),
                    takenOver, acquired.keySet());
            listener.acquired(acquired);
        }
        return true;
    }
}
