package dev.tickwheel.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Waits for a group-committed write ({@link dev.tickwheel.concurrent.GroupCommit}) on the caller's thread and hands
 * back its result, or throws what the write threw, as the direct call would have.
 *
 * <p>Stateless; thread-safe.
 */
final class Committed {

    private Committed() {
    }

    /**
     * @throws IllegalStateException if the thread is interrupted while waiting (the write may still commit; the
     *                               interrupt flag is set again)
     */
    static <R> R await(CompletableFuture<R> write, String what) {
        try {
            return write.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + what + " to commit; it may yet"
                    + " commit", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("the " + what + " failed", cause);
        }
    }
}
