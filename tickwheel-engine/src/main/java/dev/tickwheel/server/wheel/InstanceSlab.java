package dev.tickwheel.server.wheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Every instance the two wheels hold, in slots of parallel arrays instead of one object each, and CARGO, the index
 * of the pending ones by unique ID, chained through the same slots.
 *
 * <h2>Slots</h2>
 *
 * A slot is a number. Its fields live in chunks of slots (see {@link Chunk}): four {@code long}s in one array (the
 * ID, the deadline, the control word, the next slot in its CARGO chain), the next slot in its wheel bucket in an
 * {@code int} array, and the task in an {@code Object} array: 40 bytes a slot, where a node object cost 56 and its
 * index entry more. A slot is taken from its stripe's free list, or from a block of fresh slots the stripe takes from
 * the slab 64 at a time, and given back to the free list once nothing holds it any more. No object is allocated for
 * an instance and the garbage collector never copies a node: chunks are few and large.
 *
 * <p>The control word packs the slot's state ({@link #WAITING}, {@link #STARTED}, {@link #CANCELLED}), the wheel that
 * holds it ({@link #PRECISE} or {@link #COARSE}) and a generation, incremented each time the slot is taken for a new
 * instance. It changes only by compare-and-set, so a cancel, a start and a hand-off each see one exact value, and a
 * stale view of a reused slot (another generation) can never win.
 *
 * <h2>Who holds a slot, and who frees it</h2>
 *
 * From {@code schedule} to its end a slot is held by CARGO (its chain) and by exactly one of: a stripe's transfer
 * list for a wheel, a wheel's bucket, a wheel's deferred list, or the dispatch executor (a {@link Dispatch} carrying
 * its slot and generation). The wheel side is the last holder, always: the executor thread that wins the start, the
 * executor thread whose dispatch finds it cancelled, or the worker that drops it cancelled. That one call
 * ({@link #release}) removes the CARGO entry if it is still this slot (a new instance of the same ID may have taken
 * its place) and puts the slot on the free list, under the stripe's lock. So a slot is freed exactly once per use and
 * never while a chain links it.
 *
 * <h2>CARGO</h2>
 *
 * A chained hash table per stripe: an {@code int} bucket array whose chains run through the slots' chain field. IDs
 * are grouped in blocks of 16 consecutive values ({@code id >>> 4}); a block is mixed (Murmur3's finalizer) to choose
 * its stripe and its place in the stripe's bucket array, and the 16 IDs of a block take 16 adjacent buckets. Instance
 * IDs are allocated in increasing order, so a burst of schedules touches one bucket line per 16 instances and its
 * slots are consecutive (the stripe's block of fresh slots), while IDs far apart still spread over all stripes. A
 * stripe doubles at 3/4 full and halves below 1/16.
 *
 * <h2>Cancel without a lock</h2>
 *
 * A cancel by ID walks the chain under an optimistic read of the stripe's sequence lock and moves the slot's
 * control word from waiting to cancelled by compare-and-set; the entry stays in its chain, counted as gone
 * ({@code lingering}), until the wheel releases the slot. Why the racy walk is safe:
 * <ul>
 *   <li>Writers publish with release stores (the slot's fields before its control word, the control word before the
 *       link that makes the slot reachable), and the walk reads links and control words with acquire loads.</li>
 *   <li>The walk reads a slot's control word, then its ID, then compares-and-sets the control word against the value
 *       it read. The ID is written only when a slot is taken for a new instance, before the control word of that
 *       generation. So if the compare-and-set wins, the slot still holds the generation whose control word was read
 *       and the ID read after it is that generation's ID: the cancel hit the pending instance of that ID, however stale
 *       the path that led to the slot.</li>
 *   <li>Only an answer of "no pending instance" needs the stamp: if the stripe changed during the walk (an insert, a
 *       removal, a rehash, a slot freed and taken again), validation fails and the walk is done again under the read
 *       lock, where chains are stable (a slot is unlinked and freed only under the write lock of its ID's stripe).</li>
 *   <li>A racy walk cannot fail: slot numbers only grow, chunks are never dropped, a stale link leads to another slot
 *       or to the end. Because slots are reused, stale links could in principle lead in a circle, so a walk that has
 *       taken more than {@link #MAX_RACY_STEPS} steps gives up and walks under the read lock.</li>
 * </ul>
 *
 * <h2>Transfers to the wheels</h2>
 *
 * {@code schedule} also pushes the slot on its stripe's transfer list for the chosen wheel, under the same lock, so
 * that handing the instance to the wheel costs no second atomic operation. The wheel's worker takes each stripe's
 * list whole under the lock. Before parking, a worker reads each stripe's lock state (a volatile read) and then its
 * list; a producer writes its list under the lock, unlocks (a volatile write) and then reads the worker's wake-up time
 * (a volatile read). So either the worker sees the new slot or the producer sees that the worker is about to sleep
 * and wakes it: the same argument as a queue's producer index.
 *
 * <p>Thread-safe: each stripe's chains, free list, fresh block, transfer lists and counters are written under its
 * write lock. {@link #size()} and the counters are read without locks and are exact only when nothing runs
 * concurrently.
 */
final class InstanceSlab {

    static final int WAITING = 0;
    static final int STARTED = 1;
    static final int CANCELLED = 2;
    private static final long STATE_MASK = 3;
    /** Wheel bit of the control word. */
    static final int PRECISE = 0;
    static final int COARSE = 1;
    private static final long TIER_BIT = 4;
    private static final int GENERATION_SHIFT = 3;

    /**
     * No slot: the end of a chain or list, an empty bucket. Slot 0 is never used, so that a fresh {@code int} array
     * (zeroed by the JVM) is already an array of empty buckets: growing CARGO does not fill it first.
     */
    static final int NIL = 0;
    /** Chunk c holds {@code 4096 << c} slots for c below {@link #GROWN_CHUNKS}, then 2^20 each. */
    private static final int FIRST_CHUNK_BITS = 12;
    private static final int GROWN_CHUNKS = 9;
    private static final int LAST_CHUNK_BITS = FIRST_CHUNK_BITS + GROWN_CHUNKS - 1;
    /** Slots in the growing chunks; chunks after them are all {@code 1 << LAST_CHUNK_BITS}. */
    private static final int GROWN_SLOTS = ((1 << GROWN_CHUNKS) - 1) << FIRST_CHUNK_BITS;
    /** Fresh slots a stripe takes at a time; divides every chunk's size, so a block never spans two chunks. */
    private static final int BLOCK_SLOTS = 64;
    /** A lock-free walk longer than this gives up and walks under the read lock (see Cancel without a lock). */
    static final int MAX_RACY_STEPS = 64;

    private static final int MIN_CAPACITY = 16;
    private static final int BLOCK_BITS = 4;
    private static final long BLOCK_MASK = (1L << BLOCK_BITS) - 1;
    // Offsets of a slot's fields in its chunk's long array.
    private static final int ID = 0;
    private static final int DEADLINE = 1;
    private static final int CTL = 2;
    private static final int CHAIN = 3;
    private static final int STRIDE = 4;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle SIZE;
    private static final VarHandle LINGERING;
    private static final VarHandle BUCKETS;
    private static final VarHandle SEQ;
    // A stripe's per-wheel fields. Static final fields, not an array of handles: the JIT inlines a handle it knows.
    private static final VarHandle TRANSFER_HEAD_PRECISE;
    private static final VarHandle TRANSFER_HEAD_COARSE;
    private static final VarHandle SCHEDULED_PRECISE;
    private static final VarHandle SCHEDULED_COARSE;
    private static final VarHandle EARLIEST_PUSHED_PRECISE;
    private static final VarHandle EARLIEST_PUSHED_COARSE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(Stripe.class, "size", int.class);
            LINGERING = lookup.findVarHandle(Stripe.class, "lingering", int.class);
            BUCKETS = lookup.findVarHandle(Stripe.class, "buckets", int[].class);
            SEQ = lookup.findVarHandle(Stripe.class, "seq", int.class);
            TRANSFER_HEAD_PRECISE = lookup.findVarHandle(Stripe.class, "transferHeadPrecise", int.class);
            TRANSFER_HEAD_COARSE = lookup.findVarHandle(Stripe.class, "transferHeadCoarse", int.class);
            SCHEDULED_PRECISE = lookup.findVarHandle(Stripe.class, "scheduledPrecise", long.class);
            SCHEDULED_COARSE = lookup.findVarHandle(Stripe.class, "scheduledCoarse", long.class);
            EARLIEST_PUSHED_PRECISE = lookup.findVarHandle(Stripe.class, "earliestPushedPrecise", long.class);
            EARLIEST_PUSHED_COARSE = lookup.findVarHandle(Stripe.class, "earliestPushedCoarse", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Stripe[] stripes;
    private final int stripeShift;
    private final AtomicInteger freshSlots = new AtomicInteger();
    private final long originNanos;
    // volatile: grown (copied) under the slab's monitor; a reader that reached a slot through a lock or an acquire
    // load reads a directory that holds the slot's chunk.
    private volatile Chunk[] chunks = new Chunk[16];

    /**
     * @param stripeCount rounded up to a power of 2, at least 2
     * @param originNanos a ticker time before every deadline the slab will hold (the wheels' origin)
     * @param expectedInstances CARGO is sized for this many from the start and never shrinks below that
     */
    InstanceSlab(int stripeCount, long originNanos, int expectedInstances) {
        this.originNanos = originNanos;
        int n = Integer.highestOneBit(Math.max(1, stripeCount - 1)) << 1;
        this.stripes = new Stripe[n];
        // 3/4 full at most: a stripe of expected / n entries needs 4/3 as many buckets, rounded up to a power of 2.
        long perStripe = ((long) Math.max(0, expectedInstances) / n + 1) * 4 / 3;
        int capacity = (int) Math.max(MIN_CAPACITY, Math.min(1 << 30, Long.highestOneBit(perStripe - 1) << 1));
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe(capacity);
        }
        this.stripeShift = 64 - Integer.numberOfTrailingZeros(n);
    }

    /**
     * One chunk of slots; the arrays never change once the chunk is published. Chunks grow (4 096 slots, then twice
     * as many each up to 2^20), so that a small service holds little and a large one few, large arrays: the
     * collector allocates those outside the young generation and never copies them.
     */
    private static final class Chunk {
        final long[] longs;
        final int[] links;
        final Object[] tasks;

        Chunk(int slots) {
            longs = new long[slots * STRIDE];
            links = new int[slots];
            tasks = new Object[slots];
        }
    }

    // ---- slot fields ----

    static int chunkIndex(int slot) {
        if (slot < GROWN_SLOTS) {
            return 31 - Integer.numberOfLeadingZeros((slot >>> FIRST_CHUNK_BITS) + 1);
        }
        return GROWN_CHUNKS + ((slot - GROWN_SLOTS) >>> LAST_CHUNK_BITS);
    }

    /** The slot's index within its chunk. */
    static int offset(int slot) {
        if (slot < GROWN_SLOTS) {
            int c = 31 - Integer.numberOfLeadingZeros((slot >>> FIRST_CHUNK_BITS) + 1);
            return slot - (((1 << c) - 1) << FIRST_CHUNK_BITS);
        }
        return (slot - GROWN_SLOTS) & ((1 << LAST_CHUNK_BITS) - 1);
    }

    static int chunkSlots(int chunk) {
        return chunk < GROWN_CHUNKS ? 1 << (FIRST_CHUNK_BITS + chunk) : 1 << LAST_CHUNK_BITS;
    }

    private Chunk chunk(int slot) {
        return chunks[chunkIndex(slot)];
    }

    private static int at(int slot, int field) {
        return offset(slot) * STRIDE + field;
    }

    long id(int slot) {
        return (long) LONGS.getOpaque(chunk(slot).longs, at(slot, ID));
    }

    long deadlineNanos(int slot) {
        return chunk(slot).longs[at(slot, DEADLINE)];
    }

    long ctl(int slot) {
        return (long) LONGS.getAcquire(chunk(slot).longs, at(slot, CTL));
    }

    boolean casCtl(int slot, long expected, long next) {
        return LONGS.compareAndSet(chunk(slot).longs, at(slot, CTL), expected, next);
    }

    Runnable task(int slot) {
        return (Runnable) chunk(slot).tasks[offset(slot)];
    }

    /** The next slot in the slot's wheel bucket, transfer list, deferred list or free list. */
    int link(int slot) {
        return chunk(slot).links[offset(slot)];
    }

    void link(int slot, int next) {
        chunk(slot).links[offset(slot)] = next;
    }

    private int chain(int slot) {
        return (int) (long) LONGS.getAcquire(chunk(slot).longs, at(slot, CHAIN));
    }

    private void chain(int slot, int next) {
        LONGS.setRelease(chunk(slot).longs, at(slot, CHAIN), (long) next);
    }

    static int state(long ctl) {
        return (int) (ctl & STATE_MASK);
    }

    static int tier(long ctl) {
        return (ctl & TIER_BIT) == 0 ? PRECISE : COARSE;
    }

    static long generation(long ctl) {
        return ctl >>> GENERATION_SHIFT;
    }

    static long withState(long ctl, int state) {
        return (ctl & ~STATE_MASK) | state;
    }

    static long withTier(long ctl, int tier) {
        return tier == PRECISE ? ctl & ~TIER_BIT : ctl | TIER_BIT;
    }

    // ---- CARGO and the slot's life ----

    /** Told of each cancel a handle won, with the control word it replaced (whose wheel bit says whom to tell). */
    interface CancelListener {
        void cancelled(long ctl);
    }

    /**
     * Takes a slot for a new waiting instance of {@code uniqueId} on wheel {@code tier}, enters it in CARGO and pushes
     * it on the stripe's transfer list for that wheel.
     *
     * @return the slot, or {@link #NIL} if an instance of this ID is pending (nothing changed then)
     */
    int schedule(long uniqueId, long deadlineNanos, Runnable task, int tier) {
        long hash = hash(uniqueId);
        Stripe stripe = stripeFor(hash);
        long stamp = stripe.writeLock();
        try {
            int[] buckets = stripe.buckets;
            int i = (int) hash & (buckets.length - 1);
            int prev = NIL;
            for (int e = buckets[i]; e != NIL; prev = e, e = chain(e)) {
                if (id(e) == uniqueId) {
                    if (state(ctl(e)) == WAITING) {
                        return NIL;
                    }
                    // Started or cancelled, its release still to come (which then finds it unlinked): the ID is free.
                    unlinkFromChain(stripe, i, prev, e);
                    break;
                }
            }
            int slot = stripe.take(this);
            Chunk chunk = chunk(slot);
            long[] longs = chunk.longs;
            int base = at(slot, 0);
            LONGS.setOpaque(longs, base + ID, uniqueId);
            longs[base + DEADLINE] = deadlineNanos;
            chunk.tasks[offset(slot)] = task;
            long previous = longs[base + CTL];
            long ctl = ((generation(previous) + 1) << GENERATION_SHIFT) | (tier == COARSE ? TIER_BIT : 0) | WAITING;
            // Release: a walker that reads this control word sees the ID above.
            LONGS.setRelease(longs, base + CTL, ctl);
            chain(slot, buckets[i]);
            // Release: a walker that reaches the slot through the bucket sees its fields and control word.
            INTS.setRelease(buckets, i, slot);
            int size = stripe.size + 1;
            SIZE.setOpaque(stripe, size);
            stripe.pushTransfer(this, slot, tier);
            if (size > (buckets.length >>> 2) * 3) {
                stripe.rehash(this, buckets.length << 1);
            }
            return slot;
        } finally {
            stripe.unlockWrite(stamp);
        }
    }

    /**
     * Cancels the pending instance of this ID, without taking a lock (see Cancel without a lock).
     *
     * @return the control word the cancel replaced (its wheel says whom to tell), or {@code -1} if there was no pending
     *         instance of this ID
     */
    long cancel(long uniqueId) {
        return lookUp(uniqueId, true);
    }

    /** Cancels the instance in {@code slot} if it is still generation {@code generation} and waiting. */
    long cancelSlot(int slot, long generation) {
        for (long ctl = ctl(slot); generation(ctl) == generation && state(ctl) == WAITING; ctl = ctl(slot)) {
            if (casCtl(slot, ctl, withState(ctl, CANCELLED))) {
                LINGERING.getAndAdd(stripeFor(hash(id(slot))), 1);
                return ctl;
            }
        }
        return -1;
    }

    /** Whether an instance of this ID is pending; no lock unless the lock-free walk is unsure. */
    boolean isPending(long uniqueId) {
        return lookUp(uniqueId, false) >= 0;
    }

    /**
     * The waiting control word of this ID's slot (replaced by cancelled with {@code cancel}), or -1: a walk without
     * the lock, and again under it if that found no waiting slot while a writer changed the stripe.
     */
    private long lookUp(long uniqueId, boolean cancel) {
        long hash = hash(uniqueId);
        Stripe stripe = stripeFor(hash);
        long stamp = stripe.tryOptimisticRead();
        long found = walk(stripe, uniqueId, hash, cancel, true);
        if (found < 0 && !(found == MISS && stripe.validate(stamp))) {
            stamp = stripe.readLock();
            try {
                found = walk(stripe, uniqueId, hash, cancel, false);
            } finally {
                stripe.unlockRead(stamp);
            }
        }
        if (found < 0) {
            return -1;
        }
        if (cancel) {
            LINGERING.getAndAdd(stripe, 1);
        }
        return found;
    }

    private static final long MISS = -1;
    private static final long UNSURE = -2;

    /**
     * Looks for the waiting slot of {@code uniqueId}. With {@code cancel}, moves it to cancelled.
     *
     * @return the waiting control word found (and replaced, with {@code cancel}), {@link #MISS} if the chain holds no
     *         waiting slot of the ID, {@link #UNSURE} if a racy walk went on too long
     */
    private long walk(Stripe stripe, long uniqueId, long hash, boolean cancel, boolean racy) {
        int[] buckets = (int[]) BUCKETS.getAcquire(stripe);
        int steps = 0;
        for (int e = (int) INTS.getAcquire(buckets, (int) hash & (buckets.length - 1)); e != NIL; e = chain(e)) {
            if (racy && ++steps > MAX_RACY_STEPS) {
                return UNSURE;
            }
            long ctl = ctl(e);
            if (id(e) != uniqueId) {
                continue;
            }
            while (state(ctl) == WAITING) {
                if (!cancel) {
                    return ctl;
                }
                if (casCtl(e, ctl, withState(ctl, CANCELLED))) {
                    return ctl;
                }
                long now = ctl(e);
                if (generation(now) != generation(ctl)) {
                    break; // reused under a racy walk: this is no longer the ID's slot
                }
                ctl = now; // a hand-off moved it to the other wheel, or it left "waiting"
            }
            return MISS;
        }
        return MISS;
    }

    /**
     * The slot of the pending instance of this ID and a handle registered for it (created if none is), so that the
     * handle learns how the instance ended even after the slot is reused; or null if no instance of this ID is pending.
     */
    InstanceHandle handle(long uniqueId, CancelListener listener) {
        long hash = hash(uniqueId);
        Stripe stripe = stripeFor(hash);
        long stamp = stripe.writeLock();
        try {
            int[] buckets = stripe.buckets;
            for (int e = buckets[(int) hash & (buckets.length - 1)]; e != NIL; e = chain(e)) {
                if (id(e) != uniqueId) {
                    continue;
                }
                long ctl = ctl(e);
                if (state(ctl) != WAITING) {
                    return null;
                }
                if (stripe.handles == null) {
                    stripe.handles = new HashMap<>();
                }
                InstanceHandle handle = stripe.handles.get(e);
                if (handle == null) {
                    handle = new InstanceHandle(this, listener, e, generation(ctl), uniqueId, deadlineNanos(e),
                            task(e));
                    stripe.handles.put(e, handle);
                }
                return handle;
            }
            return null;
        } finally {
            stripe.unlockWrite(stamp);
        }
    }

    /**
     * The last holder lets go of {@code slot} (see Who holds a slot): removes its CARGO entry if the chain still
     * links it, tells its registered handle how it ended, and frees it.
     */
    void release(int slot) {
        long uniqueId = id(slot);
        long hash = hash(uniqueId);
        Stripe stripe = stripeFor(hash);
        long stamp = stripe.writeLock();
        try {
            int[] buckets = stripe.buckets;
            int i = (int) hash & (buckets.length - 1);
            int prev = NIL;
            for (int e = buckets[i]; e != NIL; prev = e, e = chain(e)) {
                if (e == slot) {
                    unlinkFromChain(stripe, i, prev, e);
                    break;
                }
            }
            if (stripe.handles != null && !stripe.handles.isEmpty()) {
                InstanceHandle handle = stripe.handles.remove(slot);
                if (handle != null) {
                    handle.ended(state(ctl(slot)));
                }
            }
            chunk(slot).tasks[offset(slot)] = null;
            link(slot, stripe.free);
            stripe.free = slot;
            if (buckets.length > stripe.minCapacity && stripe.size < buckets.length >>> 4) {
                stripe.rehash(this, buckets.length >>> 1);
            }
        } finally {
            stripe.unlockWrite(stamp);
        }
    }

    /** Under the write lock: unlinks {@code e} (after {@code prev}, or the head of bucket {@code i}). */
    private void unlinkFromChain(Stripe stripe, int i, int prev, int e) {
        int next = chain(e);
        if (prev == NIL) {
            INTS.setRelease(stripe.buckets, i, next);
        } else {
            chain(prev, next);
        }
        SIZE.setRelease(stripe, stripe.size - 1);
        if (state(ctl(e)) == CANCELLED) {
            LINGERING.getAndAdd(stripe, -1);
        }
    }

    /** Pushes {@code slot}, already in CARGO and waiting, on its stripe's transfer list for {@code tier}. */
    void transfer(int slot, int tier) {
        Stripe stripe = stripeFor(hash(id(slot)));
        long stamp = stripe.writeLock();
        try {
            stripe.pushTransfer(this, slot, tier);
        } finally {
            stripe.unlockWrite(stamp);
        }
    }

    /**
     * Takes stripe {@code s}'s transfer list for {@code tier}, if it holds anything (linked through {@link #link}).
     *
     * @return its first slot, or {@link #NIL}
     */
    int takeTransfers(int s, int tier) {
        Stripe stripe = stripes[s];
        if (stripe.transfers(tier) == NIL) {
            return NIL;
        }
        long stamp = stripe.writeLock();
        try {
            int head = stripe.transfers(tier);
            stripe.setTransfers(tier, NIL);
            stripe.setEarliestPushed(tier, Long.MAX_VALUE);
            return head;
        } finally {
            stripe.unlockWrite(stamp);
        }
    }

    /**
     * Whether a slot due before {@code wakeAtRel} (ticker nanos minus {@link #originNanos()}) may wait on a transfer
     * list for {@code tier}. Called by a worker after publishing its wake-up time (see Transfers to the wheels): a
     * stripe locked at that moment is not counted, because its writer reads the wake-up time after unlocking and wakes
     * the worker itself if its slot is due sooner.
     */
    boolean hasTransferDueBefore(int tier, long wakeAtRel) {
        for (Stripe stripe : stripes) {
            // A volatile read of the lock's state: it synchronizes with the unlock of every push before it.
            if (stripe.tryOptimisticRead() != 0
                    && stripe.earliestPushed(tier) < wakeAtRel) {
                return true;
            }
        }
        return false;
    }

    /** The ticker time that deadlines are measured from in {@link #hasTransferDueBefore}. */
    long originNanos() {
        return originNanos;
    }

    int stripeCount() {
        return stripes.length;
    }

    /** Instances scheduled on (or handed over to) wheel {@code tier}, ever. */
    long scheduledTo(int tier) {
        long sum = 0;
        for (Stripe stripe : stripes) {
            sum += stripe.scheduled(tier);
        }
        return sum;
    }

    /** CARGO entries, cancelled ones the wheels still hold included. */
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
            // The count of cancelled entries first: an unlink lowers the size before it (release, then an atomic
            // add), so a count that includes an unlink's decrement is read with the size that includes it too, and a
            // release in flight cannot make a cancelled instance look pending.
            int lingering = (int) LINGERING.getAcquire(stripe);
            size += (int) SIZE.getAcquire(stripe) - lingering;
        }
        return Math.max(0, size);
    }

    /**
     * Cancels every instance still waiting in CARGO (the service is closing: nothing will run them).
     *
     * @return how many this call cancelled
     */
    int cancelAll() {
        int count = 0;
        for (Stripe stripe : stripes) {
            long stamp = stripe.writeLock();
            try {
                for (int head : stripe.buckets) {
                    for (int e = head; e != NIL; e = chain(e)) {
                        for (long ctl = ctl(e); state(ctl) == WAITING; ctl = ctl(e)) {
                            if (casCtl(e, ctl, withState(ctl, CANCELLED))) {
                                LINGERING.getAndAdd(stripe, 1);
                                count++;
                                break;
                            }
                        }
                    }
                }
            } finally {
                stripe.unlockWrite(stamp);
            }
        }
        return count;
    }

    /** Slots taken from the slab so far (the high-water mark of instances held at once, rounded to blocks). */
    int slotsAllocated() {
        return freshSlots.get();
    }

    private Stripe stripeFor(long hash) {
        return stripes[(int) (hash >>> stripeShift)];
    }

    /** Takes a block of fresh slots, adding a chunk when the block starts one. */
    private int takeBlock() {
        int first = freshSlots.getAndAdd(BLOCK_SLOTS);
        if (first < 0 || first > Integer.MAX_VALUE - BLOCK_SLOTS) {
            throw new IllegalStateException("instance slab is full: " + Integer.MAX_VALUE + " slots");
        }
        int c = chunkIndex(first);
        Chunk[] directory = chunks;
        if (c >= directory.length || directory[c] == null) {
            addChunk(c);
        }
        return first;
    }

    private synchronized void addChunk(int c) {
        Chunk[] directory = chunks;
        if (c >= directory.length) {
            directory = Arrays.copyOf(directory, Math.max(c + 1, directory.length * 2));
        } else if (directory[c] != null) {
            return;
        } else {
            directory = directory.clone();
        }
        directory[c] = new Chunk(chunkSlots(c));
        chunks = directory;
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

    /** Fields before and after keep two stripes' hot fields off one cache line. */
    @SuppressWarnings("unused")
    private abstract static class StripePadding {
        long p0, p1, p2, p3, p4, p5, p6, p7;
    }

    private static final class Stripe extends StripePadding {
        // The stripe's lock: a sequence number, odd while a writer holds it (see Stripe's lock methods).
        private volatile int seq;
        // Written under the write lock (release); read without it by the lock-free walks (acquire).
        private final int minCapacity;
        private int[] buckets;
        // Entries in the chains; written under the write lock, read without it (opaque).
        private int size;
        // Entries whose instance was cancelled and whose slot is not released yet: added to by cancelling threads,
        // taken from under the write lock as they are unlinked (both atomic). It may dip below its true value for a
        // moment (a wheel can release a slot before its canceller counted it), which size() clamps.
        private int lingering;
        // Under the write lock: the free list (through link()), the block of fresh slots, the transfer lists (read
        // without the lock by workers deciding whether to take them: opaque), the scheduled counters (read opaque).
        private int free = NIL;
        private int freshNext;
        private int freshEnd;
        // Fields rather than small arrays: every schedule writes three of them, and two stripes' arrays could share a
        // cache line (the collector places them), which two producers would then write from both cores.
        private int transferHeadPrecise = NIL;
        private int transferHeadCoarse = NIL;
        private long scheduledPrecise;
        private long scheduledCoarse;
        // The earliest deadline (ticker nanos minus the slab's origin) pushed on each transfer list since its worker
        // last took it; Long.MAX_VALUE when none. Under the write lock; read without it by a worker about to park.
        private long earliestPushedPrecise = Long.MAX_VALUE;
        private long earliestPushedCoarse = Long.MAX_VALUE;
        // Handles registered by fetchTimerFuture, by slot; rare, so created on first use. Under the write lock.
        private Map<Integer, InstanceHandle> handles;
        @SuppressWarnings("unused")
        private long q0, q1, q2, q3, q4, q5, q6, q7;

        Stripe(int capacity) {
            this.minCapacity = capacity;
            this.buckets = emptyBuckets(capacity);
        }

        // A sequence lock rather than a StampedLock: the same optimistic reads, and an unlock that is one volatile
        // store. StampedLock's unlock also looks for queued waiters on every call, which a JFR profile of a burst of
        // schedules put at a fifth of the producers' time. Writers hold it for a few dozen instructions, or a rehash;
        // a waiting writer spins briefly, then yields, then parks for a microsecond at a time.

        /** Takes the lock for writing; returns the stamp to unlock with. */
        long writeLock() {
            for (int spins = 0; ; spins++) {
                int s = seq;
                if ((s & 1) == 0 && SEQ.compareAndSet(this, s, s + 1)) {
                    return s + 1;
                }
                if (spins < 64) {
                    Thread.onSpinWait();
                } else if (spins < 128) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(1_000);
                }
            }
        }

        /** A volatile store: a writer's later volatile reads (a worker's wake-up time) are ordered after it. */
        void unlockWrite(long stamp) {
            seq = (int) stamp + 1;
        }

        /** A stamp to {@link #validate}, or 0 while a writer holds the lock; a volatile read. */
        long tryOptimisticRead() {
            int s = seq;
            return (s & 1) == 0 ? s | (1L << 32) : 0;
        }

        /** Whether no writer took the lock since {@code stamp} was read. */
        boolean validate(long stamp) {
            VarHandle.acquireFence();
            return stamp != 0 && seq == (int) stamp;
        }

        /** Excludes writers (by taking the lock: readers under it are rare, the fallback of an optimistic read). */
        long readLock() {
            return writeLock();
        }

        void unlockRead(long stamp) {
            unlockWrite(stamp);
        }

        private static int[] emptyBuckets(int capacity) {
            return new int[capacity]; // all NIL
        }

        /** Under the write lock. */
        int take(InstanceSlab slab) {
            int slot = free;
            if (slot != NIL) {
                free = slab.link(slot);
                return slot;
            }
            if (freshNext == freshEnd) {
                freshNext = slab.takeBlock();
                freshEnd = freshNext + BLOCK_SLOTS;
                if (freshNext == NIL) {
                    freshNext++; // slot 0 is NIL
                }
            }
            return freshNext++;
        }

        int transfers(int tier) {
            return tier == PRECISE ? (int) TRANSFER_HEAD_PRECISE.getOpaque(this)
                    : (int) TRANSFER_HEAD_COARSE.getOpaque(this);
        }

        void setTransfers(int tier, int head) {
            if (tier == PRECISE) {
                TRANSFER_HEAD_PRECISE.setOpaque(this, head);
            } else {
                TRANSFER_HEAD_COARSE.setOpaque(this, head);
            }
        }

        long scheduled(int tier) {
            return tier == PRECISE ? (long) SCHEDULED_PRECISE.getOpaque(this) : (long) SCHEDULED_COARSE.getOpaque(this);
        }

        long earliestPushed(int tier) {
            return tier == PRECISE ? (long) EARLIEST_PUSHED_PRECISE.getOpaque(this)
                    : (long) EARLIEST_PUSHED_COARSE.getOpaque(this);
        }

        void setEarliestPushed(int tier, long rel) {
            if (tier == PRECISE) {
                EARLIEST_PUSHED_PRECISE.setOpaque(this, rel);
            } else {
                EARLIEST_PUSHED_COARSE.setOpaque(this, rel);
            }
        }

        /** Under the write lock. */
        void pushTransfer(InstanceSlab slab, int slot, int tier) {
            slab.link(slot, transfers(tier));
            setTransfers(tier, slot);
            if (tier == PRECISE) {
                SCHEDULED_PRECISE.setOpaque(this, scheduledPrecise + 1);
            } else {
                SCHEDULED_COARSE.setOpaque(this, scheduledCoarse + 1);
            }
            long rel = slab.deadlineNanos(slot) - slab.originNanos;
            if (rel < (tier == PRECISE ? earliestPushedPrecise : earliestPushedCoarse)) {
                setEarliestPushed(tier, rel);
            }
        }

        /** Under the write lock: relinks every entry into a fresh bucket array of {@code capacity}. */
        void rehash(InstanceSlab slab, int capacity) {
            int[] fresh = emptyBuckets(capacity);
            int mask = capacity - 1;
            for (int head : buckets) {
                for (int e = head, next; e != NIL; e = next) {
                    next = slab.chain(e);
                    int i = (int) hash(slab.id(e)) & mask;
                    slab.chain(e, fresh[i]);
                    fresh[i] = e;
                }
            }
            BUCKETS.setRelease(this, fresh);
        }
    }
}
