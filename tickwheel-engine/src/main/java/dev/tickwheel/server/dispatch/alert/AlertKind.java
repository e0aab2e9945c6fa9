package dev.tickwheel.server.dispatch.alert;

/**
 * What an alert is about; the {@code kind} field of its JSON body and part of its {@code Idempotency-Key}.
 *
 * <p>Immutable.
 */
public enum AlertKind {
    /** An instance failed its last attempt: it ended FAILED. One alert per instance (rate limits aside). */
    INSTANCE_FAILED,
    /** A job's misfire policy SKIP dropped missed triggers (nobody held the job's shard when they fell due). */
    MISFIRE_SKIPPED,
    /** A job's FAILED instances within the failure window reached the failure threshold. */
    FAILURE_THRESHOLD
}
