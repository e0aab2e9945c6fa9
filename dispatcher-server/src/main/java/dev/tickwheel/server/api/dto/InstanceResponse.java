package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * An instance as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id                   instance ID as a decimal string
 * @param jobId                job ID as a decimal string
 * @param status               WAITING, DISPATCHING, SUCCEEDED, FAILED, CANCELLED or INTERRUPTED
 * @param scheduledTriggerTime the schedule slot it fills, or null for an on-demand run
 * @param expectedTriggerTime  when the current or next attempt is due
 * @param actualTriggerTime    when the last attempt was claimed, or null
 * @param attempt              attempts claimed so far
 * @param error                error of the last failed attempt, or null
 * @param params               the instance's parameters, or null
 * @param createdAt            when it was created
 * @param updatedAt            when it last changed
 * @param shard                the shard of its job
 * @param claimNode            the node id of the member that made the last claim, or null if never claimed
 * @param claimEpoch           the shard lease epoch of that claim, or null if never claimed
 */
public record InstanceResponse(String id, String jobId, String status, Instant scheduledTriggerTime,
                               Instant expectedTriggerTime, Instant actualTriggerTime, int attempt, String error,
                               JsonNode params, Instant createdAt, Instant updatedAt, int shard, Integer claimNode,
                               Long claimEpoch) {
}
