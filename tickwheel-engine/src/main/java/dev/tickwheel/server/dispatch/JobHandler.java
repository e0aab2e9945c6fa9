package dev.tickwheel.server.dispatch;

/**
 * In-process target of a job: the embedding application's code, registered by name on the server builder.
 *
 * <p>Runs on the server's bounded handler pool ({@code handlerThreads}); an instance is claimed only when a thread of
 * that pool is free. Past the job's deadline the attempt fails and the thread is interrupted.
 *
 * <p>Implementations must be thread-safe: instances of one job may run concurrently.
 */
@FunctionalInterface
public interface JobHandler {

    /**
     * Runs one instance. Returning normally records SUCCEEDED; throwing anything (an {@link Error} too) fails the
     * attempt, which is retried while the job's retry policy allows. {@link JobContext#idempotencyKey()} is the same
     * for a call repeated after a server stop.
     */
    void handle(JobContext context) throws Exception;
}
