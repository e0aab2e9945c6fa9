package dev.tickwheel.server.dispatch;

import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.timer.HashedWheelTimer;
import dev.tickwheel.timer.TimerFuture;
import dev.tickwheel.timer.TimerStats;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a job's in-process handler by the name its HANDLER target gives: a {@link JobHandler} on the bounded handler
 * pool ({@code tickwheel-handler-<n>}), an {@link AsyncJobHandler} started on a small start pool
 * ({@code tickwheel-handler-start-<n>}).
 *
 * <p>Whatever a handler throws, {@link Error}s included, fails the attempt with the reason: the pool thread catches
 * it, so no thread dies and the call's slot is always given back. A handler still running at the deadline fails the
 * attempt, and its thread is interrupted.
 *
 * <p>Deadlines are kept on a {@link HashedWheelTimer} of this class's own ({@code tickwheel-handler-deadline-1}, 10 ms
 * buckets), not with {@link CompletableFuture#orTimeout}: every call holds one deadline and nearly every deadline is
 * cancelled because the call ends first. {@code orTimeout} puts each on the JDK's shared delayer, a
 * {@code ScheduledThreadPoolExecutor} whose queue is one heap under one lock, O(log n) to add and to remove, taken by
 * every handler thread as its call ends; under a dispatch burst a profile found the handler threads spending most of
 * their time there. On the wheel a deadline is scheduled and cancelled in O(1) through lock-free queues. A deadline
 * never fires early; it fires within about a bucket (10 ms) after it.
 *
 * <p>The dispatcher admits at most {@link #threads()} synchronous handler calls at once (their target limit, see
 * {@link #targetOf}), so a call never waits behind another while claimed. Calls reach the pool's threads through
 * {@link CallRunners}: a thread that ends a call takes the next queued one without parking, and a parked thread is
 * woken only when no running thread is about to look.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: a synchronous handler that ignores interruption keeps its thread after its deadline; until it returns,
 * the pool has one thread fewer and a newly admitted call may queue behind it.
 */
public final class InProcessHandlers implements TargetInvoker, AutoCloseable {

    /** Target key of synchronous handlers: they share the handler pool. */
    public static final String SYNC_TARGET = "in-process handler pool";
    /** Target key of asynchronous handlers: limited by the server and job limits only. */
    public static final String ASYNC_TARGET = "in-process async handlers";

    /** Seconds a handler thread waits for its next call before it ends. */
    private static final long IDLE_THREAD_KEEP_ALIVE_S = 60;
    /** Bucket width of the deadline wheel: a deadline of seconds needs no millisecond precision. */
    private static final long DEADLINE_TICK_MS = 10;
    /** Buckets of the deadline wheel: one revolution is about 10 s, the default deadline. */
    private static final int DEADLINE_TICKS_PER_WHEEL = 1024;

    private final Map<String, JobHandler> handlers;
    private final Map<String, AsyncJobHandler> asyncHandlers;
    private final int threads;
    private final ThreadPoolExecutor pool;
    private final CallRunners runners;
    private final ThreadPoolExecutor startPool;
    private final HashedWheelTimer deadlines;

    /**
     * @param threads threads of the handler pool, at least 1
     * @throws IllegalArgumentException if a name is registered as both kinds
     */
    public InProcessHandlers(Map<String, JobHandler> handlers, Map<String, AsyncJobHandler> asyncHandlers,
                             int threads) {
        this(handlers, asyncHandlers, threads, Ticker.systemTicker());
    }

    /** As the public constructor, with the deadline wheel reading {@code ticker} (tests move time by hand). */
    InProcessHandlers(Map<String, JobHandler> handlers, Map<String, AsyncJobHandler> asyncHandlers, int threads,
                      Ticker ticker) {
        this.handlers = Map.copyOf(Objects.requireNonNull(handlers, "handlers"));
        this.asyncHandlers = Map.copyOf(Objects.requireNonNull(asyncHandlers, "asyncHandlers"));
        for (String name : this.asyncHandlers.keySet()) {
            if (this.handlers.containsKey(name)) {
                throw new IllegalArgumentException("'" + name + "' is registered as a handler and an async handler");
            }
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        this.threads = threads;
        // Unbounded queues, bounded in effect by admission: at most `threads` synchronous calls are admitted at once.
        // Threads start as calls come (a burst may start them all) and end after a minute idle: idle costs nothing.
        this.pool = new ThreadPoolExecutor(threads, threads, IDLE_THREAD_KEEP_ALIVE_S, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new NamedThreadFactory("handler", true));
        this.pool.allowCoreThreadTimeOut(true);
        this.runners = new CallRunners(pool);
        this.startPool = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                new NamedThreadFactory("handler-start", true));
        // The wheel's worker only completes futures (and interrupts a late handler's thread): it runs no user code.
        this.deadlines = HashedWheelTimer.builder()
                .ticker(Objects.requireNonNull(ticker, "ticker"))
                .tickDuration(DEADLINE_TICK_MS, TimeUnit.MILLISECONDS)
                .ticksPerWheel(DEADLINE_TICKS_PER_WHEEL)
                .threadFactory(new NamedThreadFactory("handler-deadline", true))
                .build();
        this.deadlines.start();
    }

    /** Threads of the handler pool: the most synchronous handler calls in flight at once. */
    public int threads() {
        return threads;
    }

    /** The deadline wheel's counters: scheduled, fired ({@code expired}) and released after a cancel. */
    TimerStats deadlineStats() {
        return deadlines.stats();
    }

    /** Every registered name, both kinds. */
    public Set<String> names() {
        Set<String> names = new TreeSet<>(handlers.keySet());
        names.addAll(asyncHandlers.keySet());
        return names;
    }

    /** The target key a handler's calls are counted under: the shared pool, or the async handlers. */
    public String targetOf(String name) {
        return asyncHandlers.containsKey(name) ? ASYNC_TARGET : SYNC_TARGET;
    }

    @Override
    public CompletableFuture<String> invoke(Job job, JobContext context, Duration timeout) {
        String name = job.target().value();
        CompletableFuture<String> result = new CompletableFuture<>();
        JobHandler handler = handlers.get(name);
        AsyncJobHandler asyncHandler = asyncHandlers.get(name);
        if (handler == null && asyncHandler == null) {
            result.completeExceptionally(new IllegalStateException("no handler registered under '" + name
                    + "' (registered: " + names() + ")"));
            return result;
        }
        Future<?> running;
        try {
            if (handler != null) {
                FutureTask<Void> call = new FutureTask<>(() -> runHandler(name, handler, context, result), null);
                runners.execute(call);
                running = call;
            } else {
                running = null;
                startPool.execute(() -> startAsyncHandler(name, asyncHandler, context, result));
            }
        } catch (RuntimeException rejected) { // the pools reject only after close()
            result.completeExceptionally(new IllegalStateException("the handler pool is closed", rejected));
            return result;
        }
        TimerFuture deadline;
        try {
            deadline = deadlines.schedule(() -> expire(name, timeout, result, running), timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RuntimeException stopped) { // the wheel refuses only after close(); the pools refused first
            result.completeExceptionally(new IllegalStateException("the handler pool is closed", stopped));
            return result;
        }
        // Completed by the handler first (nearly always): the deadline is cancelled. By the deadline first: the cancel
        // finds it started and does nothing. The caller gets the future that completes after the cancel, so that once
        // it sees the outcome, the deadline can no longer fire.
        return result.whenComplete((ok, failure) -> deadline.cancel());
    }

    /** At the deadline: fail the attempt if it is still running, and interrupt the synchronous handler's thread. */
    private static void expire(String name, Duration timeout, CompletableFuture<String> result, Future<?> running) {
        boolean expired = result.completeExceptionally(new TimeoutException("handler '" + name
                + "' did not finish within " + timeout.toMillis() + " ms"));
        if (expired && running != null) {
            running.cancel(true);
        }
    }

    private static void runHandler(String name, JobHandler handler, JobContext context,
                                   CompletableFuture<String> result) {
        try {
            handler.handle(context);
            result.complete(context.output());
        } catch (Throwable failure) { // Errors too: the thread must survive and the slot must come back
            result.completeExceptionally(new HandlerFailure(name, failure));
        } finally {
            Thread.interrupted(); // a handler that left the flag set must not leak it into the next one
        }
    }

    private static void startAsyncHandler(String name, AsyncJobHandler handler, JobContext context,
                                          CompletableFuture<String> result) {
        try {
            CompletionStage<?> stage = handler.handle(context);
            if (stage == null) {
                result.completeExceptionally(new IllegalStateException("async handler '" + name
                        + "' returned no CompletionStage"));
                return;
            }
            stage.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(context.output());
                } else {
                    result.completeExceptionally(new HandlerFailure(name, unwrap(failure)));
                }
            });
        } catch (Throwable failure) {
            result.completeExceptionally(new HandlerFailure(name, failure));
        } finally {
            Thread.interrupted();
        }
    }

    /** The failure inside a future's CompletionException or ExecutionException wrappers. */
    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof java.util.concurrent.CompletionException
                || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Stops both pools after the calls in flight; waits up to {@code wait} for them, then interrupts the handlers still
     * running (calls still queued then never run; calls queued at the shutdown may run one after another on the
     * threads still going, as no new thread starts). The deadline wheel stops last: a call still unfinished then (an
     * asynchronous handler that never completes) keeps an incomplete future, as it would in a crash, and its instance
     * is settled as interrupted after the restart.
     */
    public void close(Duration wait) {
        pool.shutdown();
        startPool.shutdown();
        try {
            if (!pool.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                runners.stop();
                pool.shutdownNow();
            }
            startPool.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deadlines.stop();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * What a handler threw, with a message fit to store: the throwable's own message, or for an {@link Error} or a
     * message-less throwable, its simple class name first ({@code "StackOverflowError"},
     * {@code "AssertionError: expected 3"}).
     */
    static final class HandlerFailure extends Exception {
        private static final long serialVersionUID = 1L;

        HandlerFailure(String name, Throwable cause) {
            super(describe(cause), cause);
        }

        private static String describe(Throwable cause) {
            String message = cause.getMessage();
            if (cause instanceof Error || message == null || message.isBlank()) {
                String type = cause.getClass().getSimpleName();
                return message == null || message.isBlank() ? type : type + ": " + message;
            }
            return message;
        }
    }
}
