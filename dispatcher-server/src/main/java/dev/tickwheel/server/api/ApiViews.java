package dev.tickwheel.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.api.dto.InstanceResponse;
import dev.tickwheel.server.api.dto.JobResponse;
import dev.tickwheel.server.api.dto.RetryBody;
import dev.tickwheel.server.api.dto.ScheduleBody;
import dev.tickwheel.server.api.dto.TargetBody;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.TargetType;

/**
 * Turns domain records into the API's DTOs: IDs become decimal strings, params JSON text becomes a JSON value.
 *
 * <p>Thread-safe (immutable).
 */
final class ApiViews {

    private final ObjectMapper json;

    ApiViews(ObjectMapper json) {
        this.json = json;
    }

    JobResponse job(Job job) {
        var s = job.schedule();
        TargetBody target = job.target().type() == TargetType.WEBHOOK
                ? new TargetBody("WEBHOOK", job.target().value(), null)
                : new TargetBody("HANDLER", null, job.target().value());
        return new JobResponse(Long.toString(job.id()), job.name(),
                new ScheduleBody(s.type().name(), s.expression(), s.zoneId(), s.periodMs(), s.delayMs(), s.at()),
                target, params(job.params()), job.enabled(), job.misfirePolicy().name(),
                new RetryBody(job.retryPolicy().maxAttempts(), job.retryPolicy().backoffMs()),
                job.delivery().guarantee().name(),
                job.delivery().timeoutMs() == 0 ? null : job.delivery().timeoutMs(),
                job.delivery().maxConcurrent() == 0 ? null : job.delivery().maxConcurrent(),
                job.delivery().limitsConcurrency() ? job.delivery().overLimit().name() : null,
                job.operations().retentionDays(), job.operations().alertUrl(), job.operations().signed(),
                job.nextTriggerTime(), job.createdAt(), job.updatedAt());
    }

    InstanceResponse instance(Instance instance) {
        return new InstanceResponse(Long.toString(instance.id()), Long.toString(instance.jobId()),
                instance.status().name(), instance.scheduledTriggerTime(), instance.expectedTriggerTime(),
                instance.actualTriggerTime(), instance.attempt(), instance.error(), params(instance.params()),
                instance.createdAt(), instance.updatedAt(), instance.shard(),
                instance.claimNode() < 0 ? null : instance.claimNode(),
                instance.claimNode() < 0 ? null : instance.claimEpoch());
    }

    /** Stored params are JSON text; anything else (written by an embedding application) is shown as a string. */
    private JsonNode params(String text) {
        if (text == null) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            return json.getNodeFactory().textNode(text);
        }
    }
}
