package dev.tickwheel.server.dispatch;

import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.job.Job;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
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
 * <p>The dispatcher admits at most {@link #threads()} synchronous handler calls at once (their target limit, see
 * {@link #targetOf}), so a task never waits in the pool's queue behind another while claimed.
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

    private final Map<String, JobHandler> handlers;
    private final Map<String, AsyncJobHandler> asyncHandlers;
    private final int threads;
    private final ThreadPoolExecutor pool;
    private final ThreadPoolExecutor startPool;

    /**
     * @param threads threads of the handler pool, at least 1
     * @throws IllegalArgumentException if a name is registered as both kinds
     */
    public InProcessHandlers(Map<String, JobHandler> handlers, Map<String, AsyncJobHandler> asyncHandlers,
                             int threads) {
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
        this.startPool = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                new NamedThreadFactory("handler-start", true));
    }

    /** Threads of the handler pool: the most synchronous handler calls in flight at once. */
    public int threads() {
        return threads;
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
    public CompletableFuture<Void> invoke(Job job, JobContext context, Duration timeout) {
        String name = job.target().value();
        CompletableFuture<Void> result = new CompletableFuture<>();
        JobHandler handler = handlers.get(name);
        AsyncJobHandler asyncHandler = asyncHandlers.get(name);
        if (handler == null && asyncHandler == null) {
            result.completeExceptionally(new IllegalStateException("no handler registered under '" + name
                    + "' (registered: " + names() + ")"));
            return result;
        }
        try {
            if (handler != null) {
                Future<?> running = pool.submit(() -> runHandler(name, handler, context, result));
                // At the deadline: fail the attempt, and interrupt the thread if the handler is still on it.
                result.whenComplete((ok, failure) -> {
                    if (failure instanceof TimeoutException) {
                        running.cancel(true);
                    }
                });
            } else {
                startPool.execute(() -> startAsyncHandler(name, asyncHandler, context, result));
            }
        } catch (RuntimeException rejected) { // the pools reject only after close()
            result.completeExceptionally(new IllegalStateException("the handler pool is closed", rejected));
            return result;
        }
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(timeoutMessage(name, timeout,
                        failure)));
    }

    private static void runHandler(String name, JobHandler handler, JobContext context,
                                   CompletableFuture<Void> result) {
        try {
            handler.handle(context);
            result.complete(null);
        } catch (Throwable failure) { // Errors too: the thread must survive and the slot must come back
            result.completeExceptionally(new HandlerFailure(name, failure));
        } finally {
            Thread.interrupted(); // a handler that left the flag set must not leak it into the next one
        }
    }

    private static void startAsyncHandler(String name, AsyncJobHandler handler, JobContext context,
                                          CompletableFuture<Void> result) {
        try {
            CompletionStage<?> stage = handler.handle(context);
            if (stage == null) {
                result.completeExceptionally(new IllegalStateException("async handler '" + name
                        + "' returned no CompletionStage"));
                return;
            }
            stage.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(null);
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

    private static Throwable timeoutMessage(String name, Duration timeout, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof TimeoutException) {
            return new TimeoutException("handler '" + name + "' did not finish within " + timeout.toMillis() + " ms");
        }
        return cause;
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

    /** Stops both pools after the calls in flight; waits up to {@code wait} for them. */
    public void close(Duration wait) {
        pool.shutdown();
        startPool.shutdown();
        try {
            if (!pool.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
            }
            startPool.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
