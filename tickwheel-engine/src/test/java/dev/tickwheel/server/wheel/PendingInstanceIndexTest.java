package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CARGO index against a {@link HashMap} oracle: inserts, growth, shrinking and backward-shift deletion. */
class PendingInstanceIndexTest {

    @Test
    void operations_randomAgainstHashMap_agree() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        PendingInstanceIndex index = new PendingInstanceIndex(4);
        Map<Long, InstanceTimeout> oracle = new HashMap<>();
        List<Long> keys = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            // Few distinct keys collide often; sequential keys look like Snowflake IDs.
            long key = random.nextBoolean() ? random.nextInt(5_000) : 1_000_000L + step;
            if (op < 5 || oracle.isEmpty()) {
                InstanceTimeout node = new InstanceTimeout(key, () -> { }, index);
                InstanceTimeout blocked = index.putIfAbsent(node);
                if (oracle.containsKey(key)) {
                    assertSame(oracle.get(key), blocked, "seed=" + seed);
                } else {
                    assertNull(blocked, "seed=" + seed);
                    oracle.put(key, node);
                    keys.add(key);
                }
            } else if (op < 9) {
                long victim = keys.remove(random.nextInt(keys.size()));
                index.remove(oracle.remove(victim));
            } else {
                assertSame(oracle.get(key), index.get(key), "seed=" + seed + " key=" + key);
            }
            if (step % 1000 == 0) {
                for (Map.Entry<Long, InstanceTimeout> e : oracle.entrySet()) {
                    assertSame(e.getValue(), index.get(e.getKey()), "seed=" + seed + " key=" + e.getKey());
                }
            }
            assertEquals(oracle.size(), index.size(), "seed=" + seed);
        }
    }

    @Test
    void putIfAbsent_existingNoLongerPending_isReplaced() {
        PendingInstanceIndex index = new PendingInstanceIndex(1);
        InstanceTimeout first = new InstanceTimeout(7, () -> { }, new PendingInstanceIndex(1));
        index.putIfAbsent(first);
        first.run(); // started; its own removal went to another index, so it lingers here
        InstanceTimeout second = new InstanceTimeout(7, () -> { }, index);
        assertNull(index.putIfAbsent(second));
        assertSame(second, index.get(7));
        index.remove(first);
        assertSame(second, index.get(7), "removing the old node must not remove the new one");
        assertEquals(1, index.size());
    }

    @Test
    void cancel_pendingId_cancelsWithoutRemoving_theEntryGoesWhenTheWheelLetsGo_unknownOrStartedReturnsFalse() {
        PendingInstanceIndex index = new PendingInstanceIndex(2);
        InstanceTimeout pending = new InstanceTimeout(11, () -> { }, index);
        InstanceTimeout started = new InstanceTimeout(12, () -> { }, index);
        index.putIfAbsent(pending);
        index.putIfAbsent(started);
        started.run();
        assertEquals(true, index.cancel(11));
        assertEquals(true, pending.isCancelled());
        assertEquals(0, index.size(), "a cancelled entry no longer counts");
        assertSame(pending, index.get(11), "but stays until the wheel lets go of the node");
        assertEquals(false, index.cancel(11), "second cancel");
        assertEquals(false, index.cancel(12), "started, and removed when it started");
        assertEquals(false, index.cancel(99), "unknown");
        pending.run(); // what the dispatch does with a node cancelled after its hand-over: lets go of it
        assertNull(index.get(11), "removed once the wheel let go of it");
        assertEquals(0, index.size());
        InstanceTimeout again = new InstanceTimeout(11, () -> { }, index);
        assertNull(index.putIfAbsent(again), "the ID is free");
        assertEquals(true, index.cancel(11));
        InstanceTimeout third = new InstanceTimeout(11, () -> { }, index);
        assertNull(index.putIfAbsent(third), "a cancelled, lingering entry is replaced");
        assertEquals(1, index.size(), "and no longer counted as cancelled");
        again.run();
        assertSame(third, index.get(11), "letting go of the replaced node leaves the new one");
    }

    /**
     * The lock-free cancel never misses a pending instance while writers change its stripe. 1 000 instances stay
     * pending while two threads grow and shrink the same two stripes over and over (inserting and removing 20 000 other
     * IDs, so every stripe is rehashed many times) and a third reads the pending ones; two cancellers then cancel the
     * 1 000 in random order, each its own half, during the churn. Every cancel must return true, every read before its
     * cancel must find the node, and afterwards nothing pending is left among them.
     */
    @Test
    void cancel_racingGrowthAndShrinkingOfItsStripe_neverMissesAPendingInstance() throws Exception {
        for (int round = 0; round < 20; round++) {
            PendingInstanceIndex index = new PendingInstanceIndex(2);
            int stable = 1_000;
            List<InstanceTimeout> nodes = new ArrayList<>();
            for (long id = 0; id < stable; id++) {
                InstanceTimeout node = new InstanceTimeout(id, () -> { }, index);
                nodes.add(node);
                assertNull(index.putIfAbsent(node));
            }
            java.util.concurrent.atomic.AtomicBoolean churning = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.concurrent.ConcurrentLinkedQueue<String> wrong = new java.util.concurrent.ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                long base = 1_000_000L * (c + 1);
                threads.add(new Thread(() -> {
                    List<InstanceTimeout> mine = new ArrayList<>();
                    while (churning.get()) {
                        for (long id = base; id < base + 10_000; id++) {
                            InstanceTimeout node = new InstanceTimeout(id, () -> { }, index);
                            index.putIfAbsent(node);
                            mine.add(node);
                        }
                        mine.forEach(index::remove);
                        mine.clear();
                    }
                }));
            }
            threads.add(new Thread(() -> {
                while (churning.get()) {
                    for (InstanceTimeout node : nodes) {
                        InstanceTimeout seen = index.get(node.uniqueId());
                        if (seen != node) {
                            wrong.add("read of " + node.uniqueId() + " found " + seen);
                        }
                    }
                }
            }));
            threads.forEach(Thread::start);
            List<InstanceTimeout> order = new ArrayList<>(nodes);
            java.util.Collections.shuffle(order);
            List<Thread> cancellers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                int first = c;
                cancellers.add(new Thread(() -> {
                    for (int i = first; i < order.size(); i += 2) {
                        if (!index.cancel(order.get(i).uniqueId())) {
                            wrong.add("cancel of pending " + order.get(i).uniqueId() + " returned false");
                        }
                    }
                }));
            }
            cancellers.forEach(Thread::start);
            for (Thread canceller : cancellers) {
                canceller.join();
            }
            churning.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(List.of(), List.copyOf(wrong), "round " + round);
            assertEquals(0, index.size(), "round " + round + ": all cancelled, the churn's own removed");
            assertEquals(0, nodes.stream().filter(InstanceTimeout::isPending).count());
        }
    }

    @Test
    void drain_returnsEverythingAndEmpties() {
        PendingInstanceIndex index = new PendingInstanceIndex(8);
        for (long id = 0; id < 1000; id++) {
            index.putIfAbsent(new InstanceTimeout(id, () -> { }, index));
        }
        assertEquals(1000, index.drain().size());
        assertEquals(0, index.size());
        assertNull(index.get(5));
    }
}
