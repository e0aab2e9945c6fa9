package dev.tickwheel.server.job;

/**
 * A value drawn from a hash instead of a random source, for the jitters of {@link RetryPolicy} and
 * {@link ScheduleWindow}: the same seed gives the same value on every member and after a restart, and distinct seeds
 * spread as evenly as random draws.
 *
 * <p>Stateless; thread-safe.
 */
final class StableHash {

    private StableHash() {
    }

    /** A value in {@code [0, bound]} from {@code seed}. */
    static long uniform(long seed, long bound) {
        return Long.remainderUnsigned(mix(seed), bound + 1);
    }

    /** The finalizer of SplitMix64. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
