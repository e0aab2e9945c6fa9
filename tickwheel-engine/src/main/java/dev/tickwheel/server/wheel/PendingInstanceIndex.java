package dev.tickwheel.server.wheel;

/**
 * CARGO: every pending instance by its unique ID, so that anyone can cancel it.
 *
 * <p>The index stores the {@link InstanceTimeout} nodes themselves and takes the key from the node, so an entry costs
 * one reference and one int of hash (8 bytes with compressed references, at a load factor between 1/8 and 3/4)
 * instead of a map entry object and a boxed {@code Long}. It is split into lock stripes chosen by the high bits of a
 * mixed key; each stripe is an open-addressing table with linear probing over the stored hashes and backward-shift
 * deletion (no tombstones), grown at 3/4 full and shrunk below 1/8 so that a burst does not pin memory. Operations
 * are O(1) expected.
 *
 * <p>Thread-safe: each stripe is guarded by its own monitor; {@link #size()} sums the stripes without locking them
 * all, so it is exact only when no operation runs concurrently.
 */
final class PendingInstanceIndex {

    private static final int MIN_CAPACITY = 16;

    private final Stripe[] stripes;
    private final int stripeShift;

    /** @param stripeCount rounded up to a power of 2, at least 2 (1 gives 2 stripes) */
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

    /**
     * Cancels the pending instance with this ID.
     *
     * @return {@code true} iff this call cancelled it (the node's compare-and-set won)
     */
    boolean cancel(long uniqueId) {
        long hash = mix(uniqueId);
        return stripeFor(hash).cancel(uniqueId, hash);
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
        // Parallel arrays: nodes[i] == null marks a free slot; hashes[i] holds the low 32 bits of the mixed key of
        // nodes[i], so probing compares ints in one array (8 to a cache line) and reads a node only on a likely hit,
        // and the backward shift finds an entry's home slot without touching the node.
        private InstanceTimeout[] nodes = new InstanceTimeout[MIN_CAPACITY];
        private int[] hashes = new int[MIN_CAPACITY];
        // volatile: size() reads it without the lock.
        private volatile int size;

        synchronized InstanceTimeout putIfAbsent(InstanceTimeout node, long hash) {
            int h = (int) hash;
            int mask = nodes.length - 1;
            int i = h & mask;
            for (InstanceTimeout e; (e = nodes[i]) != null; i = (i + 1) & mask) {
                if (hashes[i] == h && e.uniqueId() == node.uniqueId()) {
                    if (e.isPending()) {
                        return e;
                    }
                    // Started or cancelled a moment ago, about to remove itself: the ID is free again.
                    nodes[i] = node;
                    return null;
                }
            }
            nodes[i] = node;
            hashes[i] = h;
            size++;
            if (size > (nodes.length >>> 2) * 3) {
                resize(nodes.length << 1);
            }
            return null;
        }

        synchronized InstanceTimeout get(long uniqueId, long hash) {
            int i = indexOf(uniqueId, (int) hash);
            return i < 0 ? null : nodes[i];
        }

        /**
         * Cancels the pending node with this ID while holding the stripe, so that finding it and removing it (its
         * {@code onCancel} re-enters this monitor) cost one lock acquisition.
         */
        synchronized boolean cancel(long uniqueId, long hash) {
            int i = indexOf(uniqueId, (int) hash);
            return i >= 0 && nodes[i].cancel();
        }

        synchronized void remove(InstanceTimeout node, long hash) {
            int mask = nodes.length - 1;
            int i = (int) hash & mask;
            while (nodes[i] != node) {
                if (nodes[i] == null) {
                    return;
                }
                i = (i + 1) & mask;
            }
            deleteAt(i, mask);
            size--;
            if (nodes.length > MIN_CAPACITY && size < nodes.length >>> 3) {
                resize(nodes.length >>> 1);
            }
        }

        private int indexOf(long uniqueId, int h) {
            int mask = nodes.length - 1;
            for (int i = h & mask; nodes[i] != null; i = (i + 1) & mask) {
                if (hashes[i] == h && nodes[i].uniqueId() == uniqueId) {
                    return i;
                }
            }
            return -1;
        }

        /** Backward-shift deletion: moves later entries of the probe run into the hole so lookups never stop early. */
        private void deleteAt(int hole, int mask) {
            nodes[hole] = null;
            int j = hole;
            while (true) {
                j = (j + 1) & mask;
                InstanceTimeout e = nodes[j];
                if (e == null) {
                    return;
                }
                int home = hashes[j] & mask;
                // e may move into the hole only if its home is not cyclically within (hole, j].
                boolean homeInRange = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
                if (!homeInRange) {
                    nodes[hole] = e;
                    hashes[hole] = hashes[j];
                    nodes[j] = null;
                    hole = j;
                }
            }
        }

        private void resize(int capacity) {
            InstanceTimeout[] oldNodes = nodes;
            int[] oldHashes = hashes;
            InstanceTimeout[] freshNodes = new InstanceTimeout[capacity];
            int[] freshHashes = new int[capacity];
            int mask = capacity - 1;
            for (int k = 0; k < oldNodes.length; k++) {
                if (oldNodes[k] != null) {
                    int i = oldHashes[k] & mask;
                    while (freshNodes[i] != null) {
                        i = (i + 1) & mask;
                    }
                    freshNodes[i] = oldNodes[k];
                    freshHashes[i] = oldHashes[k];
                }
            }
            nodes = freshNodes;
            hashes = freshHashes;
        }

        synchronized void drainTo(java.util.List<InstanceTimeout> sink) {
            for (InstanceTimeout e : nodes) {
                if (e != null) {
                    sink.add(e);
                }
            }
            nodes = new InstanceTimeout[MIN_CAPACITY];
            hashes = new int[MIN_CAPACITY];
            size = 0;
        }
    }
}
