package dev.tickwheel.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.timer.ManualClock;
import dev.tickwheel.timer.TimerStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Handler deadlines on the class's own wheel, driven by a {@link ManualClock}: a call still running at its deadline
 * fails with the deadline in its message and its thread is interrupted; a call that ends first cancels its deadline,
 * which then never fires.
 */
class InProcessHandlersTest {

    private static final Instant DUE = Instant.parse("2026-11-27T08:00:00Z");
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    private final ManualClock clock = new ManualClock();
    private final CountDownLatch neverReleased = new CountDownLatch(1);
    /** Counted down once "blocks" runs: its pool thread has taken it (under load that can come after the deadline). */
    private final CountDownLatch blockedStarted = new CountDownLatch(1);
    private final CompletableFuture<Boolean> blockedWasInterrupted = new CompletableFuture<>();
    private final CompletableFuture<Void> asyncNeverEnds = new CompletableFuture<>();
    private final InProcessHandlers handlers = new InProcessHandlers(Map.of(
            "blocks", ctx -> {
                blockedStarted.countDown();
                try {
                    neverReleased.await();
                    blockedWasInterrupted.complete(false);
                } catch (InterruptedException e) {
                    blockedWasInterrupted.complete(true);
                }
            },
            "quick", ctx -> {
            },
            "outputs", ctx -> ctx.setOutput(" {\"instance\": " + ctx.instanceId() + "} "),
            "bad-output", ctx -> ctx.setOutput("{\"unclosed\": ")),
            Map.of("async-never-ends", ctx -> asyncNeverEnds,
                    "async-outputs", ctx -> CompletableFuture.runAsync(() -> ctx.setOutput("[1, 2, 3]"))), 4, clock);

    @AfterEach
    void close() {
        neverReleased.countDown();
        handlers.close(Duration.ofSeconds(5));
    }

    @Test
    void syncHandler_stillRunningAtItsDeadline_failsWithTheDeadlineAndItsThreadIsInterrupted() throws Exception {
        CompletableFuture<String> call = handlers.invoke(job("blocks"), context(1), DEADLINE);
        // The claim is about a handler still running at its deadline: the manual clock would otherwise reach the
        // deadline before a loaded machine's pool thread has even started it (then it is cancelled, never run).
        assertTrue(blockedStarted.await(10, TimeUnit.SECONDS), "the handler started");

        clock.advance(DEADLINE.minusMillis(1));
        assertFalse(call.isDone(), "1 ms before the deadline the call is still running");

        clock.advance(Duration.ofMillis(1));
        TimeoutException timeout = assertInstanceOf(TimeoutException.class, failureOf(call));
        assertEquals("handler 'blocks' did not finish within 2000 ms", timeout.getMessage());
        assertTrue(blockedWasInterrupted.get(10, TimeUnit.SECONDS), "the handler's thread was interrupted");
        assertEquals(1, handlers.deadlineStats().expired());
    }

    @Test
    void handlersThatSetAnOutput_completeWithIt_stripped() throws Exception {
        assertEquals("{\"instance\": 5}", handlers.invoke(job("outputs"), context(5), DEADLINE).get(10,
                TimeUnit.SECONDS));
        assertEquals("[1, 2, 3]", handlers.invoke(job("async-outputs"), context(6), DEADLINE).get(10,
                TimeUnit.SECONDS), "set on the async handler's own thread, before its stage completed");
        assertNull(handlers.invoke(job("quick"), context(7), DEADLINE).get(10, TimeUnit.SECONDS));
    }

    @Test
    void handlerSettingAnOutputThatIsNotJson_failsItsAttemptSayingWhy() throws Exception {
        Throwable failure = failureOf(handlers.invoke(job("bad-output"), context(8), DEADLINE));
        assertTrue(failure.getMessage().contains("an output must be exactly one JSON value"), failure.getMessage());
    }

    @Test
    void asyncHandler_neverCompleting_failsAtItsDeadline() throws Exception {
        CompletableFuture<String> call = handlers.invoke(job("async-never-ends"), context(2), DEADLINE);

        clock.advance(DEADLINE);
        TimeoutException timeout = assertInstanceOf(TimeoutException.class, failureOf(call));
        assertEquals("handler 'async-never-ends' did not finish within 2000 ms", timeout.getMessage());
    }

    @Test
    void handlersEndingFirst_cancelTheirDeadlines_whichNeverFireAndAreReleased() throws Exception {
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            calls.add(handlers.invoke(job("quick"), context(100 + i), DEADLINE));
        }
        for (CompletableFuture<String> call : calls) {
            assertNull(call.get(10, TimeUnit.SECONDS));
        }

        clock.advance(DEADLINE.plusSeconds(1)); // past every deadline: the worker reaches their bucket
        for (CompletableFuture<String> call : calls) {
            assertFalse(call.isCompletedExceptionally(), "a cancelled deadline never overrides the outcome");
        }
        TimerStats stats = handlers.deadlineStats();
        assertEquals(100, stats.scheduled());
        assertEquals(0, stats.expired(), "no deadline fired");
        assertEquals(100, stats.cancelled(), "every deadline was cancelled and released");
        assertEquals(0, stats.pending());
    }

    @Test
    void unknownHandler_failsAtOnce_withoutADeadline() {
        CompletableFuture<String> call = handlers.invoke(job("nobody"), context(3), DEADLINE);

        IllegalStateException failure = assertInstanceOf(IllegalStateException.class, failureOf(call));
        assertTrue(failure.getMessage().startsWith("no handler registered under 'nobody'"), failure.getMessage());
        assertEquals(0, handlers.deadlineStats().scheduled());
    }

    private static Throwable failureOf(CompletableFuture<String> call) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static Job job(String handler) {
        return new Job(5, "handler job", ScheduleSpec.api(), Target.handler(handler), null, true, MisfirePolicy.SKIP,
                RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null, DUE, DUE, 0);
    }

    private static JobContext context(long instanceId) {
        return new JobContext(instanceId, 5, "handler job", "{}", DUE, 1, 0, 1, null);
    }
}
