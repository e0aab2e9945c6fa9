package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.ScheduleType;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Instant;
import java.util.Objects;

/**
 * A stored job: its definition, the next time a loader should create an instance for it, and bookkeeping.
 *
 * <p>{@code version} serves optimistic updates: an update names the version it read and fails if the stored one
 * moved on. Advancing {@code nextTriggerTime} by a loader is a compare-and-set on that field and the version (a pass
 * planned before a user's edit writes nothing) and does not bump the version, so loader passes never invalidate an
 * edit.
 *
 * <p>Immutable.
 *
 * @param id              the job id, positive
 * @param name            a human name, 1..200 characters
 * @param schedule        the raw schedule
 * @param target          where instances are delivered
 * @param params          parameters handed to every instance (JSON text), or null
 * @param enabled         whether loaders create instances for this job
 * @param misfirePolicy   what to do with trigger times already past when seen
 * @param retryPolicy     attempts and backoff
 * @param delivery        delivery guarantee, call deadline and concurrency limit
 * @param operations      retention, alert webhook and signing secret
 * @param nextTriggerTime the next trigger time a loader has not yet turned into an instance, or null
 * @param scheduledRuns   how many instances loaders have created from the schedule so far (what {@code maxRuns}
 *                        counts; on-demand runs are not counted)
 * @param createdAt       when the job was inserted
 * @param updatedAt       when the job was last inserted or updated
 * @param version         the optimistic-lock version, 0 on insert
 */
public record Job(
        long id,
        String name,
        ScheduleSpec schedule,
        Target target,
        String params,
        boolean enabled,
        MisfirePolicy misfirePolicy,
        RetryPolicy retryPolicy,
        DeliveryPolicy delivery,
        JobOperations operations,
        Instant nextTriggerTime,
        long scheduledRuns,
        Instant createdAt,
        Instant updatedAt,
        long version) {

    /** A job whose schedule has created no instance yet. */
    public Job(long id, String name, ScheduleSpec schedule, Target target, String params, boolean enabled,
            MisfirePolicy misfirePolicy, RetryPolicy retryPolicy, DeliveryPolicy delivery, JobOperations operations,
            Instant nextTriggerTime, Instant createdAt, Instant updatedAt, long version) {
        this(id, name, schedule, target, params, enabled, misfirePolicy, retryPolicy, delivery, operations,
                nextTriggerTime, 0, createdAt, updatedAt, version);
    }

    /** Longest job name: the store's column width. */
    public static final int MAX_NAME_LENGTH = 200;
    /** Longest parameters of a job or an instance (JSON text): 64 KiB, the API's request body limit. */
    public static final int MAX_PARAMS_LENGTH = 65_536;

    public Job {
        JobFields.check(id, name, schedule, target, misfirePolicy, retryPolicy, delivery, operations, params);
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (version < 0) {
            throw new IllegalArgumentException("version must not be negative: " + version);
        }
        if (scheduledRuns < 0) {
            throw new IllegalArgumentException("scheduledRuns must not be negative: " + scheduledRuns);
        }
    }

    /**
     * True if this job's instances are spread over the shards (each instance's shard from its own id), so that every
     * member dispatches a share of them; false if they need one owner and stay on the job's shard: a job with a
     * {@code maxConcurrent} limit (one member holds its slots, which keeps the limit exact) and a fixed-delay job (one
     * instance at a time, each created when the last one ends, by the member that settled it), or on the shard of its
     * pool when it names one (one member holds the pool's slots and rate).
     */
    public boolean spreadsInstances() {
        return spreadsInstances(delivery.maxConcurrent(), schedule.type(), delivery.pool());
    }

    /** {@link #spreadsInstances()} from the settings that decide it, for a store that reads them as columns. */
    public static boolean spreadsInstances(int maxConcurrent, ScheduleType scheduleType, String pool) {
        return maxConcurrent == 0 && scheduleType != ScheduleType.FIXED_DELAY && pool == null;
    }


    /**
     * True if an update from {@code before} to this job moves its waiting instances to one shard: it keeps them on one
     * owner now, and spread them before or kept them on another (its pool changed).
     */
    public boolean gathersInstancesOf(boolean spreadBefore, String poolBefore) {
        return !spreadsInstances() && (spreadBefore || !Objects.equals(poolBefore, delivery.pool()));
    }

    /** A copy with another schedule and next trigger time; the version stays, for an optimistic update. */
    public Job withSchedule(ScheduleSpec newSchedule, Instant newNextTriggerTime) {
        return new Job(id, name, newSchedule, target, params, enabled, misfirePolicy, retryPolicy, delivery,
                operations, newNextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy that is enabled or disabled; the version stays, for an optimistic update. */
    public Job withEnabled(boolean newEnabled) {
        return new Job(id, name, schedule, target, params, newEnabled, misfirePolicy, retryPolicy, delivery,
                operations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy with another name; the version stays, for an optimistic update. */
    public Job withName(String newName) {
        return new Job(id, newName, schedule, target, params, enabled, misfirePolicy, retryPolicy, delivery,
                operations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy with another target; the version stays, for an optimistic update. */
    public Job withTarget(Target newTarget) {
        return new Job(id, name, schedule, newTarget, params, enabled, misfirePolicy, retryPolicy, delivery,
                operations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy with another delivery policy; the version stays, for an optimistic update. */
    public Job withDelivery(DeliveryPolicy newDelivery) {
        return new Job(id, name, schedule, target, params, enabled, misfirePolicy, retryPolicy, newDelivery,
                operations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy with other operations settings; the version stays, for an optimistic update. */
    public Job withOperations(JobOperations newOperations) {
        return new Job(id, name, schedule, target, params, enabled, misfirePolicy, retryPolicy, delivery,
                newOperations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }

    /** A copy with other params, misfire and retry policies; the version stays, for an optimistic update. */
    public Job withPolicies(String newParams, MisfirePolicy newMisfirePolicy, RetryPolicy newRetryPolicy) {
        return new Job(id, name, schedule, target, newParams, enabled, newMisfirePolicy, newRetryPolicy, delivery,
                operations, nextTriggerTime, scheduledRuns, createdAt, updatedAt, version);
    }
}
