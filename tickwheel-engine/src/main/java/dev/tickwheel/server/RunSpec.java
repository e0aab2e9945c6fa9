package dev.tickwheel.server;

import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunKeys;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import java.time.Instant;

/**
 * One on-demand run as a caller asks for it: when (after a delay, or at an instant, or now), with which parameters, and
 * under which key.
 *
 * <p>Immutable.
 *
 * @param key     the caller's key, unique per job while the instance is kept (see
 *                {@link dev.tickwheel.server.instance.RunKeys}); null for none (every such run is a new instance)
 * @param delayMs run this long after the call, 0..{@link JobService#MAX_RUN_DELAY_MS}; null if {@code at} says when
 * @param at      run at this instant (one already past runs now); null if {@code delayMs} says when. Neither: now
 * @param params   the instance's parameters (JSON text), or null for the job's
 * @param priority the run's priority (0..9, higher first when call slots are short), or null for the job's
 */
public record RunSpec(String key, Long delayMs, Instant at, String params, Integer priority) {

    /**
     * @throws IllegalArgumentException if the key breaks {@link RunKeys}, both times or a bad delay are given, or the
     *                                  params are too long
     */
    public RunSpec {
        if (key != null) {
            RunKeys.checkCaller(key);
        }
        if (delayMs != null && at != null) {
            throw new IllegalArgumentException("give delayMs or at, not both");
        }
        if (delayMs != null && (delayMs < 0 || delayMs > JobService.MAX_RUN_DELAY_MS)) {
            throw new IllegalArgumentException("delayMs must be in 0.." + JobService.MAX_RUN_DELAY_MS + ": "
                    + delayMs);
        }
        if (params != null && params.length() > Job.MAX_PARAMS_LENGTH) {
            throw new IllegalArgumentException("params must be at most " + Job.MAX_PARAMS_LENGTH + " characters: "
                    + params.length());
        }
        if (priority != null) {
            DeliveryPolicy.checkPriority("priority", priority);
        }
    }

    /** A run of its job's priority. */
    public RunSpec(String key, Long delayMs, Instant at, String params) {
        this(key, delayMs, at, params, null);
    }

    /** A keyless run after {@code delayMs}. */
    public static RunSpec after(long delayMs, String params) {
        return new RunSpec(null, delayMs, null, params);
    }

    /**
     * The instance this run makes, given the time of the call.
     *
     * @throws IllegalArgumentException if {@code at} is more than {@link JobService#MAX_RUN_DELAY_MS} after {@code now}
     */
    NewInstance instance(long id, long jobId, Instant now) {
        return new NewInstance(id, jobId, dueAt(now), params, key, null, priority, null);
    }

    /**
     * When this run is due, given the time of the call.
     *
     * @throws IllegalArgumentException if {@code at} is more than {@link JobService#MAX_RUN_DELAY_MS} after {@code now}
     */
    Instant dueAt(Instant now) {
        if (at != null) {
            if (at.isAfter(now.plusMillis(JobService.MAX_RUN_DELAY_MS))) {
                throw new IllegalArgumentException("at must be at most " + JobService.MAX_RUN_DELAY_MS
                        + " ms (366 days) ahead: " + at);
            }
            return at;
        }
        return now.plusMillis(delayMs == null ? 0 : delayMs);
    }
}
