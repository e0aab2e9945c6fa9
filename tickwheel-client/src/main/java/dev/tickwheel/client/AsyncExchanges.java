package dev.tickwheel.client;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * The async calls' exchanges: Apache HttpClient 5's async client (its I/O threads {@code tickwheel-client-io-<n>},
 * daemons) over a pool of keep-alive HTTP/1.1 connections of its own. The attempt's deadline ({@link Deadlines})
 * cancels the exchange and fails its future with a {@link TimeoutException}.
 *
 * <p>The futures complete on an I/O thread: their dependents must be quick and must not block (the transport hands
 * the rest to its executor).
 *
 * <p>Thread-safe (the client and its pool are).
 */
final class AsyncExchanges implements AutoCloseable {

    private static final AtomicInteger INSTANCES = new AtomicInteger(); // numbers the thread names across clients

    private final CloseableHttpAsyncClient http;
    private final Deadlines deadlines;
    private final long requestTimeoutMs;

    /** Builds and starts the client. */
    AsyncExchanges(ClientSettings settings, Deadlines deadlines) {
        this.deadlines = deadlines;
        this.requestTimeoutMs = settings.requestTimeout().toMillis();
        Timeout backstop = Timeout.ofMilliseconds(requestTimeoutMs + BlockingExchanges.BACKSTOP_MS);
        String threadPrefix = "tickwheel-client-io-" + INSTANCES.incrementAndGet() + "-";
        AtomicInteger threads = new AtomicInteger();
        this.http = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.STRICT)
                        .setConnPoolPolicy(PoolReusePolicy.LIFO)
                        .setMaxConnTotal(settings.maxConnections())
                        .setMaxConnPerRoute(settings.maxConnections())
                        .setDefaultConnectionConfig(BlockingExchanges.connectionConfig(settings, backstop))
                        // HTTP/1.1 also on https: the server has no HTTP/2
                        .setDefaultTlsConfig(TlsConfig.custom().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                                .build())
                        .build())
                .setIOReactorConfig(IOReactorConfig.custom().setTcpNoDelay(true).build())
                .setThreadFactory(task -> {
                    Thread thread = new Thread(task, threadPrefix + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                })
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(backstop)
                        .setResponseTimeout(backstop)
                        .build())
                .setUserAgent(BlockingExchanges.USER_AGENT)
                .disableAutomaticRetries() // the transport's rules decide what is repeated
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableConnectionState()
                .build();
        http.start();
    }

    /**
     * Starts one attempt of {@code call} to {@code uri}. The future completes with the answer, or exceptionally with
     * a {@link TimeoutException} (no whole answer within the request time-out) or an {@link IOException}; cancelling
     * it ends the exchange.
     *
     * @param token the bearer token, or null for none
     */
    CompletableFuture<HttpAnswer> exchange(ApiCall<?> call, URI uri, String token) {
        SimpleRequestBuilder builder = SimpleRequestBuilder.create(call.method()).setUri(uri)
                .setHeader("Accept", "application/json");
        if (token != null) {
            builder.setHeader("Authorization", "Bearer " + token);
        }
        if (call.body() != null) {
            builder.setBody(call.body(), BlockingExchanges.JSON);
        }
        SimpleHttpRequest request = builder.build();
        CompletableFuture<HttpAnswer> answer = new CompletableFuture<>();
        Future<SimpleHttpResponse> exchange = http.execute(request, new FutureCallback<>() {
            @Override
            public void completed(SimpleHttpResponse response) {
                byte[] body = response.getBodyBytes();
                answer.complete(new HttpAnswer(response.getCode(), body == null ? HttpAnswer.NO_BODY : body));
            }

            @Override
            public void failed(Exception e) {
                // a protocol violation (a malformed answer) is a failed connection, as in the classic client
                answer.completeExceptionally(e instanceof HttpException ? new IOException(e.getMessage(), e) : e);
            }

            @Override
            public void cancelled() {
                answer.cancel(false); // the deadline or the caller cancelled it; whoever did completed it first
            }
        });
        ScheduledFuture<?> deadline = deadlines.schedule(() -> {
            answer.completeExceptionally(new TimeoutException("no whole answer within " + requestTimeoutMs + " ms"));
            exchange.cancel(true);
        }, requestTimeoutMs);
        answer.whenComplete((ignored, failure) -> {
            deadline.cancel(false);
            if (failure != null) {
                exchange.cancel(true); // the caller cancelled it: end the exchange too
            }
        });
        return answer;
    }

    @Override
    public void close() {
        http.close(CloseMode.GRACEFUL);
    }
}
