package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.TargetType;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Duration;

/**
 * Told about each dispatch outcome (metrics). Methods must be quick and must not throw.
 *
 * <p>Implementations are thread-safe.
 */
public interface DispatchListener {

    DispatchListener NONE = new DispatchListener() {
    };

    /** The instance was fired: {@code lateness} is actual minus expected trigger time. */
    default void fired(Duration lateness) {
    }

    /**
     * A job's misfire policy dropped {@code count} missed triggers: the loader created no instance for them, or a
     * shard's recovery cancelled theirs. They never fire, so they never reach {@link #fired}: a downtime shows here,
     * not as lateness.
     */
    default void misfiresDropped(MisfirePolicy policy, int count) {
    }

    /** The claim lost: the instance was cancelled or already claimed. */
    default void claimLost() {
    }

    /** The instance fired while its job was at its concurrency limit, and the job skips such instances. */
    default void skipped() {
    }

    /**
     * A call of job {@code jobId} ended after {@code duration}: {@code ok} if the target accepted it. Told for every
     * attempt, before its outcome is written (a retry or the final failure is told apart by {@link #retried} and
     * {@link #failed}).
     */
    default void callEnded(long jobId, boolean ok, Duration duration) {
    }

    default void succeeded(TargetType type) {
    }

    default void failed(TargetType type) {
    }

    default void retried(TargetType type) {
    }

    /**
     * This member let go of an instance because it does not hold the instance's shard (any more): {@code what} is
     * {@code "fire"} (a timer fired for a shard it does not hold; the owner arms its own), {@code "claim"} (the
     * store's fence refused the claim) or {@code "call"} (claimed, but the lease lapsed before the call started).
     */
    default void fenced(String what) {
    }
}
