package dev.tickwheel.server.dispatch;

/**
 * In-process target of a job: the embedding application's code, registered by name on the server builder.
 *
 * <p>Implementations must be thread-safe: instances of one job may run concurrently on the dispatch executor.
 */
@FunctionalInterface
public interface JobHandler {

    /**
     * Runs one instance. Returning normally records SUCCEEDED; throwing records a failure, which is retried while the
     * job's retry policy allows.
     */
    void handle(JobContext context) throws Exception;
}
