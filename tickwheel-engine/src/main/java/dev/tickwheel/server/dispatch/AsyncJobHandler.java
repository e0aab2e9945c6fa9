package dev.tickwheel.server.dispatch;

import java.util.concurrent.CompletionStage;

/**
 * In-process target of a job that does its work asynchronously (it calls out itself, say): registered by name on the
 * server builder like a {@link JobHandler}.
 *
 * <p>{@link #handle} is called on a small start pool and should return its stage promptly; the call's slot is held
 * until the stage completes or the job's deadline passes.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface AsyncJobHandler {

    /**
     * Starts one instance. A stage completing normally records SUCCEEDED; completing exceptionally, or throwing here,
     * fails the attempt (retried while the job's retry policy allows). {@link JobContext#idempotencyKey()} is the same
     * for a call repeated after a server stop.
     */
    CompletionStage<?> handle(JobContext context) throws Exception;
}
