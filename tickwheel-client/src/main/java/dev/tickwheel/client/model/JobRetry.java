package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A job's retry policy on the wire (how the server retries a failed call of an instance; not the client's own
 * retries, which {@link dev.tickwheel.client.RetryPolicy} sets).
 *
 * <p>Immutable.
 *
 * @param maxAttempts attempts including the first, 1..100 (server default 1: no retry); null for the default
 * @param backoffMs   wait before another attempt in milliseconds, 0..86 400 000 (default 0); null for the default
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record JobRetry(Integer maxAttempts, Long backoffMs) {

    /** {@code maxAttempts} attempts, {@code backoffMs} apart. */
    public static JobRetry of(int maxAttempts, long backoffMs) {
        return new JobRetry(maxAttempts, backoffMs);
    }
}
