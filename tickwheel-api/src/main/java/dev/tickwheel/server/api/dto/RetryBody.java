package dev.tickwheel.server.api.dto;

/**
 * Retry policy on the wire.
 *
 * <p>Immutable.
 *
 * @param maxAttempts attempts including the first, 1..100 (default 1: no retry)
 * @param backoffMs   wait before another attempt in milliseconds, 0..86 400 000 (default 0)
 */
public record RetryBody(Integer maxAttempts, Long backoffMs) {
}
