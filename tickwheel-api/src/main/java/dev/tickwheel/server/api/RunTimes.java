package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.server.JobService;
import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.job.Job;
import java.time.Instant;

/**
 * The checks a run body and a reschedule body share ({@code delayMs} or {@code at}, {@code params}), each refusal a
 * 400 naming the field under a prefix ({@code runs[777].delayMs} in a batch), before the engine is called.
 *
 * <p>Stateless; thread-safe.
 */
final class RunTimes {

    private RunTimes() {
    }

    /**
     * A run of the given parts, checked.
     *
     * @param prefix the fields' prefix: {@code ""} for a single body, {@code "runs[i]."} for an item of a batch
     * @throws ApiException 400 naming the field
     */
    static RunSpec spec(String key, Long delayMs, Instant at, JsonNode paramsNode, Integer priority, String prefix) {
        if (delayMs != null && (delayMs < 0 || delayMs > JobService.MAX_RUN_DELAY_MS)) {
            throw ApiException.invalidField(prefix + "delayMs", delayMs, "must be in 0.."
                    + JobService.MAX_RUN_DELAY_MS);
        }
        if (delayMs != null && at != null) {
            throw ApiException.badField("invalid_field", prefix + "at", "give '" + prefix + "delayMs' or '" + prefix
                    + "at', not both");
        }
        if (at != null && at.isAfter(Instant.now().plusMillis(JobService.MAX_RUN_DELAY_MS))) {
            // The engine checks against its own clock too; this one names the field (and the item of a batch).
            throw ApiException.invalidField(prefix + "at", at, "must be at most " + JobService.MAX_RUN_DELAY_MS
                    + " ms (366 days) ahead");
        }
        String params = JobRequestParser.paramsText(paramsNode);
        if (params != null && params.length() > Job.MAX_PARAMS_LENGTH) {
            throw ApiException.invalidField(prefix + "params", params.length() + " characters", "must be at most "
                    + Job.MAX_PARAMS_LENGTH + " characters of JSON");
        }
        return new RunSpec(key, delayMs, at, params, JobRequestParser.priority(priority, prefix + "priority"));
    }
}
