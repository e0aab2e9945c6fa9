package dev.tickwheel.server.job;

import java.util.List;
import java.util.Objects;

/**
 * How often and how soon a failed instance is tried again: a curve (a first backoff, multiplied after every failed
 * attempt up to a cap) or an explicit list of delays, either with optional jitter.
 *
 * <p>The wait after the {@code n}-th failed attempt ({@link #delayAfterAttempt}):
 * <ul>
 *   <li>curve: {@code min(maxBackoffMs, backoffMs × multiplier^(n-1))}; a multiplier of 1 is a fixed backoff;</li>
 *   <li>list: {@code delaysMs[n-1]}, the last one repeated when there are more retries than delays;</li>
 *   <li>then jitter, as AWS's "Exponential Backoff And Jitter" names them: {@link Jitter#NONE} keeps the wait,
 *       {@link Jitter#FULL} takes a wait in {@code [0, wait]}, {@link Jitter#EQUAL} one in {@code [wait/2, wait]}.</li>
 * </ul>
 * The jitter is not drawn from a random source: it is a hash of the instance and the attempt, so every member (and a
 * restarted one) computes the same wait for the same failure, and a test can predict it. Spread over many instances,
 * it is as even as a random draw. The retry's time is stored with the instance when the failure is recorded, so it
 * survives a restart as it is; the instance is never fired before it.
 *
 * <p>Immutable.
 *
 * @param maxAttempts  total attempts including the first; 1..{@link #MAX_ATTEMPTS} (1 means no retry)
 * @param backoffMs    the curve's first wait, in milliseconds; 0..{@link #MAX_BACKOFF_MS}; 0 with a list of delays
 * @param multiplier   the curve's growth per failed attempt; 1..{@link #MAX_MULTIPLIER}; 1 with a list of delays
 * @param maxBackoffMs the curve's cap; backoffMs..{@link #MAX_BACKOFF_MS}; {@link #MAX_BACKOFF_MS} with a list
 * @param jitter       how the wait is spread
 * @param delaysMs     the waits after the first, second, ... failed attempt, each 0..{@link #MAX_BACKOFF_MS}, at most
 *                     {@code MAX_ATTEMPTS - 1} of them; empty for a curve
 */
public record RetryPolicy(int maxAttempts, long backoffMs, double multiplier, long maxBackoffMs, Jitter jitter,
        List<Long> delaysMs) {

    /** How a computed wait is spread. */
    public enum Jitter {
        /** The wait as computed. */
        NONE,
        /** A wait between 0 and the computed one. */
        FULL,
        /** A wait between half the computed one and all of it. */
        EQUAL
    }

    /** One attempt, no retry. */
    public static final RetryPolicy NONE = new RetryPolicy(1, 0);
    /** Most attempts a job may ask for. */
    public static final int MAX_ATTEMPTS = 100;
    /** Longest wait between attempts: one day. */
    public static final long MAX_BACKOFF_MS = 86_400_000L;
    /** Largest multiplier of a curve. */
    public static final double MAX_MULTIPLIER = 100;

    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be in 1.." + MAX_ATTEMPTS + ": " + maxAttempts);
        }
        if (backoffMs < 0 || backoffMs > MAX_BACKOFF_MS) {
            throw new IllegalArgumentException("backoffMs must be in 0.." + MAX_BACKOFF_MS + ": " + backoffMs);
        }
        if (!(multiplier >= 1 && multiplier <= MAX_MULTIPLIER)) {
            throw new IllegalArgumentException("multiplier must be in 1.." + (int) MAX_MULTIPLIER + ": " + multiplier);
        }
        if (maxBackoffMs < backoffMs || maxBackoffMs > MAX_BACKOFF_MS) {
            throw new IllegalArgumentException("maxBackoffMs must be in backoffMs.." + MAX_BACKOFF_MS + ": "
                    + maxBackoffMs);
        }
        Objects.requireNonNull(jitter, "jitter");
        delaysMs = List.copyOf(delaysMs);
        if (delaysMs.size() > MAX_ATTEMPTS - 1) {
            throw new IllegalArgumentException("at most " + (MAX_ATTEMPTS - 1) + " delays: " + delaysMs.size());
        }
        for (long delay : delaysMs) {
            if (delay < 0 || delay > MAX_BACKOFF_MS) {
                throw new IllegalArgumentException("each delay must be in 0.." + MAX_BACKOFF_MS + ": " + delay);
            }
        }
        if (!delaysMs.isEmpty() && (backoffMs != 0 || multiplier != 1 || maxBackoffMs != MAX_BACKOFF_MS)) {
            throw new IllegalArgumentException("a list of delays takes no backoffMs, multiplier or maxBackoffMs");
        }
    }

    /** A fixed wait between attempts, no jitter. */
    public RetryPolicy(int maxAttempts, long backoffMs) {
        this(maxAttempts, backoffMs, 1, MAX_BACKOFF_MS, Jitter.NONE, List.of());
    }

    /** A curve: {@code backoffMs}, then times {@code multiplier} after each failed attempt, at most {@code maxBackoffMs}. */
    public static RetryPolicy exponential(int maxAttempts, long backoffMs, double multiplier, long maxBackoffMs,
            Jitter jitter) {
        return new RetryPolicy(maxAttempts, backoffMs, multiplier, maxBackoffMs, jitter, List.of());
    }

    /** Explicit waits after the first, second, ... failed attempt; the last repeats. */
    public static RetryPolicy delays(int maxAttempts, List<Long> delaysMs, Jitter jitter) {
        if (delaysMs.isEmpty()) {
            throw new IllegalArgumentException("a list of delays needs at least one");
        }
        return new RetryPolicy(maxAttempts, 0, 1, MAX_BACKOFF_MS, jitter, delaysMs);
    }

    /** True if an instance that has made {@code attemptsMade} attempts may be tried again. */
    public boolean allowsAnotherAttempt(int attemptsMade) {
        return attemptsMade < maxAttempts;
    }

    /** Whether the waits come from {@link #delaysMs()} rather than the curve. */
    public boolean hasDelayList() {
        return !delaysMs.isEmpty();
    }

    /**
     * The wait, in milliseconds, between the end of failed attempt number {@code attemptsMade} (1 for the first) of
     * instance {@code instanceId} and the next attempt; see the class comment. The same arguments always give the
     * same wait.
     */
    public long delayAfterAttempt(long instanceId, int attemptsMade) {
        if (attemptsMade < 1) {
            throw new IllegalArgumentException("attemptsMade must be at least 1: " + attemptsMade);
        }
        long wait = hasDelayList() ? delaysMs.get(Math.min(attemptsMade, delaysMs.size()) - 1) : curve(attemptsMade);
        return switch (jitter) {
            case NONE -> wait;
            case FULL -> uniform(instanceId, attemptsMade, wait);
            case EQUAL -> wait / 2 + uniform(instanceId, attemptsMade, wait - wait / 2);
        };
    }

    private long curve(int attemptsMade) {
        // Exact for the integral part while it fits; pow overflows to infinity, which the cap absorbs.
        double wait = backoffMs * Math.pow(multiplier, attemptsMade - 1);
        return wait >= maxBackoffMs ? maxBackoffMs : (long) wait;
    }

    /** A value in {@code [0, bound]} from a hash of the instance and the attempt. */
    private static long uniform(long instanceId, int attemptsMade, long bound) {
        return StableHash.uniform(instanceId * 0x9E3779B97F4A7C15L + attemptsMade, bound);
    }
}
