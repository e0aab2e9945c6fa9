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
    void cancel_pendingId_cancelsAndRemovesInOneStep_unknownOrStartedReturnsFalse() {
        PendingInstanceIndex index = new PendingInstanceIndex(2);
        InstanceTimeout pending = new InstanceTimeout(11, () -> { }, index);
        InstanceTimeout started = new InstanceTimeout(12, () -> { }, index);
        index.putIfAbsent(pending);
        index.putIfAbsent(started);
        started.run();
        assertEquals(true, index.cancel(11));
        assertEquals(true, pending.isCancelled());
        assertNull(index.get(11), "removed by the cancel");
        assertEquals(false, index.cancel(11), "second cancel");
        assertEquals(false, index.cancel(12), "started, and removed when it started");
        assertEquals(false, index.cancel(99), "unknown");
        assertEquals(0, index.size());
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
