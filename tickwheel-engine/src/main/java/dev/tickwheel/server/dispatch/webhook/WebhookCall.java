package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.timer.TimerFuture;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HeaderElements;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.entity.BasicAsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One webhook POST: at most two attempts, one deadline over both, exactly one outcome.
 *
 * <p>Life of a call: {@link WebhookTransport} schedules the deadline (this object is the deadline task), then
 * {@link #start()} sends the first attempt. The outcome is settled once, by whichever comes first: the attempt's
 * answer, its failure, the deadline ({@link #run()}), the invoker closing ({@link #abandon()}) or a caller cancelling
 * the future. Settling cancels the deadline and the attempt in flight; Apache then discards the attempt's connection
 * (closes the socket) instead of returning it to the pool, so a call cut off mid-exchange leaks nothing.
 *
 * <p>The second attempt happens only when the first failed with an I/O error on a reused connection before any
 * response byte arrived ({@link StaleConnectionProbe}): the peer closed a keep-alive connection as the request went
 * out. It goes out on a new connection, which it then closes ({@code Connection: close}). How the pool is made to
 * open one: Apache's pool leases an idle connection whose state equals the lease's state, or else one whose state is
 * null ({@code StrictConnPool.PerRoutePool.getFree}); first attempts carry the shared state {@link #POOLED}, so every
 * pooled connection has that state, and a retry carries a state of its own that matches none of them.
 *
 * <p>Thread-safe: started by the caller, continued on I/O threads, timed out on the deadline thread, abandoned by
 * {@code close()}; {@link #settled} decides which of them settles.
 */
final class WebhookCall implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(WebhookCall.class);
    private static final ContentType JSON = ContentType.create("application/json", (java.nio.charset.Charset) null);
    /** Connection state (Apache's "user token") of first attempts, so that pooled connections never have null. */
    private static final Object POOLED = new Object() {
        @Override
        public String toString() {
            return "webhook-pooled";
        }
    };

    private final WebhookTransport transport;
    private final String url;
    private final URI uri;
    private final Map<String, String> headers;
    private final byte[] body;
    /** Signs each request as it is written (a retry gets a fresh timestamp); null for an unsigned call. */
    private final WebhookSigner signer;
    private final String signingSecret;
    private final long timeoutMs;
    private final RequestConfig requestConfig;
    private final CallFuture result = new CallFuture();
    // The single decision point: the first settle() wins, every later one is a no-op.
    private final AtomicBoolean settled = new AtomicBoolean();
    // volatile: set before the attempt starts, read by the deadline thread and by settle() on any thread.
    private volatile Attempt current;
    // volatile: set by the transport after scheduling, read by settle() on any thread.
    private volatile TimerFuture deadline;

    /** @param signingSecret the secret to sign each request with ({@link WebhookSigner}), or null for none */
    WebhookCall(WebhookTransport transport, String url, URI uri, Map<String, String> headers, byte[] body,
                WebhookSigner signer, String signingSecret, long timeoutMs, RequestConfig requestConfig) {
        this.transport = transport;
        this.url = url;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
        this.signer = signer;
        this.signingSecret = signingSecret;
        this.timeoutMs = timeoutMs;
        this.requestConfig = requestConfig;
    }

    CompletableFuture<String> result() {
        return result;
    }

    void deadline(TimerFuture deadline) {
        this.deadline = deadline;
    }

    void start() {
        startAttempt(false);
    }

    /** The deadline passed: fail with the phase that stalled and cut the attempt off. */
    @Override
    public void run() {
        settle(WebhookFailures.timeout(url, timeoutMs, stalledPhase()));
    }

    /** The transport is closing. */
    void abandon() {
        settle(WebhookFailures.closed(url));
    }

    /** Fails the call before any attempt started. */
    void reject(WebhookException failure) {
        settle(failure);
    }

    private String stalledPhase() {
        Attempt attempt = current;
        if (attempt == null || !attempt.probe.requestStarted()) {
            return "not connected";
        }
        return attempt.consumer.headersReceived() ? "response body stalled" : "no response headers";
    }

    private void startAttempt(boolean retry) {
        Attempt attempt = new Attempt(retry);
        current = attempt;
        HttpClientContext context = HttpClientContext.create();
        context.setRequestConfig(requestConfig);
        context.setAttribute(StaleConnectionProbe.ATTRIBUTE, attempt.probe);
        context.setUserToken(retry ? new Object() : POOLED);
        try {
            attempt.future = transport.execute(request(retry), attempt.consumer, context, attempt);
        } catch (RuntimeException e) {
            settle(WebhookFailures.exchange(url, e, false, retry));
            return;
        }
        // A settle that ran before the future was stored could not cancel it; this check covers that race.
        if (settled.get()) {
            attempt.cancel();
        }
    }

    private AsyncRequestProducer request(boolean retry) {
        BasicHttpRequest request = new BasicHttpRequest(Method.POST, uri);
        headers.forEach(request::addHeader);
        if (signingSecret != null) {
            signer.sign(signingSecret, body, request::addHeader); // over exactly the bytes the producer sends
        }
        if (retry) {
            request.addHeader(HttpHeaders.CONNECTION, HeaderElements.CLOSE);
        }
        return new BasicRequestProducer(request, new BasicAsyncEntityProducer(body, JSON));
    }

    private void settle(WebhookException failure) {
        settle(failure, null);
    }

    /**
     * @param failure null for success
     * @param body    on success, the whole response body, or null if it was longer than what is kept
     */
    private void settle(WebhookException failure, String body) {
        if (!settled.compareAndSet(false, true)) {
            return;
        }
        TimerFuture timer = deadline;
        if (timer != null) {
            timer.cancel();
        }
        Attempt attempt = current;
        if (attempt != null) {
            attempt.cancel();
        }
        if (failure == null) {
            result.complete(body);
        } else {
            result.completeExceptionally(failure);
        }
    }

    /** One request on one connection. Its callbacks run on an I/O thread, or on the thread that cancels it. */
    private final class Attempt implements FutureCallback<WebhookResponse> {
        final boolean retry;
        final CappedResponseConsumer consumer = new CappedResponseConsumer();
        final StaleConnectionProbe probe = new StaleConnectionProbe();
        // volatile: stored by the starting thread, read by whichever thread settles.
        volatile Future<WebhookResponse> future;

        Attempt(boolean retry) {
            this.retry = retry;
        }

        void cancel() {
            consumer.abandon();
            Future<WebhookResponse> started = future;
            if (started != null && !started.isDone()) {
                started.cancel(true);
            }
        }

        @Override
        public void completed(WebhookResponse response) {
            if (response.isSuccess()) {
                settle(null, response.wholeBody() ? response.bodyPrefix() : null);
            } else {
                settle(WebhookFailures.status(url, response));
            }
        }

        @Override
        public void failed(Exception failure) {
            if (!retry && !settled.get() && failure instanceof IOException
                    && !(failure instanceof SocketTimeoutException)
                    && (probe.failedSilentlyOnReusedConnection() || closedBeforeTheRequestWasWritten(failure))) {
                log.debug("webhook {}: reused connection failed before any response ({}); retrying once", url,
                        failure.toString());
                startAttempt(true);
                return;
            }
            if (failure instanceof SocketTimeoutException) {
                // Apache's socket timeout is a backstop set past the deadline; name it as the deadline would.
                settle(WebhookFailures.timeout(url, timeoutMs, stalledPhase()));
            } else {
                settle(WebhookFailures.exchange(url, failure, consumer.headersReceived(), retry));
            }
        }

        /**
         * The connection failed after it was leased and before the request head was written (the interceptor never
         * ran): typically a pooled connection the peer closed just then. Nothing was sent, so another try is safe.
         * Failures to connect at all are not this: they are not retried.
         */
        private boolean closedBeforeTheRequestWasWritten(Exception failure) {
            return !probe.requestStarted() && !(failure instanceof java.net.ConnectException)
                    && !(failure instanceof java.net.UnknownHostException)
                    && !(failure instanceof java.io.InterruptedIOException);
        }

        @Override
        public void cancelled() {
            // Only settle() cancels an attempt, so the call is settled already.
        }
    }

    /** The caller's future; cancelling it cuts the call off like a deadline would. */
    private final class CallFuture extends CompletableFuture<String> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                settle(null); // the future is already cancelled, so settle only cleans up
            }
            return cancelled;
        }
    }
}
