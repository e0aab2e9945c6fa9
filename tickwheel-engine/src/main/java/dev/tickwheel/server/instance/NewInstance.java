package dev.tickwheel.server.instance;

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
 */
public record NewInstance(long id, long jobId, Instant expectedTriggerTime, String params, String key) {

    /** An instance without a caller's key. */
    public NewInstance(long id, long jobId, Instant expectedTriggerTime, String params) {
        this(id, jobId, expectedTriggerTime, params, null);
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
    }
}
