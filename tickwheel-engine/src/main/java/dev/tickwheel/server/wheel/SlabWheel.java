package dev.tickwheel.server.wheel;

import com.google.common.base.Ticker;
import dev.tickwheel.timer.BucketDeadlines;
import dev.tickwheel.timer.TimerStats;
import dev.tickwheel.timer.WorkerParker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jctools.util.PaddedAtomicLong;

/**
 * One tier of {@link InstanceTimeWheelService}: a hashed timing wheel over the slots of an {@link InstanceSlab}, with
 * one worker thread, exact deadlines and no idle ticking. It is {@code HashedWheelTimer}'s algorithm (see that class
 * and {@code TimingWheel} for the worked example) with slot numbers in place of node objects.
 *
 * <p>Only the worker touches the buckets: each is a singly-linked list of slots through {@link InstanceSlab#link}, in
 * the order they were scheduled (a stripe's transfer list is turned round when taken), with a lower bound of its deadlines ({@code earliest}), exact after every scan of the bucket. {@code schedule} puts
 * new slots on its stripe's transfer list (see {@link InstanceSlab}); each worker pass takes the lists, links the
 * slots into buckets (or expires those already due), and expires the buckets whose earliest deadline has come. It then
 * parks until the earliest deadline it holds or its deferred retry, or without a deadline when it holds nothing.
 *
 * <p>Cancelled slots: a cancel only moves the slot's control word to cancelled and counts itself. The worker drops a
 * cancelled slot, and releases it to the slab, wherever it meets it: in a transfer list, in a bucket it scans, in a
 * sweep, in its deferred list. A sweep starts when at least {@link #CANCELS_PER_WAKE} cancels were counted since the
 * last one and they are at least half of what the wheel holds, and visits {@link #SWEEP_SLOTS_PER_PASS} slots a pass:
 * so a wheel holds at most about as many cancelled slots as live ones, plus {@link #CANCELS_PER_WAKE}, at O(1) per
 * cancel. Every {@link #CANCELS_PER_WAKE}-th cancel wakes a parked worker to decide.
 *
 * <p>Expiry: the precise tier hands a due slot to the service's dispatch executor ({@link Expiry#expire}); when it is
 * full the slot waits in a deferred list and is retried a tick later, in order. The coarse tier's expiry moves the slot
 * to the precise tier ({@link InstanceTimeWheelService}), {@code expiryLead} before its deadline.
 *
 * <p>Thread-safe as {@code HashedWheelTimer}: {@link #wake}, {@link #cancelRequested}, {@link #stats} and
 * {@link #stop} from any thread (stop not from the worker); the rest is confined to the worker.
 */
final class SlabWheel {

    /** Every this-many-th cancel wakes a parked worker; a sweep needs at least this many cancels. A power of 2. */
    static final int CANCELS_PER_WAKE = 4096;
    static final int SWEEP_SLOTS_PER_PASS = 4096;
    /** At most this many slots move from the transfer lists into the wheel per pass, so firing is not held up. */
    static final int MAX_TRANSFERS_PER_PASS = 100_000;

    private static final int INIT = 0;
    private static final int STARTED = 1;
    private static final int STOPPED = 2;
    private static final long AWAKE = Long.MIN_VALUE;
    private static final long IDLE = Long.MAX_VALUE;
    private static final VarHandle WAKE_AT;

    static {
        try {
            WAKE_AT = MethodHandles.lookup().findVarHandle(SlabWheel.class, "wakeAtNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What a tier does with a due slot; runs on the worker. */
    interface Expiry {
        /**
         * @return {@code false} if the slot could not be taken now (the dispatch executor is full): the wheel keeps
         *         it and retries a tick later
         */
        boolean expire(int slot, long ctl);
    }

    private final InstanceSlab slab;
    private final int tier;
    private final Ticker ticker;
    private final WorkerParker parker;
    private final long tickNanos;
    private final long originNanos;
    private final long expiryLeadNanos;
    private final Expiry expiry;
    private final Thread worker;
    private final PaddedAtomicLong cancelRequests = new PaddedAtomicLong();
    private final AtomicInteger lifecycle = new AtomicInteger(INIT);
    private final CountDownLatch workerExited = new CountDownLatch(1);
    private volatile long wakeAtNanos = AWAKE;

    // Confined to the worker thread.
    private final int mask;
    private final int[] heads;
    private final int[] tails;
    private final long[] earliest;
    private long expiredUpTo;
    private int size;
    private int sweepCursor = -1;
    private long cancelRequestsAtSweepStart;
    // Slots taken from the transfer lists but not yet linked (a pass moves at most MAX_TRANSFERS_PER_PASS).
    private int backlog = InstanceSlab.NIL;
    // Slots the executor refused, oldest first, retried a tick later.
    private int deferredHead = InstanceSlab.NIL;
    private int deferredTail = InstanceSlab.NIL;
    private long deferredCount;
    private long retryDeferredAtNanos;
    private long passNowNanos;
    private boolean saturatedThisPass;

    // Written only by the worker; volatile so that stats() sees recent values.
    private volatile long expired;
    private volatile long cancelled;
    private volatile long deferrals;
    private final LongAdder failed = new LongAdder();

    SlabWheel(InstanceSlab slab, int tier, Ticker ticker, long tickNanos, int buckets, long expiryLeadNanos,
              Expiry expiry, ThreadFactory threadFactory) {
        this.slab = slab;
        this.tier = tier;
        this.ticker = ticker;
        this.parker = WorkerParker.forTicker(ticker);
        this.tickNanos = tickNanos;
        this.expiryLeadNanos = expiryLeadNanos;
        this.expiry = expiry;
        int n = buckets == 1 ? 1 : Integer.highestOneBit(buckets - 1) << 1;
        this.mask = n - 1;
        this.heads = new int[n];
        Arrays.fill(heads, InstanceSlab.NIL);
        this.tails = new int[n];
        this.earliest = new long[n];
        Arrays.fill(earliest, Long.MAX_VALUE);
        this.originNanos = slab.originNanos();
        this.worker = threadFactory.newThread(this::runWorker);
    }

    void start() {
        if (lifecycle.compareAndSet(INIT, STARTED)) {
            parker.workerStarted(worker);
            worker.start();
        }
    }

    /** The ticker time now, read by producers for their deadlines. */
    long now() {
        return ticker.read();
    }

    /**
     * Called after a slot with this deadline was pushed on a transfer list for this wheel: wakes the worker if it
     * sleeps towards a later time (or without one). See InstanceSlab's Transfers to the wheels.
     */
    void wake(long deadlineNanos) {
        long deadlineRel = deadlineNanos - originNanos - expiryLeadNanos;
        for (long wakeAt = wakeAtNanos; wakeAt != AWAKE && (deadlineRel < wakeAt || wakeAt == IDLE);
                wakeAt = wakeAtNanos) {
            if (WAKE_AT.compareAndSet(this, wakeAt, AWAKE)) {
                parker.unpark(worker);
                return;
            }
        }
    }

    /** Called by a cancel that won while this wheel held the slot. */
    void cancelRequested() {
        long count = cancelRequests.incrementAndGet();
        if ((count & (CANCELS_PER_WAKE - 1)) == 0) {
            long wakeAt = wakeAtNanos;
            if (wakeAt != AWAKE && WAKE_AT.compareAndSet(this, wakeAt, AWAKE)) {
                parker.unpark(worker);
            }
        }
    }

    void taskFailed() {
        failed.increment();
    }

    TimerStats stats() {
        long s = slab.scheduledTo(tier);
        long e = expired;
        long c = cancelled;
        return new TimerStats(s, e, c, deferrals, failed.sum(), Math.max(0, s - e - c));
    }

    /**
     * Stops the worker and waits for it to exit. Slots still held stay as they are: the service cancels every pending
     * instance after both wheels stopped. Idempotent; must not be called from the worker.
     */
    void stop() {
        if (lifecycle.getAndSet(STOPPED) == INIT) {
            return;
        }
        boolean interrupted = false;
        while (workerExited.getCount() > 0) {
            parker.unpark(worker);
            try {
                workerExited.await(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void runWorker() {
        try {
            while (lifecycle.get() == STARTED) {
                wakeAtNanos = AWAKE;
                Thread.interrupted(); // not used to stop the worker; a flag left by an executor must not spin a park
                long nowNanos = ticker.read();
                long nowRel = relativeNow(nowNanos);
                passNowNanos = nowNanos;
                saturatedThisPass = false;
                boolean more = takeTransfers(nowRel);
                retryDeferred(nowNanos);
                expire(nowRel);
                boolean sweeping = sweep();
                if (more || sweeping) {
                    continue;
                }
                boolean idle = size == 0 && deferredCount == 0;
                long waitNanos = idle ? Long.MAX_VALUE : nanosUntilNextWork(nowNanos, nowRel);
                if (waitNanos <= 0) {
                    continue;
                }
                wakeAtNanos = idle ? IDLE : nowRel + Math.min(waitNanos, Long.MAX_VALUE - nowRel);
                // A producer that pushed a slot due before this wake-up after this pass took the lists, but read
                // wakeAtNanos before the line above: its slot is on a list now, so pass again. Slots due later wait on
                // their lists until the wake-up: during a burst of schedules the worker sleeps.
                long wakeAt = wakeAtNanos;
                long dueBefore = wakeAt > Long.MAX_VALUE - expiryLeadNanos ? Long.MAX_VALUE : wakeAt + expiryLeadNanos;
                if (slab.hasTransferDueBefore(tier, dueBefore) || sweepDue() || lifecycle.get() != STARTED) {
                    continue;
                }
                if (idle) {
                    parker.parkIndefinitely();
                } else {
                    parker.parkUntil(nowNanos + waitNanos);
                }
            }
        } finally {
            parker.workerStopped(worker);
            workerExited.countDown();
        }
    }

    private long relativeNow(long nowNanos) {
        long rel = nowNanos - originNanos;
        return rel < 0 ? Long.MAX_VALUE : rel;
    }

    /** A slot's deadline on this wheel's axis: relative to the origin, {@code expiryLead} earlier. */
    private long relative(int slot) {
        return slab.deadlineNanos(slot) - originNanos - expiryLeadNanos;
    }

    private long nanosUntilNextWork(long nowNanos, long nowRel) {
        long waitNanos = size == 0 ? Long.MAX_VALUE : nextDeadline() - nowRel;
        return deferredCount == 0 ? waitNanos : Math.min(waitNanos, retryDeferredAtNanos - nowNanos);
    }

    /** @return whether more slots wait to be linked than one pass may move */
    private boolean takeTransfers(long nowRel) {
        int budget = MAX_TRANSFERS_PER_PASS;
        int slot = backlog;
        backlog = InstanceSlab.NIL;
        for (int s = 0; ; s++) {
            while (slot != InstanceSlab.NIL) {
                if (budget-- == 0) {
                    backlog = slot; // the rest of this list; the other stripes' lists wait on their stripes
                    return true;
                }
                int next = slab.link(slot);
                admit(slot, nowRel);
                slot = next;
            }
            if (s == slab.stripeCount()) {
                return false;
            }
            slot = reverse(slab.takeTransfers(s, tier));
        }
    }

    /** A transfer list is pushed newest first: turned round, slots are admitted in the order they were scheduled. */
    private int reverse(int head) {
        int reversed = InstanceSlab.NIL;
        for (int slot = head, next; slot != InstanceSlab.NIL; slot = next) {
            next = slab.link(slot);
            slab.link(slot, reversed);
            reversed = slot;
        }
        return reversed;
    }

    private void admit(int slot, long nowRel) {
        long ctl = slab.ctl(slot);
        if (InstanceSlab.state(ctl) != InstanceSlab.WAITING) {
            drop(slot);
            return;
        }
        long rel = relative(slot);
        if (rel <= Math.max(nowRel, expiredUpTo)) {
            // Due already, or in a part of time the wheel has passed: expire in this pass, not a revolution later.
            expireOne(slot, ctl);
            return;
        }
        int index = (int) (rel / tickNanos) & mask;
        slab.link(slot, InstanceSlab.NIL);
        if (heads[index] == InstanceSlab.NIL) {
            heads[index] = slot;
        } else {
            slab.link(tails[index], slot);
        }
        tails[index] = slot;
        if (rel < earliest[index]) {
            earliest[index] = rel;
        }
        size++;
    }

    private void drop(int slot) {
        cancelled++;
        slab.release(slot);
    }

    private void expireOne(int slot, long ctl) {
        if (saturatedThisPass || !submit(slot, ctl)) {
            defer(slot);
        }
    }

    private boolean submit(int slot, long ctl) {
        // Counted before the hand-over, taken back if refused: whoever sees the task's effects also sees it counted.
        expired++;
        if (expiry.expire(slot, ctl)) {
            return true;
        }
        expired--;
        saturatedThisPass = true;
        return false;
    }

    private void defer(int slot) {
        slab.link(slot, InstanceSlab.NIL);
        if (deferredTail == InstanceSlab.NIL) {
            deferredHead = slot;
        } else {
            slab.link(deferredTail, slot);
        }
        deferredTail = slot;
        if (deferredCount++ == 0) {
            retryDeferredAtNanos = passNowNanos + tickNanos;
        }
        deferrals++;
    }

    private void retryDeferred(long nowNanos) {
        if (deferredCount == 0 || nowNanos - retryDeferredAtNanos < 0) {
            return;
        }
        retryDeferredAtNanos = nowNanos + tickNanos;
        while (deferredHead != InstanceSlab.NIL && !saturatedThisPass) {
            int slot = deferredHead;
            // Read before the submit: a dispatch run at once (a direct executor) releases the slot, and the free
            // list reuses its link.
            int next = slab.link(slot);
            long ctl = slab.ctl(slot);
            if (InstanceSlab.state(ctl) == InstanceSlab.WAITING && !submit(slot, ctl)) {
                deferrals++;
                return; // still first in line
            }
            deferredHead = next;
            if (deferredHead == InstanceSlab.NIL) {
                deferredTail = InstanceSlab.NIL;
            }
            deferredCount--;
            if (InstanceSlab.state(ctl) != InstanceSlab.WAITING) {
                drop(slot);
            }
        }
    }

    private void expire(long nowRel) {
        if (nowRel <= expiredUpTo) {
            return;
        }
        long fromTick = expiredUpTo / tickNanos;
        long ticks = nowRel / tickNanos - fromTick + 1;
        int buckets = (int) Math.min(ticks, heads.length);
        for (int i = 0; i < buckets; i++) {
            int index = (int) (fromTick + i) & mask;
            if (earliest[index] <= nowRel) {
                scan(index, nowRel);
            }
        }
        expiredUpTo = nowRel;
    }

    /**
     * Scans bucket {@code index}: expires the slots due at {@code nowRel}, drops the cancelled ones, keeps the rest;
     * the bucket's earliest deadline is exact afterwards.
     *
     * @return slots visited
     */
    private int scan(int index, long nowRel) {
        long min = Long.MAX_VALUE;
        int visited = 0;
        int prev = InstanceSlab.NIL;
        for (int slot = heads[index], next; slot != InstanceSlab.NIL; slot = next) {
            next = slab.link(slot);
            visited++;
            long ctl = slab.ctl(slot);
            long rel = relative(slot);
            boolean cancelledSlot = InstanceSlab.state(ctl) != InstanceSlab.WAITING;
            if (cancelledSlot || rel <= nowRel) {
                if (prev == InstanceSlab.NIL) {
                    heads[index] = next;
                } else {
                    slab.link(prev, next);
                }
                if (next == InstanceSlab.NIL) {
                    tails[index] = prev;
                }
                size--;
                if (cancelledSlot) {
                    drop(slot);
                } else {
                    expireOne(slot, ctl);
                }
            } else {
                min = Math.min(min, rel);
                prev = slot;
            }
        }
        earliest[index] = min;
        return visited;
    }

    private boolean sweepDue() {
        long since = cancelRequests.get() - cancelRequestsAtSweepStart;
        return since >= CANCELS_PER_WAKE && since >= size / 2;
    }

    /** @return whether a sweep is still under way */
    private boolean sweep() {
        if (sweepCursor < 0) {
            if (!sweepDue()) {
                return false;
            }
            cancelRequestsAtSweepStart = cancelRequests.get();
            sweepCursor = 0;
        }
        int visited = 0;
        while (sweepCursor >= 0 && visited < SWEEP_SLOTS_PER_PASS) {
            // Long.MIN_VALUE: nothing is due, the scan only drops cancelled slots and recomputes the earliest.
            visited += scan(sweepCursor, Long.MIN_VALUE);
            sweepCursor = sweepCursor + 1 < heads.length ? sweepCursor + 1 : -1;
        }
        return sweepCursor >= 0;
    }

    /** The earliest rel deadline held, or a lower bound of it; {@code Long.MAX_VALUE} when empty. */
    private long nextDeadline() {
        return BucketDeadlines.next(earliest, expiredUpTo, tickNanos);
    }
}
