package dev.tickwheel.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How often and how far apart the client repeats a call that is safe to repeat (see {@link TickwheelClient} for
 * which calls are, and which failures count): at most {@code maxAttempts} attempts in all, the n-th retry after a
 * back-off drawn from {@code [cap/2, cap)} with {@code cap = min(maxBackoff, initialBackoff * 2^(n-1))}
 * ("equal jitter": never shorter than half the cap, so retries do not pile up; random in the other half, so many
 * clients that failed together do not retry together).
 *
 * <pre>
 *   defaults (3 attempts, 100 ms, 2 s):   retry 1 after 50..100 ms, retry 2 after 100..200 ms (upper ends exclusive)
 *   (5 attempts, 100 ms, 300 ms):         50..100, 100..200, 150..300, 150..300 ms
 * </pre>
 *
 * A call's worst case is bounded: {@code maxAttempts} request time-outs plus the back-offs between them.
 *
 * <p>Immutable.
 *
 * @param maxAttempts    attempts including the first, 1..{@value #MAX_ATTEMPTS_LIMIT} (1: never repeat)
 * @param initialBackoff the cap of the first retry's back-off, 0..{@code maxBackoff}
 * @param maxBackoff     the largest back-off, at most {@link #MAX_BACKOFF_LIMIT}
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);
    public static final int MAX_ATTEMPTS_LIMIT = 10;
    public static final Duration MAX_BACKOFF_LIMIT = Duration.ofMinutes(1);

    /** 3 attempts, back-off capped at 100 ms doubling up to 2 s. */
    public static final RetryPolicy DEFAULTS = new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF,
            DEFAULT_MAX_BACKOFF);

    /** One attempt: no call is ever repeated. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
            throw new IllegalArgumentException("maxAttempts must be in 1.." + MAX_ATTEMPTS_LIMIT + ": " + maxAttempts);
        }
        if (maxBackoff.isNegative() || maxBackoff.compareTo(MAX_BACKOFF_LIMIT) > 0) {
            throw new IllegalArgumentException("maxBackoff must be in 0.." + MAX_BACKOFF_LIMIT + ": " + maxBackoff);
        }
        if (initialBackoff.isNegative() || initialBackoff.compareTo(maxBackoff) > 0) {
            throw new IllegalArgumentException("initialBackoff must be in 0..maxBackoff (" + maxBackoff + "): "
                    + initialBackoff);
        }
    }

    /** {@code maxAttempts} attempts with the default back-offs. */
    public static RetryPolicy attempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    /**
     * The back-off before retry {@code retry} (1 before the second attempt).
     *
     * @param random a uniform draw from [0, 1) (tests pass the edges)
     */
    long backoffMs(int retry, double random) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry must be at least 1: " + retry);
        }
        long maxMs = maxBackoff.toMillis();
        // The shift stops at 2^30: initialBackoff is at most 1 min (6e4 ms), so 6e4 * 2^30 < 2^63 cannot overflow.
        long capMs = Math.min(maxMs, initialBackoff.toMillis() << Math.min(retry - 1, 30));
        long halfMs = capMs / 2;
        return halfMs + (long) (random * (capMs - halfMs));
    }
}
