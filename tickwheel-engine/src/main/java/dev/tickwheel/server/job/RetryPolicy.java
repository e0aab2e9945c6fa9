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
    /** Most attempts a job may ask for. */
    public static final int MAX_ATTEMPTS = 100;
    /** Longest backoff between attempts: one day. */
    public static final long MAX_BACKOFF_MS = 86_400_000L;

    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be in 1.." + MAX_ATTEMPTS + ": " + maxAttempts);
        }
        if (backoffMs < 0 || backoffMs > MAX_BACKOFF_MS) {
            throw new IllegalArgumentException("backoffMs must be in 0.." + MAX_BACKOFF_MS + ": " + backoffMs);
        }
    }

    /** True if an instance that has made {@code attemptsMade} attempts may be tried again. */
    public boolean allowsAnotherAttempt(int attemptsMade) {
        return attemptsMade < maxAttempts;
    }
}
