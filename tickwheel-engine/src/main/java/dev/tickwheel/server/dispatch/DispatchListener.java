package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.TargetType;
import java.time.Duration;
import java.time.Instant;

/**
 * Told about each dispatch outcome: the metrics, and the failure alerts
 * ({@code dev.tickwheel.server.dispatch.alert.Alerter}). Each event is told once, by the member that wrote it to the
 * store (the owner of the instance's shard), after the write. Methods are called on the engine's own threads (the outcome
 * thread, the loader thread): they must be quick, must not block and must not throw.
 *
 * <p>Implementations are thread-safe.
 */
public interface DispatchListener {

    DispatchListener NONE = new DispatchListener() {
    };

    /** Tells {@code first}, then {@code second}, every event. */
    static DispatchListener both(DispatchListener first, DispatchListener second) {
        return new DispatchListener() {
            @Override
            public void fired(Duration lateness) {
                first.fired(lateness);
                second.fired(lateness);
            }

            @Override
            public void misfiresDropped(Job job, int count, Instant firstMissed) {
                first.misfiresDropped(job, count, firstMissed);
                second.misfiresDropped(job, count, firstMissed);
            }

            @Override
            public void triggersSkippedByCalendar(Job job, int count) {
                first.triggersSkippedByCalendar(job, count);
                second.triggersSkippedByCalendar(job, count);
            }

            @Override
            public void claimLost() {
                first.claimLost();
                second.claimLost();
            }

            @Override
            public void skipped() {
                first.skipped();
                second.skipped();
            }

            @Override
            public void callEnded(long jobId, boolean ok, Duration duration) {
                first.callEnded(jobId, ok, duration);
                second.callEnded(jobId, ok, duration);
            }

            @Override
            public void succeeded(TargetType type) {
                first.succeeded(type);
                second.succeeded(type);
            }

            @Override
            public void failed(TargetType type) {
                first.failed(type);
                second.failed(type);
            }

            @Override
            public void retried(TargetType type) {
                first.retried(type);
                second.retried(type);
            }

            @Override
            public void instanceEnded(Job job, Instance instance, InstanceStatus status, String error) {
                first.instanceEnded(job, instance, status, error);
                second.instanceEnded(job, instance, status, error);
            }

            @Override
            public void fenced(String what) {
                first.fenced(what);
                second.fenced(what);
            }
            @Override
            public void callbackAwaited() {
                first.callbackAwaited();
                second.callbackAwaited();
            }
            @Override
            public void callbackSettled(String outcome) {
                first.callbackSettled(outcome);
                second.callbackSettled(outcome);
            }
        };
    }

    /** The instance was fired: {@code lateness} is actual minus expected trigger time. */
    default void fired(Duration lateness) {
    }

    /**
     * {@code job}'s misfire policy ({@link Job#misfirePolicy()}) dropped {@code count} missed triggers, the earliest
     * due at {@code firstMissed}: the loader created no instance for them, or a shard's recovery cancelled theirs.
     * They never fire, so they never reach {@link #fired}: a downtime shows here, not as lateness.
     */
    default void misfiresDropped(Job job, int count, Instant firstMissed) {
    }

    /**
     * {@code count} trigger times of {@code job} fell on days its calendar excludes: the loader created no instance
     * for them. Not misfires: the calendar says they are not part of the schedule.
     */
    default void triggersSkippedByCalendar(Job job, int count) {
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
     * An instance of {@code job} ended: {@link InstanceStatus#FAILED} (its last attempt failed, {@code error} says
     * why) or {@link InstanceStatus#INTERRUPTED} (an AT_MOST_ONCE call cut by a stopped server).
     *
     * @param instance the instance as its last attempt was claimed (its attempt number and trigger time)
     */
    default void instanceEnded(Job job, Instance instance, InstanceStatus status, String error) {
    }

    /**
     * This member let go of an instance because it does not hold the instance's shard (any more): {@code what} is
     * {@code "fire"} (a timer fired for a shard it does not hold; the owner arms its own), {@code "claim"} (the
     * store's fence refused the claim) or {@code "call"} (claimed, but the lease lapsed before the call started).
     */
    default void fenced(String what) {
    }

    /** A target accepted a call of a job completing by callback: the instance awaits its report. */
    default void callbackAwaited() {
    }

    /**
     * A callback report, or a deadline, settled or extended an attempt: {@code outcome} is {@code SUCCEEDED},
     * {@code FAILED}, {@code RUNNING} (a heartbeat) or {@code TIMED_OUT}. Told by the member that wrote it.
     */
    default void callbackSettled(String outcome) {
    }
}
