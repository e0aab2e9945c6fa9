package dev.tickwheel.server.job;

/**
 * How often and how soon a failed instance is tried again.
 *
 * <p>Immutable.
 *
 * @param maxAttempts total attempts including the first; at least 1 (1 means no retry)
 * @param backoffMs   wait between a failed attempt and the next one, in milliseconds; at least 0
 */
public record RetryPolicy(int maxAttempts, long backoffMs) {

    /** One attempt, no retry. */
    public static final RetryPolicy NONE = new RetryPolicy(1, 0);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (backoffMs < 0) {
            throw new IllegalArgumentException("backoffMs must not be negative: " + backoffMs);
        }
    }

    /** True if an instance that has made {@code attemptsMade} attempts may be tried again. */
    public boolean allowsAnotherAttempt(int attemptsMade) {
        return attemptsMade < maxAttempts;
    }
}
