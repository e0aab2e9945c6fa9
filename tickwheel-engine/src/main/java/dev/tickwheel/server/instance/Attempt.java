package dev.tickwheel.server.instance;

import java.time.Instant;
import java.util.Objects;

/**
 * One attempt of an instance: one claim and what came of it. The attempts that failed and were retried are stored as
 * they were retried; the current or last attempt is the instance row itself ({@link InstanceHistory}).
 *
 * <p>Immutable.
 *
 * @param attempt             the attempt number, from 1 (the {@code <attempt>} of its {@code Idempotency-Key})
 * @param outcome             what came of it
 * @param startedAt           when it was claimed, or null if unknown
 * @param endedAt             when its outcome was written, or null while it is in flight
 * @param expectedTriggerTime when it was due
 * @param error               its error (failure or interruption), or null
 * @param claimNode           the node id of the member that made it, or -1 if unknown
 * @param claimEpoch          the shard lease epoch it was claimed under (meaningful only with a claim node)
 */
public record Attempt(int attempt, Outcome outcome, Instant startedAt, Instant endedAt, Instant expectedTriggerTime,
                      String error, int claimNode, long claimEpoch) {

    /** What came of an attempt. */
    public enum Outcome {
        /** Failed, and the instance was sent back to WAITING for another attempt. */
        RETRIED,
        /** In flight: claimed, its outcome not yet written. */
        DISPATCHING,
        /** The target reported success. */
        SUCCEEDED,
        /** Failed, and no attempts remained. */
        FAILED,
        /** An AT_MOST_ONCE call cut short by a server stop. */
        INTERRUPTED
    }

    public Attempt {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(expectedTriggerTime, "expectedTriggerTime");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1: " + attempt);
        }
    }

    /** How late it started: {@code startedAt - expectedTriggerTime} in milliseconds; null if the start is unknown. */
    public Long latenessMs() {
        return startedAt == null ? null : startedAt.toEpochMilli() - expectedTriggerTime.toEpochMilli();
    }
}
