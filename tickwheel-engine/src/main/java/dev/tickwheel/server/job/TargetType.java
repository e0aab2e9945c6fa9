package dev.tickwheel.server.job;

/**
 * Where a job's instances are delivered.
 *
 * <p>Immutable.
 */
public enum TargetType {
    /** An HTTP POST to a URL; 2xx is success. */
    WEBHOOK,
    /** An in-process handler registered under a name by the embedding application. */
    HANDLER
}
