package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.util.List;

/**
 * A job's retry policy on the wire (how the server retries a failed call of an instance; not the client's own
 * retries, which {@link dev.tickwheel.client.RetryPolicy} sets): a curve ({@code backoffMs}, {@code multiplier},
 * {@code maxBackoffMs}) or a list of delays ({@code delaysMs}), either with {@code jitter}. The wait after failed
 * attempt n is {@code min(maxBackoffMs, backoffMs × multiplier^(n-1))}, or {@code delaysMs[n-1]} with the last one
 * repeated, then spread by the jitter.
 *
 * <p>Immutable.
 *
 * @param maxAttempts  attempts including the first, 1..100 (server default 1: no retry); null for the default
 * @param backoffMs    the wait after the first failed attempt in milliseconds, 0..86 400 000 (default 0)
 * @param multiplier   the wait's growth after each further failed attempt, 1..100 (default 1: a fixed wait)
 * @param maxBackoffMs the longest wait of the curve, backoffMs..86 400 000 (default a day)
 * @param jitter       how the wait is spread (default NONE)
 * @param delaysMs     the waits after the first, second, ... failed attempt; instead of the curve
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record JobRetry(Integer maxAttempts, Long backoffMs, Double multiplier, Long maxBackoffMs, RetryJitter jitter,
        List<Long> delaysMs) {

    /** {@code maxAttempts} attempts, {@code backoffMs} apart. */
    public static JobRetry of(int maxAttempts, long backoffMs) {
        return new JobRetry(maxAttempts, backoffMs, null, null, null, null);
    }

    /** {@code maxAttempts} attempts; the wait starts at {@code backoff} and grows by {@code multiplier} up to {@code max}. */
    public static JobRetry exponential(int maxAttempts, Duration backoff, double multiplier, Duration max,
            RetryJitter jitter) {
        return new JobRetry(maxAttempts, backoff.toMillis(), multiplier, max.toMillis(), jitter, null);
    }

    /** {@code maxAttempts} attempts, waiting each of {@code delays} in turn (the last one repeated). */
    public static JobRetry delays(int maxAttempts, List<Duration> delays, RetryJitter jitter) {
        return new JobRetry(maxAttempts, null, null, null, jitter, delays.stream().map(Duration::toMillis).toList());
    }
}
