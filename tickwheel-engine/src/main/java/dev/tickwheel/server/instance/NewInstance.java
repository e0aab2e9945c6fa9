package dev.tickwheel.server.instance;

import dev.tickwheel.server.job.DeliveryPolicy;
import java.time.Instant;
import java.util.Objects;

/**
 * An instance about to be created: which job, when it is due, and its parameters.
 *
 * <p>Immutable.
 *
 * @param id                  the instance id, positive; assigned by the caller (Snowflake-style), unique
 * @param jobId               the job this is an instance of
 * @param expectedTriggerTime when the instance is due
 * @param params              parameters for this instance (JSON text), or null
 * @param key                 the caller's key of an on-demand run (see {@link RunKeys}), or null
 * @param scheduledTriggerTime the schedule slot a loader's instance fills when it is not its due time (a jittered
 *                             schedule's trigger time), or null: the slot is the due time
 * @param priority            its own priority (an on-demand run's, 0..9), or null for its job's
 * @param rerunOf             the finished instance this one reruns, or null
 * @param workflow            the workflow run and node it is a step of, or null
 */
public record NewInstance(long id, long jobId, Instant expectedTriggerTime, String params, String key,
                          Instant scheduledTriggerTime, Integer priority, Long rerunOf, WorkflowStep workflow) {

    /** An instance that is no step of a workflow. */
    public NewInstance(long id, long jobId, Instant expectedTriggerTime, String params, String key,
                       Instant scheduledTriggerTime, Integer priority, Long rerunOf) {
        this(id, jobId, expectedTriggerTime, params, key, scheduledTriggerTime, priority, rerunOf, null);
    }

    /** An instance without a caller's key. */
    public NewInstance(long id, long jobId, Instant expectedTriggerTime, String params) {
        this(id, jobId, expectedTriggerTime, params, null, null, null, null);
    }

    /** A loader's instance of trigger time {@code slot}, due at {@code due} (not before the slot). */
    public static NewInstance scheduled(long id, long jobId, Instant slot, Instant due) {
        return new NewInstance(id, jobId, due, null, null, due.equals(slot) ? null : slot, null, null);
    }

    /** The schedule slot this instance fills if it is a loader's: its trigger time. */
    public Instant slot() {
        return scheduledTriggerTime != null ? scheduledTriggerTime : expectedTriggerTime;
    }

    public NewInstance {
        if (id <= 0) {
            throw new IllegalArgumentException("id must be positive: " + id);
        }
        if (jobId <= 0) {
            throw new IllegalArgumentException("jobId must be positive: " + jobId);
        }
        Objects.requireNonNull(expectedTriggerTime, "expectedTriggerTime");
        if (params != null && params.length() > dev.tickwheel.server.job.Job.MAX_PARAMS_LENGTH) {
            throw new IllegalArgumentException("params must be at most "
                    + dev.tickwheel.server.job.Job.MAX_PARAMS_LENGTH + " characters: " + params.length());
        }
        if (key != null) {
            RunKeys.check(key);
        }
        if (priority != null) {
            DeliveryPolicy.checkPriority("priority", priority);
        }
        if (scheduledTriggerTime != null && expectedTriggerTime.isBefore(scheduledTriggerTime)) {
            throw new IllegalArgumentException("an instance is never due before its slot: " + expectedTriggerTime
                    + " is before " + scheduledTriggerTime);
        }
    }
}
