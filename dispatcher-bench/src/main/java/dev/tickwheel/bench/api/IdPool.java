package dev.tickwheel.bench.api;

import java.util.Arrays;

/**
 * The ids (instance ids, or run key numbers) one phase created and a later phase cancels, oldest first: appended
 * while the creating phase runs, taken once each by the cancelling phase.
 *
 * <p>Thread-safe: guarded by this (at tens of thousands of calls per second, an uncontended lock costs nothing worth
 * measuring next to an HTTP call or a transaction).
 */
final class IdPool {

    /** What {@link #takeOne} returns once every id has been taken. Ids and key numbers are positive. */
    static final long NONE = -1;

    private long[] ids = new long[1 << 12]; // guarded by this
    private int size; // guarded by this
    private int taken; // guarded by this

    synchronized void add(long id) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        ids[size++] = id;
    }

    /** The oldest id not yet taken, or {@link #NONE}. */
    synchronized long takeOne() {
        return taken < size ? ids[taken++] : NONE;
    }

    /** Up to {@code max} of the oldest ids not yet taken, oldest first; empty once none are left. */
    synchronized long[] take(int max) {
        int n = Math.min(max, size - taken);
        long[] out = Arrays.copyOfRange(ids, taken, taken + n);
        taken += n;
        return out;
    }

    /** Ids added and not yet taken. */
    synchronized int remaining() {
        return size - taken;
    }

    /** Every id ever added. */
    synchronized int added() {
        return size;
    }
}
