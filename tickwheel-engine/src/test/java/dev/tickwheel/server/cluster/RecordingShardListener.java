package dev.tickwheel.server.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A {@link ShardListener} that records what it is told and checks the protocol as it goes: {@code acquired} only for
 * shards it was not holding, {@code lost} only for shards it was. A violation throws {@link AssertionError}, which the
 * keeper does not catch, so it fails the test at the round that broke the protocol.
 *
 * <p>Not thread-safe: the keeper calls it from one thread at a time, and tests read it between rounds.
 */
final class RecordingShardListener implements ShardListener {

    /** Every call, in order: "acquired {shard=epoch, ...}", "lost [shards]", "evicted". */
    final List<String> events = new ArrayList<>();
    /** What this listener was told it holds: shard → epoch. */
    final Map<Integer, Long> held = new TreeMap<>();
    /** Shards whose calls have not settled: drained() says false for any set that contains one. */
    final Set<Integer> busy = new HashSet<>();
    /** How often each shard was reported lost. */
    final Map<Integer, Integer> lostCount = new TreeMap<>();
    /** Shards acquired since the last {@link #clearEvents}. */
    final Set<Integer> acquiredSinceClear = new HashSet<>();
    RuntimeException evictedBy;
    int drainedAsked;

    @Override
    public void acquired(Map<Integer, Long> shards) {
        for (Map.Entry<Integer, Long> entry : shards.entrySet()) {
            if (held.containsKey(entry.getKey())) {
                throw new AssertionError("acquired shard " + entry.getKey() + " that the listener holds; events "
                        + events);
            }
            held.put(entry.getKey(), entry.getValue());
            acquiredSinceClear.add(entry.getKey());
        }
        events.add("acquired " + new TreeMap<>(shards));
    }

    @Override
    public void lost(Set<Integer> shards) {
        for (int shard : shards) {
            if (held.remove(shard) == null) {
                throw new AssertionError("lost shard " + shard + " that the listener does not hold; events " + events);
            }
            lostCount.merge(shard, 1, Integer::sum);
        }
        events.add("lost " + shards);
    }

    @Override
    public boolean drained(Set<Integer> shards) {
        drainedAsked++;
        return Collections.disjoint(busy, shards);
    }

    @Override
    public void evicted(RuntimeException cause) {
        evictedBy = cause;
        events.add("evicted");
    }

    /** Forgets the events and counts, not what is held. */
    void clearEvents() {
        events.clear();
        lostCount.clear();
        acquiredSinceClear.clear();
    }
}
