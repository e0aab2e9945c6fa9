package dev.tickwheel.timer;

/**
 * The next deadline of a hashed wheel whose buckets each know a lower bound of the deadlines they hold ({@code
 * earliest[i]}, {@code Long.MAX_VALUE} when empty, exact after every scan of the bucket), shared by the timer's wheel
 * ({@code TimingWheel}) and the instance service's ({@code SlabWheel}).
 *
 * <p>Walks the buckets tick by tick from the one {@code expiredUpTo} falls in. The first bucket whose earliest deadline
 * lies inside its own tick ends the walk: every later bucket's deadlines lie in later ticks, and every bucket passed so
 * far holds only deadlines of a later round, so nothing can be earlier. A wheel with nothing in the current round costs
 * one revolution of reads.
 *
 * <p>Stateless.
 */
public final class BucketDeadlines {

    private BucketDeadlines() {
    }

    /**
     * @param earliest    per bucket, a lower bound of its deadlines; its length is a power of 2
     * @param expiredUpTo the wheel's time (same axis as the deadlines) up to which it has expired everything
     * @param tickNanos   the width of a bucket
     * @return the earliest deadline held, or a lower bound of it (never later than the true earliest);
     *         {@code Long.MAX_VALUE} when every bucket is empty
     */
    public static long next(long[] earliest, long expiredUpTo, long tickNanos) {
        int mask = earliest.length - 1;
        long fromTick = expiredUpTo / tickNanos;
        long min = Long.MAX_VALUE;
        for (int i = 0; i < earliest.length; i++) {
            long e = earliest[(int) (fromTick + i) & mask];
            if (e == Long.MAX_VALUE) {
                continue;
            }
            if (e / tickNanos == fromTick + i) {
                return Math.min(min, e);
            }
            min = Math.min(min, e);
        }
        return min;
    }
}
