package dev.tickwheel.server.job;

import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.pool.InstancePool;
import java.time.Duration;
import java.util.Objects;

/**
 * How a job's instances are delivered: what a crash during a call means, how long a call may take, how many calls
 * of the job may be in flight at once, which instances go first when call slots are short, and the pool whose limits
 * the job shares with others.
 *
 * <p>Immutable.
 *
 * @param guarantee     what happens to a call that a server stop cut short (see {@link Guarantee})
 * @param timeoutMs     the whole-call deadline of one attempt (connect, request, response headers and body), in
 *                      milliseconds; 0 means the server's default
 * @param maxConcurrent instances of this job in flight at once, at most; 0 means no per-job limit
 * @param overLimit     what an instance that fires while the job is at {@code maxConcurrent}, or its pool at a limit,
 *                      does
 * @param priority      {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}, higher first: the admission order of its
 *                      instances when call slots are short (an on-demand run may set its own)
 * @param pool          the name of the {@link InstancePool} whose limits the job shares, or null for none: a local
 *                      name in {@link JobService#create(dev.tickwheel.server.JobSpec, String)}'s spec, the pool's
 *                      {@linkplain Namespaces#qualified qualified name} in a stored job
 * @param completion    when an attempt is over: at the call's answer, or at the target's later report
 */
public record DeliveryPolicy(Guarantee guarantee, long timeoutMs, int maxConcurrent, OverLimit overLimit,
                             int priority, String pool, Completion completion) {

    /** Longest whole-call deadline a job may ask for: one hour. */
    public static final long MAX_TIMEOUT_MS = 3_600_000L;
    /** Largest per-job concurrency limit. */
    public static final int MAX_CONCURRENT = 100_000;
    /** The lowest priority. */
    public static final int MIN_PRIORITY = 0;
    /** The highest priority. */
    public static final int MAX_PRIORITY = 9;
    /** The priority of a job that sets none. */
    public static final int DEFAULT_PRIORITY = 5;

    /** At-least-once, the server's deadline, no per-job limit, the default priority, no pool. */
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
        /**
         * Waits for one of the job's (or its pool's) calls to end, or for the pool's rate to allow it; it stays
         * WAITING (and cancellable) meanwhile. The default.
         */
        WAIT,
        /** Is not run: it ends CANCELLED with the reason. */
        SKIP
    }

    public DeliveryPolicy {
        Objects.requireNonNull(guarantee, "guarantee");
        Objects.requireNonNull(overLimit, "overLimit");
        Objects.requireNonNull(completion, "completion");
        if (timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) {
            throw new IllegalArgumentException("timeoutMs must be in 0.." + MAX_TIMEOUT_MS + " (0: the server's"
                    + " default): " + timeoutMs);
        }
        if (maxConcurrent < 0 || maxConcurrent > MAX_CONCURRENT) {
            throw new IllegalArgumentException("maxConcurrent must be in 0.." + MAX_CONCURRENT + " (0: no limit): "
                    + maxConcurrent);
        }
        checkPriority("priority", priority);
        if (pool != null && !Namespaces.isQualified(pool)) {
            throw new IllegalArgumentException("pool must be the name of a pool: '" + pool + "'");
        }
    }

    /** The default priority, no pool, immediate completion. */
    public DeliveryPolicy(Guarantee guarantee, long timeoutMs, int maxConcurrent, OverLimit overLimit) {
        this(guarantee, timeoutMs, maxConcurrent, overLimit, DEFAULT_PRIORITY, null, Completion.IMMEDIATE);
    }

    /** This policy with the pool of name {@code newPool} (null: none). */
    public DeliveryPolicy withPool(String newPool) {
        return new DeliveryPolicy(guarantee, timeoutMs, maxConcurrent, overLimit, priority, newPool, completion);
    }

    /**
     * Checks a priority, the job's or a run's.
     *
     * @throws IllegalArgumentException naming {@code field} if it is outside {@value #MIN_PRIORITY}..{@value
     *                                  #MAX_PRIORITY}
     */
    public static void checkPriority(String field, int priority) {
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException(field + " must be in " + MIN_PRIORITY + ".." + MAX_PRIORITY
                    + " (higher first): " + priority);
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
