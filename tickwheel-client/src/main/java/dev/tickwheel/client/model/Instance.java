package dev.tickwheel.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * An instance as the server shows it ({@code GET /api/instances/{id}}, and the items of a page).
 *
 * <p>Immutable (the {@code params} and {@code output} trees must not be changed).
 *
 * @param id                   the instance's ID
 * @param jobId                its job's ID
 * @param jobName              its job's name, or null once the job is deleted
 * @param key                  the caller's key of an on-demand run, or null
 * @param status               its status
 * @param scheduledTriggerTime the schedule slot it fills, or null for an on-demand run
 * @param expectedTriggerTime  when the current or next attempt is due
 * @param actualTriggerTime    when the last attempt was claimed, or null
 * @param latenessMs           how late the current or last attempt started, or null (WAITING, CANCELLED)
 * @param attempt              attempts claimed so far
 * @param error                the last failed attempt's error, or null
 * @param params               its parameters, or null
 * @param createdAt            when it was created
 * @param updatedAt            when it last changed
 * @param shard                its shard
 * @param claimNode            the node id of the member that made the last claim, or null
 * @param claimEpoch           the shard lease epoch of that claim, or null
 * @param attempts             its attempts, oldest first; only when one instance is read (empty in pages)
 * @param priority             its own priority (a run's), or null for its job's
 * @param rerunOf              the instance this one reruns, or null
 * @param output               the JSON its target answered its successful attempt with, or null
 * @param callbackDeadline     while its target works on an accepted call (completion CALLBACK): when the report is
 *                             due at the latest; null otherwise
 * @param workflowRunId        the workflow run this instance is a step of ({@code client.workflows().getRun}), or null
 * @param workflowNode         the node of that run it runs, or null
 */
public record Instance(long id, long jobId, String jobName, String key, InstanceStatus status,
                       Instant scheduledTriggerTime, Instant expectedTriggerTime, Instant actualTriggerTime,
                       Long latenessMs, int attempt, String error, JsonNode params, Instant createdAt,
                       Instant updatedAt, int shard, Integer claimNode, Long claimEpoch, List<Attempt> attempts,
                       Integer priority, Long rerunOf, JsonNode output, Instant callbackDeadline,
                       Long workflowRunId, String workflowNode) {

    public Instance {
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
    }
}
