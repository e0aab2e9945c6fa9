package dev.tickwheel.server.wheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.StampedLock;

/**
 * CARGO: every pending instance by its unique ID, so that anyone can cancel it.
 *
 * <p>A chained hash table whose chains run through the {@link InstanceTimeout} nodes themselves
 * ({@link InstanceTimeout#chainNext}): an entry costs the node's chain field (which fits in the node's alignment padding)
 * and 4 bytes of bucket array per bucket, at most 3/4 of a bucket full (5.3 bytes an entry) and about 8 bytes after a
 * doubling; there is no entry object and no boxed {@code Long}. It is split into lock stripes.
 *
 * <h2>Where an ID goes</h2>
 *
 * IDs are grouped in blocks of 16 consecutive values ({@code id >>> 4}). A block is mixed (Murmur3's finalizer) to
 * choose its stripe and its place in the stripe's bucket array, and the 16 IDs of a block take 16 adjacent buckets:
 * one cache line of references. Instance IDs are allocated in increasing order (Snowflake or a database sequence), so a
 * burst of schedules touches one line per 16 instances instead of one random line each, while IDs far apart, and
 * patterns such as a stride of 16 or 2<sup>k</sup>, still spread over all stripes and buckets. A cancel in random
 * order reads one bucket line and then the node it finds (one more node at a collision, 1 in 3 on average at 3/4
 * load): two cache misses, where a boxed {@code ConcurrentHashMap} costs four (bin, entry, boxed key, value).
 *
 * <p>Chaining, not open addressing: a displaced entry never has to be compared through its node, and a block that
 * lands near another never lengthens the probe of a third. Growth (at 3/4) and shrinking (below 1/16, so that a burst
 * does not pin memory) rehash a stripe by walking its chains.
 *
 * <h2>Cancel without a lock</h2>
 *
 * A cancel by ID finds the node without taking the stripe's lock (an optimistic read of a {@link StampedLock}) and
 * flips its state by compare-and-set; the entry stays in its chain, counted as gone ({@code lingering}), until the
 * wheel lets go of the node ({@link InstanceTimeout#onDropped()}: at its bucket, in a sweep, or when its run finds it
 * cancelled), which removes it under the lock. So a cancel costs the two cache misses and one compare-and-set, no lock
 * and no unlink; the wheel's sweep bounds how long cancelled entries stay, as it bounds how long their nodes stay.
 *
 * <p>Why the lock-free walk is safe:
 * <ul>
 *   <li>A node found with the ID and still waiting is the pending instance of that ID: a node leaves the index only
 *       after it left "waiting" (started or cancelled), and a new node of the same ID replaces only a node that is no
 *       longer waiting. So the compare-and-set on it is the cancel, however stale the path that led to it; the stamp
 *       need not be valid.</li>
 *   <li>Only a miss (no waiting node of the ID) is checked: if a writer changed the stripe during the walk (an insert,
 *       a removal, a rehash), the stamp fails validation and the walk is done again under the read lock. A miss with a
 *       valid stamp saw the stripe as it was, so the ID had no pending node at that moment.</li>
 *   <li>A racy walk cannot fail: IDs are final, an array's length is fixed, a stale {@code chainNext} or bucket
 *       leads to another node or to null, and chains never form a cycle (a node is linked by prepending it, by taking
 *       the place of an equal ID's node, or by a rehash that links each node once into the new array).</li>
 * </ul>
 *
 * <p>Thread-safe: each stripe is guarded by its own {@link StampedLock}, written under its write lock;
 * {@link #size()} sums the stripes without locking them all, so it is exact only when no operation runs concurrently.
 */
final class PendingInstanceIndex {

    private static final int MIN_CAPACITY = 16;
    private static final int BLOCK_BITS = 4;
    private static final long BLOCK_MASK = (1L << BLOCK_BITS) - 1;
    private static final VarHandle SIZE;
    private static final VarHandle LINGERING;

    static {
        try {
            SIZE = MethodHandles.lookup().findVarHandle(Stripe.class, "size", int.class);
            LINGERING = MethodHandles.lookup().findVarHandle(Stripe.class, "lingering", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
        long hash = hash(node.uniqueId());
        return stripeFor(hash).putIfAbsent(node, hash);
    }

    InstanceTimeout get(long uniqueId) {
        long hash = hash(uniqueId);
        return stripeFor(hash).find(uniqueId, hash);
    }

    /**
     * Cancels the pending instance with this ID, without taking a lock (see Cancel without a lock).
     *
     * @return {@code true} iff this call cancelled it (the node's compare-and-set won)
     */
    boolean cancel(long uniqueId) {
        long hash = hash(uniqueId);
        InstanceTimeout node = stripeFor(hash).find(uniqueId, hash);
        return node != null && node.cancel();
    }

    /** Counts a node whose cancel won as gone; its entry stays until {@link #remove} (the wheel let go of it). */
    void cancelled(InstanceTimeout node) {
        LINGERING.getAndAdd(stripeFor(hash(node.uniqueId())), 1);
    }

    /** Removes exactly this node (not a newer node that reuses its ID), if it is still here. */
    void remove(InstanceTimeout node) {
        long hash = hash(node.uniqueId());
        stripeFor(hash).remove(node, hash);
    }

    /** Every entry, cancelled ones the wheels still hold included. */
    int entries() {
        int entries = 0;
        for (Stripe stripe : stripes) {
            entries += (int) SIZE.getOpaque(stripe);
        }
        return entries;
    }

    /** Pending instances: entries not counted as cancelled. */
    int size() {
        int size = 0;
        for (Stripe stripe : stripes) {
            size += (int) SIZE.getOpaque(stripe) - (int) LINGERING.getOpaque(stripe);
        }
        return Math.max(0, size);
    }

    /** Removes every node and returns them. */
    List<InstanceTimeout> drain() {
        List<InstanceTimeout> all = new ArrayList<>();
        for (Stripe stripe : stripes) {
            stripe.drainTo(all);
        }
        return all;
    }

    private Stripe stripeFor(long hash) {
        return stripes[(int) (hash >>> stripeShift)];
    }

    /**
     * The block of 16 IDs mixed into the high 60 bits, the ID's place in its block kept in the low 4: the top bits
     * choose the stripe, the low bits the bucket.
     */
    static long hash(long uniqueId) {
        return (mix(uniqueId >>> BLOCK_BITS) << BLOCK_BITS) | (uniqueId & BLOCK_MASK);
    }

    /** Murmur3's 64-bit finalizer. */
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
        private final StampedLock lock = new StampedLock();
        // Written under the write lock; read without it by the optimistic walks (see Cancel without a lock).
        private InstanceTimeout[] buckets = new InstanceTimeout[MIN_CAPACITY];
        // Entries in the chains; written under the write lock, read without it by size() (opaque).
        private int size;
        // Entries whose node was cancelled and is not removed yet: added to by cancelling threads, taken from under
        // the write lock as they are removed (both atomic). It may dip below its true value for a moment (a wheel
        // can let go of a node before its canceller counted it), which size() clamps.
        private int lingering;

        InstanceTimeout putIfAbsent(InstanceTimeout node, long hash) {
            long stamp = lock.writeLock();
            try {
                int i = (int) hash & (buckets.length - 1);
                InstanceTimeout prev = null;
                for (InstanceTimeout e = buckets[i]; e != null; prev = e, e = e.chainNext) {
                    if (e.uniqueId() == node.uniqueId()) {
                        if (e.isPending()) {
                            return e;
                        }
                        // Started or cancelled, its removal still to come (which then finds nothing): the ID is free
                        // again. The new node takes the old one's place in the chain.
                        node.chainNext = e.chainNext;
                        unlink(i, prev, e, node);
                        return null;
                    }
                }
                node.chainNext = buckets[i];
                buckets[i] = node;
                int size = this.size + 1;
                SIZE.setOpaque(this, size);
                if (size > (buckets.length >>> 2) * 3) {
                    rehash(buckets.length << 1);
                }
                return null;
            } finally {
                lock.unlockWrite(stamp);
            }
        }

        /**
         * The waiting node of this ID, if one was in the stripe at some moment of the call; else the last node of the
         * ID seen (no longer waiting), or null. Walks without the lock first (see Cancel without a lock).
         */
        InstanceTimeout find(long uniqueId, long hash) {
            long stamp = lock.tryOptimisticRead();
            InstanceTimeout found = walk(uniqueId, hash);
            if ((found != null && found.isPending()) || (stamp != 0 && lock.validate(stamp))) {
                return found;
            }
            stamp = lock.readLock();
            try {
                return walk(uniqueId, hash);
            } finally {
                lock.unlockRead(stamp);
            }
        }

        private InstanceTimeout walk(long uniqueId, long hash) {
            InstanceTimeout[] table = buckets;
            for (InstanceTimeout e = table[(int) hash & (table.length - 1)]; e != null; e = e.chainNext) {
                if (e.uniqueId() == uniqueId) {
                    return e;
                }
            }
            return null;
        }

        void remove(InstanceTimeout node, long hash) {
            long stamp = lock.writeLock();
            try {
                int i = (int) hash & (buckets.length - 1);
                InstanceTimeout prev = null;
                for (InstanceTimeout e = buckets[i]; e != null; prev = e, e = e.chainNext) {
                    if (e == node) {
                        unlink(i, prev, e, e.chainNext);
                        int size = this.size - 1;
                        SIZE.setOpaque(this, size);
                        if (buckets.length > MIN_CAPACITY && size < buckets.length >>> 4) {
                            rehash(buckets.length >>> 1);
                        }
                        return;
                    }
                }
            } finally {
                lock.unlockWrite(stamp);
            }
        }

        /**
         * Under the write lock: puts {@code next} where {@code e} was in bucket {@code i} (after {@code prev}, or at
         * the head) and takes {@code e} out of the cancelled entries' count if it was one of them.
         */
        private void unlink(int i, InstanceTimeout prev, InstanceTimeout e, InstanceTimeout next) {
            if (prev == null) {
                buckets[i] = next;
            } else {
                prev.chainNext = next;
            }
            e.chainNext = null;
            if (e.isCancelled()) {
                LINGERING.getAndAdd(this, -1);
            }
        }

        /** Under the write lock. */
        private void rehash(int capacity) {
            InstanceTimeout[] fresh = new InstanceTimeout[capacity];
            int mask = capacity - 1;
            for (InstanceTimeout head : buckets) {
                for (InstanceTimeout e = head, next; e != null; e = next) {
                    next = e.chainNext;
                    int i = (int) hash(e.uniqueId()) & mask;
                    e.chainNext = fresh[i];
                    fresh[i] = e;
                }
            }
            buckets = fresh;
        }

        void drainTo(List<InstanceTimeout> sink) {
            long stamp = lock.writeLock();
            try {
                int cancelledEntries = 0;
                for (InstanceTimeout head : buckets) {
                    for (InstanceTimeout e = head, next; e != null; e = next) {
                        next = e.chainNext;
                        e.chainNext = null;
                        cancelledEntries += e.isCancelled() ? 1 : 0;
                        sink.add(e);
                    }
                }
                buckets = new InstanceTimeout[MIN_CAPACITY];
                SIZE.setOpaque(this, 0);
                LINGERING.getAndAdd(this, -cancelledEntries);
            } finally {
                lock.unlockWrite(stamp);
            }
        }
    }
}
