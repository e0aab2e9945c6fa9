package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;

/**
 * Sends {@link ApiCall}s with the client's time-out, token and retry rules, and turns each answer into a result or a
 * {@link TickwheelException}: {@link #call} on the calling thread ({@link BlockingExchanges}), {@link #send} without
 * blocking ({@link AsyncExchanges}, made at the first async call).
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
 * bounded by the request time-out, from sending to the whole answer: a deadline that ends the exchange when it fires.
 * A sync call's back-off waits on the calling thread; an async call's on the {@link Deadlines} thread, and its next
 * attempt and its completion run on the executor, never on an I/O thread.
 *
 * <p>Thread-safe: the fields are immutable or thread-safe; each call's state lives on its stack or in its future.
 */
final class ApiTransport implements AutoCloseable {

    private static final System.Logger log = System.getLogger(ApiTransport.class.getName());

    /** What one attempt came to: a result, a failure, or another attempt after {@code retryInMs}. */
    private record Step<T>(T result, RuntimeException failure, long retryInMs) {

        static final long FINAL = -1;

        boolean retry() {
            return retryInMs != FINAL;
        }
    }

    private final String base;
    private final Supplier<String> tokens;
    private final long requestTimeoutMs;
    private final RetryPolicy retry;
    private final Executor executor;
    private final ErrorAnswers errors;
    private final Deadlines deadlines;
    private final BlockingExchanges blocking;
    private final InFlight inFlight;
    private final ClientSettings settings;
    private volatile AsyncExchanges async; // made once, under the lock of this, at the first async call

    /**
     * @param base     the base URI without a trailing slash
     * @param tokens   the bearer token of each attempt (null or blank: none); null for no supplier
     * @param executor runs the async calls' completions and retries
     */
    ApiTransport(ClientSettings settings, String base, Supplier<String> tokens, Executor executor, ObjectMapper json) {
        this.settings = settings;
        this.base = base;
        this.tokens = tokens;
        this.requestTimeoutMs = settings.requestTimeout().toMillis();
        this.retry = settings.retry();
        this.executor = executor;
        this.errors = new ErrorAnswers(json);
        this.deadlines = new Deadlines();
        this.blocking = new BlockingExchanges(settings, deadlines);
        this.inFlight = new InFlight(this::release);
    }

    /**
     * The sync form: sends {@code call} on the calling thread, retries included, and returns its result.
     *
     * @throws TickwheelException the call's failure; {@code interrupted} (the thread's flag kept) if the thread was
     *                            interrupted before an attempt or during a back-off
     * @throws IllegalStateException if the client is closed
     */
    <T> T call(ApiCall<T> call) {
        if (!inFlight.enter()) {
            throw closed(call);
        }
        try {
            for (int attempt = 1; ; attempt++) {
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(call, attempt, null);
                }
                URI uri = uri(call);
                String token = token();
                Step<T> step;
                try {
                    step = answered(call, attempt, blocking.exchange(call, uri, token));
                } catch (IOException | TimeoutException e) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw interrupted(call, attempt, e);
                    }
                    step = failed(call, attempt, e);
                }
                if (!step.retry()) {
                    if (step.failure() != null) {
                        throw step.failure();
                    }
                    return step.result();
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(step.retryInMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw interrupted(call, attempt, e);
                }
            }
        } finally {
            inFlight.exit();
        }
    }

    /**
     * The async form: sends {@code call}; the future completes, on the executor, with its result or a
     * {@link TickwheelException}. Cancelling the future ends the exchange in flight and the retries.
     */
    <T> CompletableFuture<T> send(ApiCall<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (!inFlight.enter()) {
            result.completeExceptionally(closed(call));
            return result;
        }
        result.whenComplete((ignored, failure) -> inFlight.exit());
        attempt(call, 1, result);
        return result;
    }

    private <T> void attempt(ApiCall<T> call, int attempt, CompletableFuture<T> result) {
        if (result.isDone()) {
            return; // the caller cancelled it
        }
        CompletableFuture<HttpAnswer> sent;
        try {
            sent = asyncExchanges().exchange(call, uri(call), token());
        } catch (RuntimeException e) { // the token supplier threw, or the request could not be built
            result.completeExceptionally(e);
            return;
        }
        result.whenComplete((ignored, failure) -> {
            if (failure instanceof CancellationException) {
                sent.cancel(true);
            }
        });
        // The answer completes on an I/O thread; the JSON, the caller's dependents and the retry decision run on
        // the executor, so that nothing slow runs on the I/O thread.
        sent.whenComplete((answer, failure) -> handOff(result, () -> {
            Step<T> step = failure == null ? answered(call, attempt, answer) : failed(call, attempt, unwrap(failure));
            if (step.retry()) {
                retryLater(call, attempt, result, step.retryInMs());
            } else if (step.failure() != null) {
                result.completeExceptionally(step.failure());
            } else {
                result.complete(step.result());
            }
        }));
    }

    private <T> void retryLater(ApiCall<T> call, int attempt, CompletableFuture<T> result, long delayMs) {
        try {
            deadlines.schedule(() -> handOff(result, () -> attempt(call, attempt + 1, result)), delayMs);
        } catch (RejectedExecutionException e) { // the client closed meanwhile: no thread would run the retry
            result.completeExceptionally(closed(call));
        }
    }

    /** Runs {@code task} on the executor; its refusal ends the call (which would otherwise never complete). */
    private void handOff(CompletableFuture<?> result, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
    }

    private <T> Step<T> answered(ApiCall<T> call, int attempt, HttpAnswer answer) {
        int status = answer.status();
        if (call.answers().contains(status)) {
            try {
                return new Step<>(call.read(answer.body()), null, Step.FINAL);
            } catch (IOException | RuntimeException e) {
                return new Step<>(null, new UnexpectedStatusException(status, "unreadable_answer", null,
                        call.describe() + " answered " + status + " with a body the client cannot read: "
                                + e.getMessage(), attempt, e), Step.FINAL);
            }
        }
        if (status == 503 && call.repeatable() && attempt < retry.maxAttempts()) {
            return retryStep(call, attempt, "503");
        }
        return new Step<>(null, errors.exception(call, status, answer.body(), attempt), Step.FINAL);
    }

    private <T> Step<T> failed(ApiCall<T> call, int attempt, Throwable failure) {
        // a connect time-out is a SocketTimeoutException; no free pooled connection in time, a lease time-out
        boolean timedOut = failure instanceof TimeoutException || failure instanceof SocketTimeoutException
                || failure instanceof ConnectionRequestTimeoutException;
        if (!timedOut && !(failure instanceof IOException)) {
            // cancelled, or a bug: not a transport failure to retry
            return new Step<>(null, failure instanceof RuntimeException runtime ? runtime
                    : new CompletionException(failure), Step.FINAL);
        }
        if (call.repeatable() && attempt < retry.maxAttempts()) {
            return retryStep(call, attempt, failure.toString());
        }
        String what = timedOut ? "no answer within " + requestTimeoutMs + " ms" : "connection failed (" + failure
                + ")";
        String after = call.repeatable() ? "after " + attempt + (attempt == 1 ? " attempt" : " attempts")
                : "not repeated, as the call is not safe to repeat: it may or may not have been made";
        return new Step<>(null, new UnavailableException(TickwheelException.NO_STATUS,
                timedOut ? UnavailableException.TIMED_OUT : UnavailableException.CONNECTION_FAILED, null,
                call.describe() + " on " + base + ": " + what + ", " + after, attempt, failure), Step.FINAL);
    }

    private <T> Step<T> retryStep(ApiCall<T> call, int attempt, String reason) {
        long delayMs = retry.backoffMs(attempt, ThreadLocalRandom.current().nextDouble());
        log.log(System.Logger.Level.DEBUG, () -> call.describe() + " on " + base + " failed (" + reason
                + "); attempt " + (attempt + 1) + " of " + retry.maxAttempts() + " in " + delayMs + " ms");
        return new Step<>(null, null, delayMs);
    }

    private URI uri(ApiCall<?> call) {
        return URI.create(base + call.path());
    }

    /** This attempt's token, stripped; null for none. */
    private String token() {
        String token = tokens == null ? null : tokens.get();
        return token == null || token.isBlank() ? null : token.strip();
    }

    private AsyncExchanges asyncExchanges() {
        AsyncExchanges exchanges = async;
        if (exchanges == null) {
            synchronized (this) { // one async client per transport, made once
                exchanges = async;
                if (exchanges == null) {
                    exchanges = new AsyncExchanges(settings, deadlines);
                    async = exchanges;
                }
            }
        }
        return exchanges;
    }

    private static IllegalStateException closed(ApiCall<?> call) {
        return new IllegalStateException("the client is closed: " + call.describe());
    }

    private static TickwheelException interrupted(ApiCall<?> call, int attempt, Throwable cause) {
        Thread.currentThread().interrupt();
        return new TickwheelException(TickwheelException.NO_STATUS, "interrupted", null, "interrupted: "
                + call.describe() + (attempt == 1 ? " may or may not have been made" : " was attempted " + attempt
                + " times; it may or may not have been made"), attempt, cause);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Closes the connections, the I/O threads and the timer: run once, when closed and no call is in flight. */
    private void release() {
        blocking.close();
        AsyncExchanges exchanges;
        synchronized (this) {
            exchanges = async;
        }
        if (exchanges != null) {
            exchanges.close();
        }
        deadlines.close();
    }

    /** Refuses new calls; the resources go once the calls in flight have ended. Idempotent. */
    @Override
    public void close() {
        inFlight.close();
    }
}
