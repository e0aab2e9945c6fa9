package dev.tickwheel.server.api.dto;

/**
 * A pool to create or replace: {@code {"name": "partner-api", "maxConcurrent": 4, "rate": {"permits": 50,
 * "perMs": 1000}}}; at least one of the two limits.
 *
 * <p>Immutable.
 *
 * @param name          1..100 letters, digits, '.', '_' or '-'
 * @param maxConcurrent calls in flight at once across the pool's jobs, 0..100 000 (absent or 0: no limit)
 * @param rate          how fast calls may start (absent: no rate)
 * @param namespace     the namespace to create it in: a token of every namespace may name one (default
 *                      {@code default}); for a namespace's token, absent or its own
 */
public record PoolRequest(String name, Integer maxConcurrent, RateBody rate, String namespace) {
}
