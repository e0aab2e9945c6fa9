package dev.tickwheel.server.instance;

import java.time.Instant;
import java.util.Objects;

/**
 * A stored instance: one run of a job, due at a time, moving through {@link InstanceStatus}.
 *
 * <p>Two trigger times: {@code scheduledTriggerTime} is the slot of the job's schedule this instance fills and never
 * changes; together with the job id it is unique, so a loader that runs twice cannot create a duplicate. It is null
 * for on-demand (API) runs, which are never deduplicated. {@code expectedTriggerTime} is when the next attempt is
 * due: equal to the scheduled time at first, moved later by a retry.
 *
 * <p>Immutable.
 *
 * @param id                   the instance id
 * @param jobId                the job this is an instance of
 * @param status               where the instance is in its life
 * @param scheduledTriggerTime the schedule slot (unique per job), or null for an on-demand run
 * @param expectedTriggerTime  when the current or next attempt is due
 * @param actualTriggerTime    when the last attempt was claimed, or null if never claimed
 * @param attempt              attempts claimed so far (0 before the first claim); the current attempt while
 *                             DISPATCHING, and the attempt number in its {@code Idempotency-Key}
 * @param error                the error of the last failed attempt, or null
 * @param params               parameters for this instance (JSON text), or null
 * @param callStartedAt        when the call of the current attempt was committed to, for AT_MOST_ONCE jobs only
 *                             (null otherwise, and before the call)
 * @param createdAt            when the instance was created
 * @param updatedAt            when the instance last changed
 * @param shard                its shard: its own, or its job's if the job keeps one owner (see
 *                             {@link dev.tickwheel.server.store.Shards#ofInstance})
 * @param claimNode            the node id of the member that made the current or last claim, or -1 if never
 *                             claimed
 * @param claimEpoch           the epoch of the shard lease that claim was made under, or 0 if never claimed
 * @param key                  the caller's key of an on-demand run (unique per job while the instance is kept), or
 *                             null
 * @param priority             its own priority (an on-demand run's, 0..9), or null for its job's
 * @param rerunOf              the instance this one reruns, or null
 * @param output               the JSON its target answered its successful attempt with (at most
 *                             {@link #MAX_OUTPUT_LENGTH} characters), or null
 * @param callbackDeadline     while DISPATCHING after its target accepted the call of a job completing by callback:
 *                             when the target's report is due at the latest (the accepting member's clock); else null
 * @param workflow             the workflow run and node it is a step of, or null
 */
public record Instance(
        long id,
        long jobId,
        InstanceStatus status,
        Instant scheduledTriggerTime,
        Instant expectedTriggerTime,
        Instant actualTriggerTime,
        int attempt,
        String error,
        String params,
        Instant callStartedAt,
        Instant createdAt,
        Instant updatedAt,
        int shard,
        int claimNode,
        long claimEpoch,
        String key,
        Integer priority,
        Long rerunOf,
        String output,
        Instant callbackDeadline,
        WorkflowStep workflow) {

    /** Longest output kept: 8 KiB of JSON text (a webhook's body is read up to as many bytes). */
    public static final int MAX_OUTPUT_LENGTH = 8192;

    public Instance {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(expectedTriggerTime, "expectedTriggerTime");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must not be negative: " + attempt);
        }
    }

    /**
     * How late the current or last attempt started: {@code actualTriggerTime - expectedTriggerTime} in milliseconds,
     * or null when no attempt of the row's is under way or done. So null while WAITING or CANCELLED, even after earlier
     * claims: a retry moves the expected trigger time to the next attempt while the actual trigger time still belongs
     * to the failed one, and their difference would be no lateness at all (negative, by the backoff).
     */
    public Long latenessMs() {
        boolean claimed = status == InstanceStatus.DISPATCHING || status == InstanceStatus.SUCCEEDED
                || status == InstanceStatus.FAILED || status == InstanceStatus.INTERRUPTED;
        return claimed && actualTriggerTime != null
                ? actualTriggerTime.toEpochMilli() - expectedTriggerTime.toEpochMilli() : null;
    }

    /** True for an on-demand (API) run, false for an instance that fills a slot of the job's schedule. */
    public boolean isOnDemand() {
        return scheduledTriggerTime == null;
    }
}
