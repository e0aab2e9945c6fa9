package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.store.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link Committed#await}: a caller gets its write's result or its failure as the direct call would throw it, and a
 * write that does not end within the bound becomes a {@link StoreException} (the API's 503 store_unavailable) whose
 * future is cancelled, so that a group commit that has not taken it yet never writes it. No test waits: a bound of
 * zero expires at once, and the futures are completed by the test.
 */
class CommittedTest {

    private static final Duration LONG_BOUND = Duration.ofMinutes(1);

    @Test
    void await_writeCommitted_returnsItsResult() {
        assertEquals("run 7", Committed.await(CompletableFuture.completedFuture("run 7"), "run", LONG_BOUND));
    }

    @Test
    void await_writeFailedWithAStoreException_throwsItUnchanged() {
        StoreException down = new StoreException("insertRuns failed (SQLState 08001)", null);

        StoreException thrown = assertThrows(StoreException.class,
                () -> Committed.await(CompletableFuture.failedFuture(down), "run", LONG_BOUND));

        assertSame(down, thrown);
    }

    @Test
    void await_writeNotEndedWithinTheBound_throwsStoreExceptionAndCancelsTheWrite() {
        CompletableFuture<String> queued = new CompletableFuture<>();

        StoreException e = assertThrows(StoreException.class,
                () -> Committed.await(queued, "run of job 42", Duration.ZERO));

        assertTrue(e.getMessage().contains("run of job 42") && e.getMessage().contains("may yet commit"),
                e.getMessage());
        assertTrue(queued.isCancelled(), "cancelled: a group commit that takes it later skips it");
    }

    @Test
    void await_writeEndsAsTheBoundRunsOut_returnsItsResultNotA503() {
        // The writer completed the future between the wait's timeout and the cancel: the cancel fails, and the
        // committed result is the answer. A future that refuses to be cancelled stands for that race.
        CompletableFuture<String> racing = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                complete("committed just now");
                return false;
            }
        };

        assertEquals("committed just now", Committed.await(racing, "run", Duration.ZERO));
    }
}
