package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import dev.tickwheel.server.cluster.LocalLeases.Lease;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.MemberEvictedException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lease round (see {@link LeaseKeeper} for the algorithm and why it is safe): expires overdue shards, renews,
 * handles eviction, then hands the view to the {@link Rebalancer}. Remembers between rounds when the last renewal was
 * sent, and keeps the counters.
 *
 * <p>Not thread-safe: confined to one round at a time ({@link LeaseKeeper} serializes them). {@link #stats} and
 * {@link #onRenewLatency} may be called from any thread.
 */
final class LeaseRounds {

    private static final Logger log = LoggerFactory.getLogger(LeaseRounds.class);
    private static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(10);

    private final ClusterStore store;
    private final int nodeId;
    private final LeaseKeeper.Settings settings;
    private final Ticker ticker;
    private final GuardedShardListener listener;
    private final LocalLeases local;
    private final Rebalancer rebalancer;
    /** ttl − safetyMargin: how long after a renewal was sent its shards count as held. */
    private final long validityNanos;
    private final RepeatedFailureLog renewFailureLog;
    private final RepeatedFailureLog storeFailureLog;
    private final long createdNanos;

    /** Written by rounds only, read by stats() on other threads. */
    private volatile boolean renewedOnce;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long lastRenewSentNanos;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long lastRenewLatencyNanos = -1;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long renewals;
    /** Written by rounds only, read by stats() on other threads. */
    private volatile long renewFailures;
    /** Rounds that threw and observer calls that threw; incremented on the round's thread, read by stats(). */
    private final AtomicLong failures = new AtomicLong();
    /** Set before the listener hears of the eviction, read by LeaseKeeper.close() (which the listener may call). */
    private volatile boolean evicted;
    /** Set by LeaseKeeper.onRenewLatency on any thread, called by rounds. */
    private volatile LongConsumer renewLatencyObserver = latencyNanos -> { };

    LeaseRounds(ClusterStore store, int nodeId, LeaseKeeper.Settings settings, Ticker ticker, ShardListener listener,
                LocalLeases local) {
        this.store = store;
        this.nodeId = nodeId;
        this.settings = settings;
        this.ticker = ticker;
        this.listener = new GuardedShardListener(listener, nodeId);
        this.local = local;
        this.validityNanos = settings.ttl().minus(settings.safetyMargin()).toNanos();
        this.renewFailureLog = new RepeatedFailureLog(log, "lease renewal of node " + nodeId, FAILURE_LOG_INTERVAL,
                ticker);
        this.storeFailureLog = new RepeatedFailureLog(log, "shard rebalancing of node " + nodeId,
                FAILURE_LOG_INTERVAL, ticker);
        this.rebalancer = new Rebalancer(store, nodeId, settings, ticker, this.listener, local, storeFailureLog);
        this.createdNanos = ticker.read();
    }

    /** One round. Returns false once this member has been evicted: it must run no more rounds. */
    boolean run() {
        expireOverdue(ticker.read());
        if (!renewedOnce || ticker.read() - lastRenewSentNanos >= settings.renewInterval().toNanos()) {
            try {
                if (!renew()) {
                    return true; // nothing else is safe to decide while this member's own leases are in doubt
                }
            } catch (MemberEvictedException e) {
                evict(e);
                return false;
            }
        }
        ClusterView view;
        try {
            view = store.view();
        } catch (RuntimeException e) {
            storeFailureLog.failed(e);
            return true;
        }
        rebalancer.rebalance(view);
        return true;
    }

    /** Shards whose deadline has passed are lost: the store may already have given them to another member. */
    private void expireOverdue(long nowNanos) {
        Set<Integer> lost = new TreeSet<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            Lease lease = entry.getValue();
            if (!lease.validAt(nowNanos)) {
                local.remove(entry.getKey());
                if (!lease.draining()) {
                    lost.add(entry.getKey()); // a draining shard was reported lost when its drain began
                }
            }
        }
        if (!lost.isEmpty()) {
            log.warn("node {}: {} shards lost, not renewed in time (the last renewal was sent {} ms ago): {}",
                    nodeId, lost.size(), (nowNanos - lastRenewSentNanos) / 1_000_000, lost);
            listener.lost(lost);
        }
    }

    /**
     * Renews, then brings the local table in line with what the store returned. Returns false if the renewal failed.
     *
     * @throws MemberEvictedException if another member has taken this node id
     */
    private boolean renew() {
        long sentNanos = ticker.read();
        ClusterStore.Renewal renewal;
        try {
            renewal = store.renew(settings.ttl());
        } catch (MemberEvictedException e) {
            throw e;
        } catch (RuntimeException e) {
            renewFailures++;
            renewFailureLog.failed(e);
            return false;
        }
        long latencyNanos = ticker.read() - sentNanos;
        lastRenewSentNanos = sentNanos;
        renewedOnce = true;
        lastRenewLatencyNanos = latencyNanos;
        renewals++;
        renewFailureLog.succeeded();
        observeLatency(latencyNanos);

        // The store extended every lease it returned to ttl after it executed the renewal, which was after sentNanos:
        // so each of them is certainly unexpired until sentNanos + ttl - margin.
        long deadlineNanos = sentNanos + validityNanos;
        Map<Integer, Long> held = renewal.held();
        Set<Integer> lost = new TreeSet<>();
        for (Map.Entry<Integer, Lease> entry : local.entries().entrySet()) {
            int shard = entry.getKey();
            Lease lease = entry.getValue();
            Long epoch = held.get(shard);
            if (epoch != null && epoch == lease.epoch()) {
                local.put(shard, lease.extendedTo(deadlineNanos));
            } else {
                local.remove(shard);
                if (!lease.draining()) {
                    lost.add(shard);
                }
            }
        }
        Map<Integer, Long> regained = new TreeMap<>();
        for (Map.Entry<Integer, Long> entry : held.entrySet()) {
            if (local.get(entry.getKey()) == null) { // held in the store, not here: dropped after failed renewals
                local.put(entry.getKey(), Lease.active(entry.getValue(), deadlineNanos));
                regained.put(entry.getKey(), entry.getValue());
            }
        }
        if (!lost.isEmpty()) {
            log.warn("node {}: {} shards lost, the store no longer gives them to this member: {}", nodeId,
                    lost.size(), lost);
            listener.lost(lost);
        }
        if (!regained.isEmpty()) {
            log.info("node {}: {} shards held again after the renewal: {}", nodeId, regained.size(),
                    regained.keySet());
            listener.acquired(regained);
        }
        return true;
    }

    private void evict(MemberEvictedException cause) {
        evicted = true;
        Set<Integer> active = new TreeSet<>();
        local.closeAll().forEach((shard, lease) -> {
            if (!lease.draining()) {
                active.add(shard);
            }
        });
        log.error("node {}: evicted, another member took this node id; dropping every shard and stopping", nodeId,
                cause);
        if (!active.isEmpty()) {
            listener.lost(active);
        }
        listener.evicted(cause);
    }

    /** Whether a round found this member evicted; from then on its node row is another member's. */
    boolean evicted() {
        return evicted;
    }

    LeaseStats stats(int shardsHeld, int shardsDraining) {
        long since = ticker.read() - (renewedOnce ? lastRenewSentNanos : createdNanos);
        return new LeaseStats(shardsHeld, shardsDraining, renewals, renewFailures, lastRenewLatencyNanos, since,
                rebalancer.takeovers(), rebalancer.shardsReleased(), failures.get() + listener.failures());
    }

    void onRenewLatency(LongConsumer observer) {
        renewLatencyObserver = observer;
    }

    /** Counts a round that threw; called by the keeper's guard after the round. */
    void roundFailed() {
        failures.incrementAndGet();
    }

    private void observeLatency(long latencyNanos) {
        try {
            renewLatencyObserver.accept(latencyNanos);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            log.error("node {}: the renewal latency observer failed", nodeId, e);
        }
    }
}
