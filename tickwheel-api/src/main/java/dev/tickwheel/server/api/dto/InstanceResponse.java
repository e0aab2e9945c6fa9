package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * An instance as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id                   instance ID as a decimal string
 * @param jobId                job ID as a decimal string
 * @param jobName              the job's name, or null if the job was deleted
 * @param key                  the caller's key of an on-demand run, or null
 * @param status               WAITING, DISPATCHING, SUCCEEDED, FAILED, CANCELLED or INTERRUPTED
 * @param scheduledTriggerTime the schedule slot it fills, or null for an on-demand run
 * @param expectedTriggerTime  when the current or next attempt is due
 * @param actualTriggerTime    when the last attempt was claimed, or null
 * @param latenessMs           how late the current or last attempt started (actual - expected trigger time), or null
 *                             while no attempt of the row's is under way or done (WAITING, CANCELLED)
 * @param attempt              attempts claimed so far
 * @param error                error of the last failed attempt, or null
 * @param params               the instance's parameters, or null
 * @param createdAt            when it was created
 * @param updatedAt            when it last changed
 * @param shard                its shard: its own, or its job's if the job keeps one owner
 * @param claimNode            the node id of the member that made the last claim, or null if never claimed
 * @param claimEpoch           the shard lease epoch of that claim, or null if never claimed
 * @param attempts             its attempts, oldest first: only in the answer about one instance (absent in pages)
 * @param priority             its own priority (a run's), or absent: its job's
 * @param rerunOf              the instance this one reruns, or absent
 * @param output               the JSON its target answered its successful attempt with, or absent
 * @param callbackDeadline     while its target works on an accepted call of a job completing by callback: when the
 *                             report is due at the latest; absent otherwise
 * @param workflowRunId        the workflow run it is a step of, or absent
 * @param workflowNode         the node of that run, or absent
 */
public record InstanceResponse(String id, String jobId, String jobName, String key, String status,
                               Instant scheduledTriggerTime, Instant expectedTriggerTime, Instant actualTriggerTime, Long latenessMs, int attempt,
                               String error, JsonNode params, Instant createdAt, Instant updatedAt, int shard,
                               Integer claimNode, Long claimEpoch,
                               @JsonInclude(JsonInclude.Include.NON_NULL) List<AttemptResponse> attempts,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Integer priority,
                               @JsonInclude(JsonInclude.Include.NON_NULL) String rerunOf,
                               @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode output,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Instant callbackDeadline,
                               @JsonInclude(JsonInclude.Include.NON_NULL) String workflowRunId,
                               @JsonInclude(JsonInclude.Include.NON_NULL) String workflowNode) {
}
