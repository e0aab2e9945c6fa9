package dev.tickwheel.server.cluster.process;

import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.fixtures.cluster.ClusterProcesses;
import dev.tickwheel.fixtures.cluster.ClusterSnapshot;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.ShardEpoch;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads {@code GET /api/cluster} from a running member every period and writes down which node held each
 * (shard, epoch) it saw held: the lease table's side of the story, to hold the ledger's against. Leases that live
 * shorter than the period may be missed; that is fine, the check is that what <em>was</em> seen agrees.
 *
 * <p>Thread-safe: one reading thread writes, any thread reads (the map is guarded by this).
 */
final class LeaseObserver implements AutoCloseable {

    private final ClusterProcesses nodes;
    private final ScheduledExecutorService reader = Executors.newSingleThreadScheduledExecutor(
            new NamedThreadFactory("lease-observer", true));
    private final Map<ShardEpoch, Set<Integer>> holders = new TreeMap<>(); // guarded by this
    private final AtomicInteger reads = new AtomicInteger(); // written by the reader, read by the test thread
    private final AtomicInteger unanswered = new AtomicInteger(); // likewise

    private LeaseObserver(ClusterProcesses nodes) {
        this.nodes = nodes;
    }

    static LeaseObserver start(ClusterProcesses nodes, Duration period) {
        LeaseObserver observer = new LeaseObserver(nodes);
        observer.reader.scheduleWithFixedDelay(observer::readOnce, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return observer;
    }

    private void readOnce() {
        try {
            Optional<ClusterSnapshot> snapshot = nodes.trySnapshot();
            if (snapshot.isEmpty()) {
                unanswered.incrementAndGet();
                return;
            }
            reads.incrementAndGet();
            synchronized (this) {
                for (ClusterSnapshot.ShardRow shard : snapshot.get().shards()) {
                    if (shard.nodeId() >= 0) {
                        holders.computeIfAbsent(new ShardEpoch(shard.shard(), shard.epoch()), se -> new TreeSet<>())
                                .add(shard.nodeId());
                    }
                }
            }
        } catch (RuntimeException e) {
            unanswered.incrementAndGet(); // a member went away mid-call, or the store is down; read again next time
        }
    }

    /** (shard, epoch) → the node ids seen holding it: one each, if the lease table is sound. */
    synchronized Map<ShardEpoch, Set<Integer>> holders() {
        Map<ShardEpoch, Set<Integer>> copy = new TreeMap<>();
        holders.forEach((se, ids) -> copy.put(se, Set.copyOf(ids)));
        return copy;
    }

    int reads() {
        return reads.get();
    }

    int unanswered() {
        return unanswered.get();
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}
