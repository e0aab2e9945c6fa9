package dev.tickwheel.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A job as the server shows it ({@code GET /api/jobs/{id}}). The signing secret is never shown; {@code signed} says
 * whether there is one.
 *
 * <p>Immutable (the {@code params} tree must not be changed).
 *
 * @param id              the job's ID (a JSON string on the wire)
 * @param name            its name
 * @param schedule        its schedule
 * @param target          where its instances go
 * @param params          the JSON value handed to every instance, or null
 * @param enabled         whether its schedule makes instances
 * @param misfirePolicy   what it does with missed triggers
 * @param retry           how the server retries a failed call
 * @param delivery        at-least-once or at-most-once
 * @param timeoutMs       its call deadline, or null for the server's
 * @param maxConcurrent   its concurrency limit, or null for none
 * @param overLimit       what an instance at the limit does, or null without a limit
 * @param retentionDays   days its finished instances are kept, or null for the server's
 * @param alertUrl        where its failure alerts go, or null for the server's
 * @param signed          whether its webhook calls are signed
 * @param nextTriggerTime the next trigger not yet turned into an instance, or null
 * @param createdAt       when it was created
 * @param updatedAt       when it last changed
 * @param calendar        the calendar whose excluded days get no instance, or null
 * @param priority        0..9, higher first when call slots are short
 * @param pool            the pool whose limits the job shares, or null
 * @param completion      IMMEDIATE, or CALLBACK for a target that reports later
 * @param callbackTimeoutMs with CALLBACK, how long a report may take; null otherwise
 * @param namespace       the namespace it belongs to (it never changes)
 */
public record Job(long id, String name, Schedule schedule, Target target, JsonNode params, boolean enabled,
                  MisfirePolicy misfirePolicy, JobRetry retry, Delivery delivery, Long timeoutMs,
                  Integer maxConcurrent, OverLimit overLimit, Integer retentionDays, String alertUrl, boolean signed,
                  Instant nextTriggerTime, Instant createdAt, Instant updatedAt, String calendar, int priority,
                  String pool, Completion completion, Long callbackTimeoutMs, String namespace) {
}
