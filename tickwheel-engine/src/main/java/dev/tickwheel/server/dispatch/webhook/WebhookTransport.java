package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;

import dev.tickwheel.timer.HashedWheelTimer;
import dev.tickwheel.timer.TimerFuture;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs JSON to webhook URLs on Apache HttpClient 5's asynchronous client: no thread waits on a call.
 *
 * <p>What it sets up, and why:
 * <ul>
 *   <li>HTTP/1.1 only ({@link HttpVersionPolicy#FORCE_HTTP_1}): no h2c upgrade on {@code http}, no h2 by ALPN on
 *       {@code https}. No automatic retries, redirects, cookies or authentication: a webhook call is one POST. A 3xx
 *       answer is a failed call like any other non-2xx; its {@code Location} is never called.</li>
 *   <li>With the {@link OutboundGuard} on, the pool's resolver is {@link GuardedDnsResolver}: each new connection
 *       goes only to an address the guard allows, judged as it is opened; a host with none fails the call
 *       ({@link WebhookException.Reason#REFUSED}). No proxy is used, so the address judged is the peer's.</li>
 *   <li>A strict pool ({@link PoolConcurrencyPolicy#STRICT}) with a total and a per-host limit; last-used first
 *       ({@link PoolReusePolicy#LIFO}), so surplus connections stay idle and get evicted.</li>
 *   <li>Idle eviction: {@link IdleCappedKeepAlive} makes a connection expire after the idle-eviction time (the pool
 *       then never leases it), and a sweep on the deadline wheel closes expired connections every half of that time,
 *       so an unused socket lives at most 1.5 × idle eviction. A connection the peer closed while idle is seen by the
 *       I/O reactor (end of stream) and is not leased either.</li>
 *   <li>A whole-call deadline per call on a {@link HashedWheelTimer} (see below); Apache's own response timeout,
 *       only a socket-idle timeout, is set one second past the deadline as a backstop.</li>
 * </ul>
 *
 * <h2>Why the project's wheel for deadlines</h2>
 * Every call in flight holds one pending deadline, thousands at once, and nearly all are cancelled (the call ends
 * first). On a hashed wheel, scheduling and cancelling cost O(1) and hand off through lock-free queues, where a
 * {@code ScheduledThreadPoolExecutor} would take one lock shared with the I/O threads and O(log n) per operation; the
 * wheel also sleeps until the next deadline, so an idle transport costs nothing. The tick is coarse (10 ms, 1 024
 * buckets, one revolution ≈ 10.24 s, the default deadline) since a deadline of seconds needs no millisecond precision.
 * A deadline never fires early; the wheel fires it at the deadline plus the worker's wake-up latency (it parks
 * until the next deadline, not to the end of a tick).
 *
 * <p>Threads: {@code tickwheel-webhook-io-<n>} (the I/O reactor threads, plus one that starts the reactor) and
 * {@code tickwheel-webhook-deadline-1} ({@code alert} instead of {@code webhook} for the alerts' transport). The
 * futures returned by {@link #postJson} complete on one of them, so their dependents must be quick and must not block;
 * hand slow work to an executor.
 *
 * <p>Thread-safe.
 */
public final class WebhookTransport implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WebhookTransport.class);
    private static final long DEADLINE_TICK_MS = 10;
    private static final int DEADLINE_TICKS_PER_WHEEL = 1024;
    /** Apache's socket and lease timeouts end this long after the deadline: they only back it up. */
    private static final long BACKSTOP_MS = 1000;
    /** Per-connection session buffer, each way; Apache's default is 8 KB. */
    private static final int SESSION_BUFFER_BYTES = 2048;

    private final PoolingAsyncClientConnectionManager pool;
    private final CloseableHttpAsyncClient client;
    private final HashedWheelTimer deadlines;
    private final long sweepPeriodMs;
    private final WebhookSigner signer;
    /** Request configurations by deadline in ms; bounded in practice by the distinct job deadlines. */
    private final java.util.concurrent.ConcurrentHashMap<Long, RequestConfig> requestConfigs =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param signer     signs the calls that {@link #postJson} is given a secret for
     * @param threadRole names the threads, {@code tickwheel-<role>-io-<n>} and {@code tickwheel-<role>-deadline-1},
     *                   so that two transports (instance calls, alerts) tell apart in a thread dump
     * @param guard      judges the address of every new connection ({@link GuardedDnsResolver}) unless it is
     *                   {@link OutboundGuard#OFF}
     */
    public WebhookTransport(TransportSettings settings, WebhookSigner signer, String threadRole,
                            OutboundGuard guard) {
        this.signer = Objects.requireNonNull(signer, "signer");
        PoolingAsyncClientConnectionManagerBuilder poolBuilder = PoolingAsyncClientConnectionManagerBuilder.create();
        if (guard.enabled()) {
            poolBuilder.setDnsResolver(new GuardedDnsResolver(guard));
        }
        pool = poolBuilder
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.STRICT)
                .setConnPoolPolicy(PoolReusePolicy.LIFO)
                .setMaxConnTotal(settings.maxConnections())
                .setMaxConnPerRoute(settings.maxConnectionsPerHost())
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(settings.connectTimeout()))
                        .build())
                .setDefaultTlsConfig(TlsConfig.custom().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1).build())
                .build();
        client = HttpAsyncClients.custom()
                .setConnectionManager(pool)
                .setIOReactorConfig(IOReactorConfig.custom()
                        .setIoThreadCount(settings.ioThreads())
                        .setTcpNoDelay(true)
                        .build())
                .setThreadFactory(new NamedThreadFactory(threadRole + "-io", true))
                // Requests are a few hundred bytes and an answer is kept in a buffer that grows with it: 8 KB buffers each way
                // (the default) were most of the heap a call in flight costs.
                .setHttp1Config(Http1Config.custom().setBufferSize(SESSION_BUFFER_BYTES).build())
                .setKeepAliveStrategy(new IdleCappedKeepAlive(settings.idleEviction()))
                .addRequestInterceptorLast(StaleConnectionProbe.RECORDER)
                .setUserAgent("tickwheel")
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableConnectionState()
                .build();
        deadlines = HashedWheelTimer.builder()
                .tickDuration(DEADLINE_TICK_MS, TimeUnit.MILLISECONDS)
                .ticksPerWheel(DEADLINE_TICKS_PER_WHEEL)
                .threadFactory(new NamedThreadFactory(threadRole + "-deadline", true))
                .failureHandler((task, failure) -> log.error("webhook deadline task failed", failure))
                .build();
        sweepPeriodMs = Math.max(1, settings.idleEviction().toMillis() / 2);
        client.start();
        deadlines.start();
        scheduleSweep();
    }

    /**
     * Starts a POST of {@code body} as {@code application/json} and returns at once.
     *
     * @param url     an absolute http or https URL
     * @param headers request headers besides Content-Type, Content-Length, Host and User-Agent
     * @param timeout the whole-call deadline: connect, request, response headers and body
     * @param signingSecret when not null, every request of the call carries {@link WebhookSigner}'s timestamp and
     *                      signature headers, computed as it is written
     * @return completes on a 2xx answer with its body (decoded; empty if none; null if it was longer than
     *         {@link dev.tickwheel.server.instance.Instance#MAX_OUTPUT_LENGTH} bytes, of which only that much was
     *         read), exceptionally with a {@link WebhookException} otherwise
     */
    public CompletableFuture<String> postJson(String url, Map<String, String> headers, byte[] body, Duration timeout,
                                            String signingSecret) {
        long timeoutMs = Math.max(1, timeout.toMillis());
        RequestConfig requestConfig = requestConfigs.computeIfAbsent(timeoutMs, WebhookTransport::requestConfig);
        URI uri = parse(url);
        WebhookCall call = new WebhookCall(this, url, uri, headers, body, signer, signingSecret, timeoutMs,
                requestConfig);
        if (uri == null) {
            call.reject(WebhookFailures.invalidUrl(url, "not an absolute http or https URL"));
            return call.result();
        }
        try {
            call.deadline(deadlines.schedule(call, timeoutMs, TimeUnit.MILLISECONDS));
        } catch (RejectedExecutionException stopped) { // closed: the wheel is stopped
            call.abandon();
            return call.result();
        }
        call.start();
        return call.result();
    }

    /** One request configuration per deadline: immutable, and jobs share a handful of deadlines. */
    private static RequestConfig requestConfig(long timeoutMs) {
        return RequestConfig.custom()
                .setResponseTimeout(Timeout.ofMilliseconds(timeoutMs + BACKSTOP_MS))
                .setConnectionRequestTimeout(Timeout.ofMilliseconds(timeoutMs + BACKSTOP_MS))
                .setProtocolUpgradeEnabled(false)
                .setExpectContinueEnabled(false)
                .setRedirectsEnabled(false)
                .build();
    }

    <T> Future<T> execute(AsyncRequestProducer request, AsyncResponseConsumer<T> consumer, HttpClientContext context,
                          FutureCallback<T> callback) {
        return client.execute(request, consumer, null, context, callback);
    }

    /**
     * Closes every connection and stops the threads. Calls in flight fail with
     * {@link WebhookException.Reason#CLOSED}; later calls fail the same way at once. Idempotent.
     */
    @Override
    public void close() {
        // Every call in flight has exactly one pending deadline; stopping the wheel hands them all back.
        List<TimerFuture> pending = deadlines.stop();
        for (TimerFuture timeout : pending) {
            if (timeout.task() instanceof WebhookCall call) {
                call.abandon();
            }
        }
        client.close(CloseMode.IMMEDIATE);
    }

    private void scheduleSweep() {
        try {
            deadlines.schedule(this::sweepIdleConnections, sweepPeriodMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            // closed: no more sweeps
        }
    }

    private void sweepIdleConnections() {
        try {
            pool.closeExpired();
        } catch (Throwable failure) {
            log.warn("closing idle webhook connections failed; trying again in {} ms", sweepPeriodMs, failure);
        } finally {
            scheduleSweep();
        }
    }

    private static URI parse(String url) {
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme();
            boolean http = "http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
            return http && uri.getHost() != null ? uri : null;
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
