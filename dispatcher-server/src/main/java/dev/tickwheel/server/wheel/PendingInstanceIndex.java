package dev.tickwheel.server.wheel;

/**
 * CARGO: every pending instance by its unique ID, so that anyone can cancel it.
 *
 * <p>The index stores the {@link InstanceTimeout} nodes themselves and takes the key from the node, so an entry costs
 * one array slot (4 bytes with compressed references, at a load factor between 3/8 and 3/4) instead of a map entry
 * object and a boxed {@code Long}. It is split into lock stripes chosen by the high bits of a mixed key; each stripe
 * is an open-addressing table with linear probing and backward-shift deletion (no tombstones), grown at 3/4 full and
 * shrunk below 1/8 so that a burst does not pin memory. Operations are O(1) expected.
 *
 * <p>Thread-safe: each stripe is guarded by its own monitor; {@link #size()} sums the stripes without locking them
 * all, so it is exact only when no operation runs concurrently.
 */
final class PendingInstanceIndex {

    private static final int MIN_CAPACITY = 16;

    private final Stripe[] stripes;
    private final int stripeShift;

    /** @param stripeCount rounded up to a power of 2 */
    PendingInstanceIndex(int stripeCount) {
        int n = Integer.highestOneBit(Math.max(1, stripeCount - 1)) << 1;
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe();
        }
        this.stripeShift = 64 - Integer.numberOfTrailingZeros(n);
    }

    /**
     * Inserts {@code node} unless a pending node with the same ID is present.
     *
     * @return the pending node that blocked the insert, or {@code null} if {@code node} was inserted
     */
    InstanceTimeout putIfAbsent(InstanceTimeout node) {
        long hash = mix(node.uniqueId());
        return stripeFor(hash).putIfAbsent(node, hash);
    }

    InstanceTimeout get(long uniqueId) {
        long hash = mix(uniqueId);
        return stripeFor(hash).get(uniqueId, hash);
    }

    /** Removes exactly this node (not a newer node that reuses its ID). */
    void remove(InstanceTimeout node) {
        long hash = mix(node.uniqueId());
        stripeFor(hash).remove(node, hash);
    }

    int size() {
        int size = 0;
        for (Stripe stripe : stripes) {
            size += stripe.size;
        }
        return size;
    }

    /** Removes every node and returns them. */
    java.util.List<InstanceTimeout> drain() {
        java.util.List<InstanceTimeout> all = new java.util.ArrayList<>();
        for (Stripe stripe : stripes) {
            stripe.drainTo(all);
        }
        return all;
    }

    private Stripe stripeFor(long hash) {
        return stripes[stripeShift == 64 ? 0 : (int) (hash >>> stripeShift)];
    }

    /** Murmur3's 64-bit finalizer: Snowflake IDs differ mostly in their low and middle bits. */
    static long mix(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    private static final class Stripe {
        private InstanceTimeout[] table = new InstanceTimeout[MIN_CAPACITY];
        // volatile: size() reads it without the lock.
        private volatile int size;

        synchronized InstanceTimeout putIfAbsent(InstanceTimeout node, long hash) {
            int mask = table.length - 1;
            int i = (int) hash & mask;
            for (InstanceTimeout e; (e = table[i]) != null; i = (i + 1) & mask) {
                if (e.uniqueId() == node.uniqueId()) {
                    if (e.isPending()) {
                        return e;
                    }
                    // Started or cancelled a moment ago, about to remove itself: the ID is free again.
                    table[i] = node;
                    return null;
                }
            }
            table[i] = node;
            size++;
            if (size > (table.length >>> 2) * 3) {
                resize(table.length << 1);
            }
            return null;
        }

        synchronized InstanceTimeout get(long uniqueId, long hash) {
            int mask = table.length - 1;
            for (int i = (int) hash & mask; table[i] != null; i = (i + 1) & mask) {
                if (table[i].uniqueId() == uniqueId) {
                    return table[i];
                }
            }
            return null;
        }

        synchronized void remove(InstanceTimeout node, long hash) {
            int mask = table.length - 1;
            int i = (int) hash & mask;
            while (table[i] != node) {
                if (table[i] == null) {
                    return;
                }
                i = (i + 1) & mask;
            }
            deleteAt(i, mask);
            size--;
            if (table.length > MIN_CAPACITY && size < table.length >>> 3) {
                resize(table.length >>> 1);
            }
        }

        /** Backward-shift deletion: moves later entries of the probe run into the hole so lookups never stop early. */
        private void deleteAt(int hole, int mask) {
            table[hole] = null;
            int j = hole;
            while (true) {
                j = (j + 1) & mask;
                InstanceTimeout e = table[j];
                if (e == null) {
                    return;
                }
                int home = (int) mix(e.uniqueId()) & mask;
                // e may move into the hole only if its home is not cyclically within (hole, j].
                boolean homeInRange = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
                if (!homeInRange) {
                    table[hole] = e;
                    table[j] = null;
                    hole = j;
                }
            }
        }

        private void resize(int capacity) {
            InstanceTimeout[] old = table;
            InstanceTimeout[] fresh = new InstanceTimeout[capacity];
            int mask = capacity - 1;
            for (InstanceTimeout e : old) {
                if (e != null) {
                    int i = (int) mix(e.uniqueId()) & mask;
                    while (fresh[i] != null) {
                        i = (i + 1) & mask;
                    }
                    fresh[i] = e;
                }
            }
            table = fresh;
        }

        synchronized void drainTo(java.util.List<InstanceTimeout> sink) {
            for (InstanceTimeout e : table) {
                if (e != null) {
                    sink.add(e);
                }
            }
            table = new InstanceTimeout[MIN_CAPACITY];
            size = 0;
        }
    }
}
