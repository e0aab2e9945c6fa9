package dev.tickwheel.server.cluster;

/**
 * A prompt from the member that changed something to the member that owns it, so that the owner acts at once instead
 * of at its next scan. Prompts are hints: losing one delays the owner until its sweep, never loses an instance.
 *
 * <p>Immutable.
 */
public sealed interface ClusterEvent {

    /**
     * An instance of {@code shard} was stored; the shard's owner should arm it for {@code triggerAtMs}, with its own
     * {@code priority} (null: its job's).
     */
    record Arm(long instanceId, long jobId, int shard, long triggerAtMs, Integer priority) implements ClusterEvent {
    }

    /**
     * A waiting instance was moved to another due time in the store; its owner should replace its timer with one for
     * {@code triggerAtMs} (a timer left for the old time can no longer claim it), with its own {@code priority} (null:
     * its job's).
     */
    record Rescheduled(long instanceId, long jobId, int shard, long triggerAtMs, Integer priority)
            implements ClusterEvent {
    }

    /** An instance was cancelled in the store; its owner should drop its timer. */
    record Cancelled(long instanceId, long jobId) implements ClusterEvent {
    }

    /**
     * An instance that awaited a callback was settled (reported, or past its deadline) by another member: its owner
     * frees the job slot it kept for it.
     */
    record CallbackSettled(long instanceId) implements ClusterEvent {
    }

    /** A job was created, changed, enabled, disabled or deleted: forget cached copies, and its owner loads it. */
    record JobChanged(long jobId) implements ClusterEvent {
    }

    /**
     * A job changed so that it needs one owner, and its waiting instances were moved to its shard: as
     * {@link JobChanged}, and the owner of the job's shard arms them.
     */
    record Gathered(long jobId) implements ClusterEvent {
    }

    /**
     * Prompts may have been missed (the bus's connection was lost and is back): the owner should sweep its shards.
     * Raised locally by the bus, never sent.
     */
    record Resync() implements ClusterEvent {
    }
}
