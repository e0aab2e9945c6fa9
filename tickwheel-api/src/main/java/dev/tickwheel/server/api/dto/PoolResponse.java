package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * A stored pool.
 *
 * <p>Immutable.
 *
 * @param name          its name
 * @param maxConcurrent calls in flight at once across the pool's jobs, at most; 0 for no limit
 * @param rate          how fast calls may start; left out when the pool has no rate
 * @param createdAt     when it was created
 * @param namespace     the namespace it belongs to; its jobs are of that namespace
 */
public record PoolResponse(String name, int maxConcurrent, @JsonInclude(JsonInclude.Include.NON_NULL) RateBody rate,
        Instant createdAt, String namespace) {
}
