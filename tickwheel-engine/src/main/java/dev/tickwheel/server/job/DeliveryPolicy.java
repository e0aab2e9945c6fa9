package dev.tickwheel.server.job;

import java.time.Duration;
import java.util.Objects;

/**
 * How a job's instances are delivered: what a crash during a call means, how long a call may take, and how many
 * calls of the job may be in flight at once.
 *
 * <p>Immutable.
 *
 * @param guarantee     what happens to a call that a server stop cut short (see {@link Guarantee})
 * @param timeoutMs     the whole-call deadline of one attempt (connect, request, response headers and body), in
 *                      milliseconds; 0 means the server's default
 * @param maxConcurrent instances of this job in flight at once, at most; 0 means no per-job limit
 * @param overLimit     what an instance that fires while the job is at {@code maxConcurrent} does
 */
public record DeliveryPolicy(Guarantee guarantee, long timeoutMs, int maxConcurrent, OverLimit overLimit) {

    /** Longest whole-call deadline a job may ask for: one hour. */
    public static final long MAX_TIMEOUT_MS = 3_600_000L;
    /** Largest per-job concurrency limit. */
    public static final int MAX_CONCURRENT = 100_000;

    /** At-least-once, the server's deadline, no per-job limit. */
    public static final DeliveryPolicy DEFAULT = new DeliveryPolicy(Guarantee.AT_LEAST_ONCE, 0, 0, OverLimit.WAIT);

    /** What a call cut short by a server stop (crash, kill, power loss) becomes after the restart. */
    public enum Guarantee {
        /**
         * The call is made again, as the same attempt with the same {@code Idempotency-Key}: the target may see it
         * twice and drops the repeat by its key. The default.
         */
        AT_LEAST_ONCE,
        /**
         * The call is not repeated: the instance ends INTERRUPTED, because the target may or may not have run it. An
         * instance whose call had not started is still dispatched.
         */
        AT_MOST_ONCE
    }

    /** What an instance that fires while its job already has {@code maxConcurrent} calls in flight does. */
    public enum OverLimit {
        /** Waits for one of the job's calls to end; it stays WAITING (and cancellable) meanwhile. The default. */
        WAIT,
        /** Is not run: it ends CANCELLED with the reason. */
        SKIP
    }

    public DeliveryPolicy {
        Objects.requireNonNull(guarantee, "guarantee");
        Objects.requireNonNull(overLimit, "overLimit");
        if (timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) {
            throw new IllegalArgumentException("timeoutMs must be in 0.." + MAX_TIMEOUT_MS + " (0: the server's"
                    + " default): " + timeoutMs);
        }
        if (maxConcurrent < 0 || maxConcurrent > MAX_CONCURRENT) {
            throw new IllegalArgumentException("maxConcurrent must be in 0.." + MAX_CONCURRENT + " (0: no limit): "
                    + maxConcurrent);
        }
    }

    /** This job's deadline, or {@code serverDefault} when the job sets none. */
    public Duration timeoutOr(Duration serverDefault) {
        return timeoutMs == 0 ? serverDefault : Duration.ofMillis(timeoutMs);
    }

    /** True when the job limits its calls in flight. */
    public boolean limitsConcurrency() {
        return maxConcurrent > 0;
    }
}
