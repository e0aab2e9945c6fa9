package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * A pool that jobs share: calls in flight of all its jobs together stay at or below {@code maxConcurrent}, and calls
 * start no faster than its {@code rate}.
 *
 * <p>Immutable.
 *
 * @param name          its name
 * @param maxConcurrent calls in flight at once, at most; 0 for no limit
 * @param rate          how fast calls may start, or null for no rate
 * @param createdAt     when it was created
 * @param namespace     the namespace it belongs to: jobs of that namespace share it by its name
 */
public record Pool(String name, int maxConcurrent, PoolRate rate, Instant createdAt, String namespace) {
}
