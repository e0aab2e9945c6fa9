package dev.tickwheel.server.cluster;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the lease round's news to the application's {@link ShardListener} so that a listener that throws cannot stop
 * the round: what it throws is logged and counted, and the round goes on as if the call had returned ({@code drained}
 * as if it had said false, so the shard waits for maxDrain). The listener gets sorted, unmodifiable copies.
 *
 * <p>Thread-safe: called by one lease round at a time; {@link #failures} is read by any thread.
 */
final class GuardedShardListener implements ShardListener {

    private static final Logger log = LoggerFactory.getLogger(GuardedShardListener.class);

    private final ShardListener listener;
    private final int nodeId;
    /** Incremented on the lease round, read by stats() on other threads. */
    private final AtomicLong failures = new AtomicLong();

    GuardedShardListener(ShardListener listener, int nodeId) {
        this.listener = listener;
        this.nodeId = nodeId;
    }

    @Override
    public void acquired(Map<Integer, Long> shards) {
        try {
            listener.acquired(Collections.unmodifiableMap(new TreeMap<>(shards)));
        } catch (RuntimeException e) {
            failed("acquired", e);
        }
    }

    @Override
    public void lost(Set<Integer> shards) {
        try {
            listener.lost(Collections.unmodifiableSet(new TreeSet<>(shards)));
        } catch (RuntimeException e) {
            failed("lost", e);
        }
    }

    @Override
    public boolean drained(Set<Integer> shards) {
        try {
            return listener.drained(Collections.unmodifiableSet(new TreeSet<>(shards)));
        } catch (RuntimeException e) {
            failed("drained", e);
            return false;
        }
    }

    @Override
    public void evicted(RuntimeException cause) {
        try {
            listener.evicted(cause);
        } catch (RuntimeException e) {
            failed("evicted", e);
        }
    }

    long failures() {
        return failures.get();
    }

    private void failed(String call, RuntimeException e) {
        failures.incrementAndGet();
        log.error("node {}: the shard listener's {} threw; the lease round goes on", nodeId, call, e);
    }
}
