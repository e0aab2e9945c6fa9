package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Instant;

/**
 * A job about to be inserted: its definition without the bookkeeping the store adds (timestamps, version).
 *
 * <p>Immutable.
 *
 * @param id              the job id, positive; assigned by the caller (Snowflake-style), unique
 * @param name            a human name, 1..200 characters
 * @param schedule        the raw schedule
 * @param target          where instances are delivered
 * @param params          parameters handed to every instance (JSON text), or null
 * @param enabled         whether loaders create instances for this job
 * @param misfirePolicy   what to do with trigger times already past when seen
 * @param retryPolicy     attempts and backoff
 * @param delivery        delivery guarantee, call deadline and concurrency limit
 * @param operations      retention, alert webhook and signing secret
 * @param nextTriggerTime the first trigger time, or null if none (API jobs, schedules with no trigger left)
 */
public record NewJob(
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
        Instant nextTriggerTime) {

    public NewJob {
        JobFields.check(id, name, schedule, target, misfirePolicy, retryPolicy, delivery, operations, params);
    }

    /** The job as stored at {@code now}: created and updated at {@code now}, version 0. */
    public Job toJob(Instant now) {
        return new Job(id, name, schedule, target, params, enabled, misfirePolicy, retryPolicy, delivery,
                operations, nextTriggerTime, now, now, 0);
    }
}
