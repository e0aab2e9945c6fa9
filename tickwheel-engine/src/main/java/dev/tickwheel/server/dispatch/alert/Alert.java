package dev.tickwheel.server.dispatch.alert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.Objects;

/**
 * One alert: what happened to which job, and its JSON body.
 *
 * <p>The body has every field below, always, in this order ({@code null} where it does not apply), so a receiver can
 * rely on the names; IDs are strings (64-bit values lose precision as JavaScript numbers), times ISO-8601 UTC:
 *
 * <pre>
 * kind                 INSTANCE_FAILED | MISFIRE_SKIPPED | FAILURE_THRESHOLD
 * jobId, jobName       the job
 * instanceId           the failed instance (INSTANCE_FAILED), else null
 * status               "FAILED" (INSTANCE_FAILED), else null
 * attempt              the attempt that failed last (INSTANCE_FAILED), else null
 * error                why it failed (INSTANCE_FAILED; FAILURE_THRESHOLD: the latest failure's), else null
 * expectedTriggerTime  when the failed attempt was due (INSTANCE_FAILED); the earliest skipped trigger
 *                      (MISFIRE_SKIPPED); null for FAILURE_THRESHOLD
 * occurredAt           when the server saw it happen
 * failuresInWindow     FAILED instances in the window, at least the threshold (FAILURE_THRESHOLD), else null
 * skippedTriggers      missed triggers dropped (MISFIRE_SKIPPED), else null
 * suppressed           alerts of this job and kind not sent since the last one that was (rate limit), 0 if none
 * node                 the node id of the server that sent it
 * idempotencyKey       the Idempotency-Key header again
 * </pre>
 *
 * <p>{@code Idempotency-Key}: {@code alert:INSTANCE_FAILED:<instanceId>},
 * {@code alert:MISFIRE_SKIPPED:<jobId>:<earliest skipped trigger, epoch ms>},
 * {@code alert:FAILURE_THRESHOLD:<jobId>:<window start, epoch ms>}; the same for every attempt of one alert.
 *
 * <p>Immutable.
 */
record Alert(AlertKind kind, Job job, Long instanceId, Integer attempt, String error, Instant expectedTriggerTime,
             Instant occurredAt, Integer failuresInWindow, Integer skippedTriggers, String idempotencyKey) {

    Alert {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    }

    static Alert instanceFailed(Job job, Instance instance, String error, Instant at) {
        return new Alert(AlertKind.INSTANCE_FAILED, job, instance.id(), instance.attempt(), error,
                instance.expectedTriggerTime(), at, null, null, key(AlertKind.INSTANCE_FAILED, instance.id()));
    }

    /** @param firstMissed the earliest skipped trigger; when unknown (null), the key takes {@code at} instead */
    static Alert misfireSkipped(Job job, int skipped, Instant firstMissed, Instant at) {
        Instant keyTime = firstMissed != null ? firstMissed : at;
        return new Alert(AlertKind.MISFIRE_SKIPPED, job, null, null, null, firstMissed, at, null, skipped,
                key(AlertKind.MISFIRE_SKIPPED, job.id() + ":" + keyTime.toEpochMilli()));
    }

    /** @param windowStart the start of the sliding window the failures were counted in */
    static Alert failureThreshold(Job job, int failures, Instant windowStart, String latestError, Instant at) {
        return new Alert(AlertKind.FAILURE_THRESHOLD, job, null, null, latestError, null, at, failures, null,
                key(AlertKind.FAILURE_THRESHOLD, job.id() + ":" + windowStart.toEpochMilli()));
    }

    private static String key(AlertKind kind, Object subject) {
        return "alert:" + kind + ":" + subject;
    }

    /** The JSON body (see the class comment). */
    byte[] body(JsonFactory json, int suppressed, int node) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("kind", kind.name());
            g.writeStringField("jobId", Long.toString(job.id()));
            g.writeStringField("jobName", job.name());
            g.writeStringField("instanceId", instanceId == null ? null : instanceId.toString());
            g.writeStringField("status", kind == AlertKind.INSTANCE_FAILED ? InstanceStatus.FAILED.name() : null);
            writeNumberOrNull(g, "attempt", attempt);
            g.writeStringField("error", error);
            g.writeStringField("expectedTriggerTime",
                    expectedTriggerTime == null ? null : expectedTriggerTime.toString());
            g.writeStringField("occurredAt", occurredAt.toString());
            writeNumberOrNull(g, "failuresInWindow", failuresInWindow);
            writeNumberOrNull(g, "skippedTriggers", skippedTriggers);
            g.writeNumberField("suppressed", suppressed);
            g.writeNumberField("node", node);
            g.writeStringField("idempotencyKey", idempotencyKey);
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("a JSON body of strings and numbers could not be written", e);
        }
        return out.toByteArray();
    }

    private static void writeNumberOrNull(JsonGenerator g, String name, Integer value) throws IOException {
        if (value == null) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, value);
        }
    }
}
