package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import java.time.Instant;

/**
 * Told what an operator may want to be alerted of (see {@code dev.tickwheel.server.dispatch.alert.Alerter}): instances
 * that ended without success, and missed triggers that a misfire policy dropped. Each is told once, by the member that
 * wrote it to the store (the owner of the job's shard), after the write.
 *
 * <p>Methods are called on the engine's own threads (the outcome thread, the loader thread): they must be quick, must
 * not block and must not throw.
 *
 * <p>Implementations are thread-safe.
 */
public interface FailureListener {

    FailureListener NONE = new FailureListener() {
    };

    /**
     * An instance of {@code job} ended: {@link InstanceStatus#FAILED} (its last attempt failed, {@code error} says
     * why) or {@link InstanceStatus#INTERRUPTED} (an AT_MOST_ONCE call cut by a stopped server).
     *
     * @param instance the instance as its last attempt was claimed (its attempt number and trigger time)
     */
    default void instanceEnded(Job job, Instance instance, InstanceStatus status, String error) {
    }

    /**
     * {@code job}'s misfire policy ({@link Job#misfirePolicy()}) dropped {@code count} missed triggers, the earliest
     * due at {@code firstMissed}: the loader created no instance for them, or a shard's recovery cancelled theirs.
     */
    default void misfiresDropped(Job job, int count, Instant firstMissed) {
    }
}
