package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A job as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id              the job ID as a decimal string (see the package javadoc)
 * @param nextTriggerTime the next trigger a loader has not yet turned into an instance, or null
 * @param calendar        the calendar whose excluded days the schedule skips, or null
 * @param timeoutMs       the job's call deadline, or null for the server's
 * @param maxConcurrent   the job's concurrency limit, or null for none
 * @param retentionDays   days its finished instances are kept, or null for the server's retention-days
 * @param alertUrl        where its failure alerts go, or null for the server's alert-url
 * @param signed          whether its webhook calls are signed (the secret itself is never shown)
 * @param priority        0..9, higher first when call slots are short
 * @param pool            the pool whose limits the job shares, or null
 * @param completion      IMMEDIATE or CALLBACK
 * @param callbackTimeoutMs with CALLBACK, the callback time-out; null otherwise
 * @param namespace       the namespace the job belongs to (it never changes)
 */
public record JobResponse(String id, String name, ScheduleBody schedule, TargetBody target, JsonNode params,
                          boolean enabled, String misfirePolicy, RetryBody retry, String delivery, Long timeoutMs,
                          Integer maxConcurrent, String overLimit, Integer retentionDays, String alertUrl,
                          boolean signed, Instant nextTriggerTime,
                          Instant createdAt, Instant updatedAt, String calendar, int priority, String pool,
                          String completion, Long callbackTimeoutMs, String namespace) {
}
