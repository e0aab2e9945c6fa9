package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Sends {@link ApiCall}s over the JDK's {@link HttpClient} with the client's time-out, token and retry rules, and
 * turns each answer into a result or a {@link TickwheelException}.
 *
 * <pre>
 *   attempt n ── answer in call.answers ──────────────▶ result
 *            ├── 503, repeatable, n &lt; max ──────────▶ back-off, attempt n+1
 *            ├── other status ────────────────────────▶ ErrorAnswers: NotFound, Conflict, Validation, …
 *            ├── I/O failure or time-out, repeatable, n &lt; max ▶ back-off, attempt n+1
 *            └── I/O failure or time-out otherwise ──▶ UnavailableException (connection_failed, timed_out)
 * </pre>
 *
 * Each attempt asks the token supplier again, so a rotated token is used from the next attempt on. Each attempt is
 * bounded by the request time-out twice over: the JDK's own (which stops at the answer's headers) and a guard on the
 * whole exchange, body included, which cancels the exchange when it fires.
 *
 * <p>Thread-safe: the fields are immutable or thread-safe; each call's state lives in its own future.
 */
final class ApiTransport implements AutoCloseable {

    private static final System.Logger log = System.getLogger(ApiTransport.class.getName());
    private static final String USER_AGENT = "tickwheel-client";

    private final HttpClient http;
    private final boolean ownHttpClient;
    private final String base;
    private final Supplier<String> tokens;
    private final Duration requestTimeout;
    private final RetryPolicy retry;
    private final Executor executor;
    private final ObjectMapper json;
    private final ErrorAnswers errors;
    private final AtomicBoolean closed = new AtomicBoolean(); // set once by close(), read by every attempt

    /**
     * @param base     the base URI without a trailing slash
     * @param tokens   the bearer token of each attempt (null or blank: none); null for no supplier
     * @param executor runs the retries after their back-off; null for the common pool
     */
    ApiTransport(HttpClient http, boolean ownHttpClient, String base, Supplier<String> tokens,
                 Duration requestTimeout, RetryPolicy retry, Executor executor, ObjectMapper json) {
        this.http = http;
        this.ownHttpClient = ownHttpClient;
        this.base = base;
        this.tokens = tokens;
        this.requestTimeout = requestTimeout;
        this.retry = retry;
        this.executor = executor;
        this.json = json;
        this.errors = new ErrorAnswers(json);
    }

    /** Sends {@code call}; the future completes with its result or a {@link TickwheelException}. */
    <T> CompletableFuture<T> send(ApiCall<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(call, 1, result);
        return result;
    }

    /**
     * The sync form of a call: waits for {@code future}; throws the call's exception with the caller's stack trace.
     * An interrupt cancels the call, keeps the thread's interrupt flag and throws a {@link TickwheelException}
     * ({@code interrupted}).
     */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TickwheelException failure) {
                failure.fillInStackTrace(); // the caller's frames, not the HTTP client's thread's
                throw failure;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new TickwheelException(TickwheelException.NO_STATUS, "failed", null, String.valueOf(cause), 1,
                    cause);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new TickwheelException(TickwheelException.NO_STATUS, "interrupted", null,
                    "interrupted while waiting for the answer; the call may or may not have been made", 1, e);
        }
    }

    private <T> void attempt(ApiCall<T> call, int attempt, CompletableFuture<T> result) {
        if (result.isDone()) {
            return; // the caller cancelled it
        }
        if (closed.get()) {
            result.completeExceptionally(new IllegalStateException("the client is closed: " + call.describe()));
            return;
        }
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            sent = http.sendAsync(request(call), HttpResponse.BodyHandlers.ofByteArray());
        } catch (RuntimeException e) { // the token supplier threw, or the request could not be built
            result.completeExceptionally(e);
            return;
        }
        result.whenComplete((ignored, failure) -> {
            if (failure instanceof CancellationException) {
                sent.cancel(true);
            }
        });
        sent.copy().orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((response, failure) -> {
            if (failure == null) {
                answered(call, attempt, result, response);
            } else {
                sent.cancel(true); // the guard fired first: end the exchange, body and all
                failed(call, attempt, result, unwrap(failure));
            }
        });
    }

    private HttpRequest request(ApiCall<?> call) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + call.path()))
                .timeout(requestTimeout)
                .header("Accept", "application/json")
                .header("User-Agent", USER_AGENT);
        String token = tokens == null ? null : tokens.get();
        if (token != null && !token.isBlank()) {
            request.header("Authorization", "Bearer " + token.strip());
        }
        if (call.body() != null) {
            request.header("Content-Type", "application/json");
        }
        HttpRequest.BodyPublisher body = call.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(call.body());
        return request.method(call.method(), body).build();
    }

    private <T> void answered(ApiCall<T> call, int attempt, CompletableFuture<T> result,
                              HttpResponse<byte[]> response) {
        int status = response.statusCode();
        if (call.answers().contains(status)) {
            try {
                result.complete(call.read(json, response.body()));
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(new UnexpectedStatusException(status, "unreadable_answer", null,
                        call.describe() + " answered " + status + " with a body the client cannot read: "
                                + e.getMessage(), attempt, e));
            }
        } else if (status == 503 && call.repeatable() && attempt < retry.maxAttempts()) {
            retryLater(call, attempt, result, "503");
        } else {
            result.completeExceptionally(errors.exception(call, status, response.body(), attempt));
        }
    }

    private <T> void failed(ApiCall<T> call, int attempt, CompletableFuture<T> result, Throwable failure) {
        boolean timedOut = failure instanceof HttpTimeoutException || failure instanceof TimeoutException;
        if (!timedOut && !(failure instanceof IOException)) {
            result.completeExceptionally(failure); // cancelled, or a bug: not a transport failure to retry
            return;
        }
        if (call.repeatable() && attempt < retry.maxAttempts()) {
            retryLater(call, attempt, result, failure.toString());
            return;
        }
        String what = timedOut ? "no answer within " + requestTimeout.toMillis() + " ms" : "connection failed ("
                + failure + ")";
        String after = call.repeatable() ? "after " + attempt + (attempt == 1 ? " attempt" : " attempts")
                : "not repeated, as the call is not safe to repeat: it may or may not have been made";
        result.completeExceptionally(new UnavailableException(TickwheelException.NO_STATUS,
                timedOut ? UnavailableException.TIMED_OUT : UnavailableException.CONNECTION_FAILED, null,
                call.describe() + " on " + base + ": " + what + ", " + after, attempt, failure));
    }

    private <T> void retryLater(ApiCall<T> call, int attempt, CompletableFuture<T> result, String reason) {
        long delayMs = retry.backoffMs(attempt, ThreadLocalRandom.current().nextDouble());
        log.log(System.Logger.Level.DEBUG, () -> call.describe() + " on " + base + " failed (" + reason
                + "); attempt " + (attempt + 1) + " of " + retry.maxAttempts() + " in " + delayMs + " ms");
        Runnable next = () -> attempt(call, attempt + 1, result);
        // The back-off on CompletableFuture's delayer, then the attempt on the common pool or the given executor,
        // whose refusal ends the call (it would otherwise never complete).
        CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS).execute(() -> {
            if (executor == null) {
                next.run();
                return;
            }
            try {
                executor.execute(next);
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(e);
            }
        });
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Refuses new calls; closes the HTTP client if this client built it and the JDK can close it (JDK 21+). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && ownHttpClient && http instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.log(System.Logger.Level.DEBUG, "closing the HTTP client failed", e);
            }
        }
    }
}
