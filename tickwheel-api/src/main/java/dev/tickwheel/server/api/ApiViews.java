package dev.tickwheel.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.api.dto.AttemptResponse;
import dev.tickwheel.server.api.dto.InstanceResponse;
import dev.tickwheel.server.api.dto.JobResponse;
import dev.tickwheel.server.api.dto.RetryBody;
import dev.tickwheel.server.api.dto.RunResponse;
import dev.tickwheel.server.api.dto.ScheduleBody;
import dev.tickwheel.server.api.dto.TargetBody;
import dev.tickwheel.server.instance.Attempt;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.TargetType;
import java.util.List;

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

    JobResponse job(Job job, String namespace) {
        var s = job.schedule();
        TargetBody target = job.target().type() == TargetType.WEBHOOK
                ? new TargetBody("WEBHOOK", job.target().value(), null)
                : new TargetBody("HANDLER", null, job.target().value());
        return new JobResponse(Long.toString(job.id()), job.name(),
                new ScheduleBody(s.type().name(), s.expression(), s.zoneId(), s.periodMs(), s.delayMs(), s.at(),
                        s.jitterMs(), s.spread(), s.startAt(), s.endAt(), s.maxRuns()),
                target, params(job.params()), job.enabled(), job.misfirePolicy().name(),
                retry(job.retryPolicy()),
                job.delivery().guarantee().name(),
                job.delivery().timeoutMs() == 0 ? null : job.delivery().timeoutMs(),
                job.delivery().maxConcurrent() == 0 ? null : job.delivery().maxConcurrent(),
                job.delivery().limitsConcurrency() || job.delivery().pool() != null
                        ? job.delivery().overLimit().name() : null,
                job.operations().retentionDays(), job.operations().alertUrl(), job.operations().signed(),
                job.nextTriggerTime(), job.createdAt(), job.updatedAt(), Namespaces.localName(s.calendar()),
                job.delivery().priority(), Namespaces.localName(job.delivery().pool()),
                job.delivery().completion().mode().name(),
                job.delivery().completion().byCallback() ? job.delivery().completion().callbackTimeoutMs() : null,
                namespace);
    }

    /**
     * What an update changed: each top-level field whose value differs, {@code {"field": {"from": ..., "to": ...}}},
     * leaving out {@code updatedAt} (always changes).
     */
    java.util.Map<String, java.util.Map<String, com.fasterxml.jackson.databind.JsonNode>> changes(Object before,
                                                                                                 Object after) {
        com.fasterxml.jackson.databind.JsonNode old = json.valueToTree(before);
        com.fasterxml.jackson.databind.JsonNode now = json.valueToTree(after);
        java.util.Map<String, java.util.Map<String, com.fasterxml.jackson.databind.JsonNode>> changed =
                new java.util.TreeMap<>();
        java.util.Set<String> fields = new java.util.TreeSet<>();
        old.fieldNames().forEachRemaining(fields::add);
        now.fieldNames().forEachRemaining(fields::add);
        for (String field : fields) {
            if (field.equals("updatedAt")) {
                continue;
            }
            com.fasterxml.jackson.databind.JsonNode from = old.path(field);
            com.fasterxml.jackson.databind.JsonNode to = now.path(field);
            if (!from.equals(to)) {
                java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pair = new java.util.LinkedHashMap<>();
                pair.put("from", from.isMissingNode() ? null : from);
                pair.put("to", to.isMissingNode() ? null : to);
                changed.put(field, pair);
            }
        }
        return changed;
    }

    /** A run as written: created, or the existing instance its key names. */
    static RunResponse run(RunWrite written) {
        Instance instance = written.instance();
        return new RunResponse(Long.toString(instance.id()), instance.expectedTriggerTime(), instance.key(),
                written.created(), instance.status().name());
    }

    /** The policy in the form it was given: a list of delays, or a curve. */
    static RetryBody retry(RetryPolicy policy) {
        String jitter = policy.jitter().name();
        if (policy.hasDelayList()) {
            return new RetryBody(policy.maxAttempts(), null, null, null, jitter, policy.delaysMs());
        }
        return new RetryBody(policy.maxAttempts(), policy.backoffMs(), policy.multiplier(), policy.maxBackoffMs(),
                jitter, null);
    }

    /** An instance in a page: no attempts. */
    InstanceResponse instance(Instance instance, String jobName) {
        return instance(instance, jobName, null);
    }

    /** One instance with its attempts. */
    InstanceResponse instance(InstanceHistory history, String jobName) {
        return instance(history.instance(), jobName, history.attempts().stream().map(ApiViews::attempt).toList());
    }

    private InstanceResponse instance(Instance instance, String jobName, List<AttemptResponse> attempts) {
        return new InstanceResponse(Long.toString(instance.id()), Long.toString(instance.jobId()), jobName,
                instance.key(), instance.status().name(), instance.scheduledTriggerTime(), instance.expectedTriggerTime(),
                instance.actualTriggerTime(), instance.latenessMs(), instance.attempt(), instance.error(),
                params(instance.params()), instance.createdAt(), instance.updatedAt(), instance.shard(),
                instance.claimNode() < 0 ? null : instance.claimNode(),
                instance.claimNode() < 0 ? null : instance.claimEpoch(), attempts, instance.priority(),
                instance.rerunOf() == null ? null : Long.toString(instance.rerunOf()), params(instance.output()),
                instance.callbackDeadline(),
                instance.workflow() == null ? null : Long.toString(instance.workflow().runId()),
                instance.workflow() == null ? null : instance.workflow().node());
    }

    private static AttemptResponse attempt(Attempt attempt) {
        boolean known = attempt.claimNode() >= 0;
        return new AttemptResponse(attempt.attempt(), attempt.outcome().name(), attempt.startedAt(),
                attempt.endedAt(), attempt.error(), known ? attempt.claimNode() : null,
                known ? attempt.claimEpoch() : null, attempt.latenessMs());
    }

    /** Stored params are JSON text; anything else (written by an embedding application) is shown as a string. */
    /** Stored JSON text as a tree (params, an output); text that is not JSON (an old run's params) as a string. */
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
