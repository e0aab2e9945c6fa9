package dev.tickwheel.server.dispatch.alert;

/**
 * Told how each alert ended (metrics). Methods must be quick and must not throw.
 *
 * <p>Implementations are thread-safe: the alert thread and the HTTP client's threads call them.
 */
public interface AlertListener {

    AlertListener NONE = new AlertListener() {
    };

    /** An alert of {@code kind} ended with {@code outcome}. */
    default void alertEnded(AlertKind kind, AlertOutcome outcome) {
    }
}
