package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * One attempt of an instance as the API shows it.
 *
 * <p>Immutable.
 *
 * @param attempt    the attempt number, from 1
 * @param outcome    RETRIED (failed, retried later), DISPATCHING (in flight), SUCCEEDED, FAILED or INTERRUPTED
 * @param startedAt  when it was claimed, or null if unknown
 * @param endedAt    when its outcome was written, or null while in flight
 * @param error      its error, or null
 * @param node       the node id of the member that made it, or null if unknown
 * @param epoch      the shard lease epoch it was claimed under, or null if the node is unknown
 * @param latenessMs how late it started (started - due, in ms), or null if the start is unknown
 */
public record AttemptResponse(int attempt, String outcome, Instant startedAt, Instant endedAt, String error,
                              Integer node, Long epoch, Long latenessMs) {
}
