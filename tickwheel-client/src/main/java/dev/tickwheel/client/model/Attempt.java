package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * One attempt of an instance.
 *
 * <p>Immutable.
 *
 * @param attempt    the attempt number, from 1 (as in the Idempotency-Key {@code <instanceId>-<attempt>})
 * @param outcome    how it ended, or DISPATCHING while in flight
 * @param startedAt  when it was claimed, or null if unknown
 * @param endedAt    when its outcome was written, or null while in flight
 * @param error      its error, or null
 * @param node       the node id of the member that made it, or null
 * @param epoch      the shard lease epoch it was claimed under, or null
 * @param latenessMs how late it started, or null
 */
public record Attempt(int attempt, AttemptOutcome outcome, Instant startedAt, Instant endedAt, String error,
                      Integer node, Long epoch, Long latenessMs) {
}
