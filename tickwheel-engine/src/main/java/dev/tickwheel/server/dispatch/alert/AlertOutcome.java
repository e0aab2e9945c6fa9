package dev.tickwheel.server.dispatch.alert;

import java.util.Locale;

/**
 * How an alert ended. Every alert that has somewhere to go (a URL) ends exactly once, in one of these.
 *
 * <p>Immutable.
 */
public enum AlertOutcome {
    /** The alert webhook answered 2xx (on the first attempt or a retry). */
    SENT,
    /** Every attempt failed (one call and its retries); the alert is given up. */
    FAILED,
    /** Not sent: the same job had an alert of the same kind less than the minimum interval ago. */
    SUPPRESSED,
    /** Not sent: the alert queue was full, or the server stopped before the alert went out. */
    DROPPED;

    /** The metric label: {@code sent}, {@code failed}, {@code suppressed} or {@code dropped}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
