package dev.tickwheel.timer;

import java.util.function.Consumer;

/**
 * The bucket arithmetic of a hashed timing wheel, with exact deadlines inside a bucket.
 *
 * <p>Not thread-safe: confined to the worker thread of one {@link HashedWheelTimer}.
 *
 * <h2>Algorithm</h2>
 *
 * <pre>
 * Times are nanoseconds relative to the timer's origin ("rel"), always >= 0. A timeout with deadline d lives in
 * bucket (d / tickNanos) & mask, whatever its round: the wheel has no per-timeout round counter. Each bucket keeps
 * a lower bound of the deadlines it holds (earliest[i]; Long.MAX_VALUE when empty), which is exact after every scan
 * of that bucket and may be stale-low after an unlink.
 *
 * Example: tick 1 ms, 8 buckets, expiredUpTo = 10.2 ms.
 *   add d = 12.7 ms  -> tick 12 -> bucket 4      add d = 20.1 ms -> tick 20 -> bucket 4 (next round, same bucket)
 *   add d = 13.0 ms  -> tick 13 -> bucket 5
 *   nextDeadline(): walk ticks 10, 11, 12 ... ; bucket 4 at tick 12 has earliest 12.7 ms, which lies inside tick 12:
 *                   nothing in a later tick can be earlier, so the worker parks until exactly 12.7 ms.
 *   expire(12.9):   scans the buckets of ticks 10..12 whose earliest <= 12.9 (only bucket 4), fires 12.7, keeps
 *                   20.1 and sets earliest[4] = 20.1.
 * </pre>
 *
 * <p>So a timeout fires at its own deadline (plus the park's wake-up latency), not at the end of its tick, and an
 * idle wheel sleeps until its earliest deadline however far away it is. The cost of a scan is the bucket's length,
 * including timeouts of later rounds; the staging (coarse) wheel keeps far deadlines out of a fine wheel for that
 * reason. {@link #nextDeadline()} walks at most one revolution of buckets and stops at the first bucket whose
 * earliest deadline falls in its own tick.
 *
 * <p>Caveats: timeouts due in the same scan fire in bucket order, not deadline order.
 */
final class TimingWheel {

    private final long tickNanos;
    private final int mask;
    private final WheelTimeout[] heads;
    private final long[] earliest;
    private final long originNanos;
    private long expiredUpTo;
    private int size;
    // The next bucket a sweep visits, or -1 when none is under way.
    private int sweepCursor = -1;

    /**
     * @param originNanos ticker time that rel 0 corresponds to; a node's rel deadline is
     *                    {@code node.deadlineNanos - originNanos}
     */
    TimingWheel(long tickNanos, int buckets, long originNanos) {
        if (Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("buckets must be a power of 2: " + buckets);
        }
        this.tickNanos = tickNanos;
        this.mask = buckets - 1;
        this.heads = new WheelTimeout[buckets];
        this.earliest = new long[buckets];
        for (int i = 0; i < buckets; i++) {
            heads[i] = new WheelTimeout();
            earliest[i] = Long.MAX_VALUE;
        }
        this.originNanos = originNanos;
    }

    long relative(WheelTimeout timeout) {
        return timeout.deadlineNanos - originNanos;
    }

    /** Every timeout with a rel deadline at or before this has been expired or removed. */
    long expiredUpTo() {
        return expiredUpTo;
    }

    int size() {
        return size;
    }

    /** Links a timeout whose rel deadline is after {@link #expiredUpTo()}. */
    void add(WheelTimeout timeout) {
        long rel = relative(timeout);
        if (rel <= expiredUpTo) {
            throw new IllegalStateException("deadline " + rel + " ns is not after expiredUpTo " + expiredUpTo + " ns");
        }
        int index = (int) (rel / tickNanos) & mask;
        timeout.linkBefore(heads[index]);
        if (rel < earliest[index]) {
            earliest[index] = rel;
        }
        size++;
    }

    /** Whether a sweep started by {@link #startSweep()} has buckets left. */
    boolean isSweeping() {
        return sweepCursor >= 0;
    }

    /** Starts a sweep at the first bucket (restarts one under way). */
    void startSweep() {
        sweepCursor = 0;
    }

    /**
     * Unlinks the cancelled timeouts of the sweep's next buckets, a whole bucket at a time, until at least
     * {@code budget} nodes have been visited or the last bucket is done; a bucket's earliest deadline is exact
     * afterwards.
     *
     * @return how many cancelled timeouts were dropped
     */
    int sweep(int budget) {
        int dropped = 0;
        int visited = 0;
        while (sweepCursor >= 0 && visited < budget) {
            int index = sweepCursor;
            WheelTimeout head = heads[index];
            long min = Long.MAX_VALUE;
            WheelTimeout node = head.next;
            while (node != head) {
                WheelTimeout following = node.next;
                if (node.isCancelled()) {
                    node.unlink();
                    size--;
                    dropped++;
                    node.dropped();
                } else {
                    min = Math.min(min, relative(node));
                }
                visited++;
                node = following;
            }
            earliest[index] = min;
            sweepCursor = index + 1 < heads.length ? index + 1 : -1;
        }
        return dropped;
    }

    /**
     * Unlinks every timeout whose rel deadline is at or before {@code nowRel} and passes each live one to
     * {@code sink}; cancelled ones are dropped.
     *
     * @return how many cancelled timeouts were dropped
     */
    int expire(long nowRel, Consumer<WheelTimeout> sink) {
        if (nowRel <= expiredUpTo) {
            return 0;
        }
        long fromTick = expiredUpTo / tickNanos;
        long ticks = nowRel / tickNanos - fromTick + 1;
        int buckets = (int) Math.min(ticks, heads.length);
        int dropped = 0;
        for (int i = 0; i < buckets; i++) {
            int index = (int) (fromTick + i) & mask;
            if (earliest[index] <= nowRel) {
                dropped += expireBucket(index, nowRel, sink);
            }
        }
        expiredUpTo = nowRel;
        return dropped;
    }

    private int expireBucket(int index, long nowRel, Consumer<WheelTimeout> sink) {
        WheelTimeout head = heads[index];
        long min = Long.MAX_VALUE;
        int dropped = 0;
        WheelTimeout node = head.next;
        while (node != head) {
            WheelTimeout following = node.next;
            long rel = relative(node);
            if (rel <= nowRel) {
                node.unlink();
                size--;
                if (node.isCancelled()) {
                    dropped++;
                    node.dropped();
                } else {
                    sink.accept(node);
                }
            } else if (rel < min) {
                min = rel;
            }
            node = following;
        }
        earliest[index] = min;
        return dropped;
    }

    /**
     * The earliest rel deadline in the wheel, or a lower bound of it (never later than the true earliest);
     * {@code Long.MAX_VALUE} when empty.
     */
    long nextDeadline() {
        return size == 0 ? Long.MAX_VALUE : BucketDeadlines.next(earliest, expiredUpTo, tickNanos);
    }

    /** Unlinks every timeout and passes the waiting ones to {@code sink}. */
    void drainTo(Consumer<WheelTimeout> sink) {
        for (int index = 0; index < heads.length; index++) {
            WheelTimeout head = heads[index];
            WheelTimeout node = head.next;
            while (node != head) {
                WheelTimeout following = node.next;
                node.unlink();
                if (node.isPending()) {
                    sink.accept(node);
                }
                node = following;
            }
            earliest[index] = Long.MAX_VALUE;
        }
        size = 0;
    }
}
