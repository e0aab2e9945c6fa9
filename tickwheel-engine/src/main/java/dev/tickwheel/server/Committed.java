package dev.tickwheel.server;

import dev.tickwheel.server.store.StoreException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits, for at most a bound, for a group-committed write ({@link dev.tickwheel.concurrent.GroupCommit}) on the
 * caller's thread and hands back its result, or throws what the write threw, as the direct call would have.
 *
 * <p>Stateless; thread-safe.
 *
 * <p>Caveat: a caller that gives up cannot know whether its write commits: one still queued is dropped (its future is
 * cancelled, and the group commit skips cancelled items), one already being written may commit.
 */
final class Committed {

    private Committed() {
    }

    /**
     * @param bound the longest the caller waits for the commit (the server's store timeout)
     * @throws StoreException        if the write did not end within {@code bound} (it may yet commit)
     * @throws IllegalStateException if the thread is interrupted while waiting (the write may still commit; the
     *                               interrupt flag is set again)
     */
    static <R> R await(CompletableFuture<R> write, String what, Duration bound) {
        try {
            return write.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + what + " to commit; it may yet"
                    + " commit", e);
        } catch (TimeoutException e) {
            if (write.cancel(false)) {
                throw new StoreException("the " + what + " did not commit within " + bound.toMillis()
                        + " ms (the store timeout); it may yet commit", e);
            }
            return await(write, what, bound); // it ended just now: its own answer, at once
        } catch (CancellationException e) {
            throw new IllegalStateException("the " + what + " was cancelled", e); // never: only this class cancels
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
