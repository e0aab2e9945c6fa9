package dev.tickwheel.client;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The sync calls' exchanges: Apache HttpClient 5's classic (blocking) client, each exchange on the calling thread
 * over a pool of keep-alive HTTP/1.1 connections, so a call costs no hand-off between threads. The attempt's deadline
 * ({@link Deadlines}) cancels the request, which closes its connection and ends a blocked read.
 *
 * <p>Thread-safe (the client and its pool are).
 */
final class BlockingExchanges implements AutoCloseable {

    static final ContentType JSON = ContentType.create("application/json", (java.nio.charset.Charset) null);
    static final String USER_AGENT = "tickwheel-client";
    /** Apache's own socket and lease time-outs end this long after the deadline: they only back it up. */
    static final long BACKSTOP_MS = 1_000;
    /** A pooled connection idle longer than this is checked before it is reused (a peer may have closed it). */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(1);

    private final CloseableHttpClient http;
    private final Deadlines deadlines;
    private final long requestTimeoutMs;

    BlockingExchanges(ClientSettings settings, Deadlines deadlines) {
        this.deadlines = deadlines;
        this.requestTimeoutMs = settings.requestTimeout().toMillis();
        Timeout backstop = Timeout.ofMilliseconds(requestTimeoutMs + BACKSTOP_MS);
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.STRICT)
                        .setConnPoolPolicy(PoolReusePolicy.LIFO)
                        .setMaxConnTotal(settings.maxConnections())
                        .setMaxConnPerRoute(settings.maxConnections())
                        .setDefaultConnectionConfig(connectionConfig(settings, backstop))
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(backstop)
                        .setResponseTimeout(backstop)
                        .build())
                .setUserAgent(USER_AGENT)
                .disableAutomaticRetries() // the transport's rules decide what is repeated
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .disableAuthCaching()
                .disableConnectionState()
                .build();
    }

    /** The pooled connections' settings, the same for the blocking and the asynchronous client. */
    static ConnectionConfig connectionConfig(ClientSettings settings, Timeout backstop) {
        return ConnectionConfig.custom()
                .setConnectTimeout(Timeout.of(settings.connectTimeout()))
                .setSocketTimeout(backstop)
                .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                .build();
    }

    /**
     * One attempt of {@code call} to {@code uri} on the calling thread.
     *
     * @param token the bearer token, or null for none
     * @throws TimeoutException if no whole answer came within the request time-out (the exchange is then ended)
     * @throws IOException      if the connection failed; with the thread's interrupt flag set if it was interrupted
     */
    HttpAnswer exchange(ApiCall<?> call, URI uri, String token) throws IOException, TimeoutException {
        HttpUriRequestBase request = new HttpUriRequestBase(call.method(), uri);
        request.setHeader("Accept", "application/json");
        if (token != null) {
            request.setHeader("Authorization", "Bearer " + token);
        }
        if (call.body() != null) {
            request.setEntity(new ByteArrayEntity(call.body(), JSON));
        }
        ScheduledFuture<?> deadline = deadlines.schedule(request::cancel, requestTimeoutMs);
        try {
            return http.execute(request, response -> {
                HttpEntity entity = response.getEntity();
                byte[] body = entity == null ? null : EntityUtils.toByteArray(entity);
                return new HttpAnswer(response.getCode(), body == null ? HttpAnswer.NO_BODY : body);
            });
        } catch (IOException e) {
            if (request.isCancelled()) { // only the deadline cancels it
                TimeoutException timedOut = new TimeoutException("no whole answer within " + requestTimeoutMs
                        + " ms");
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
        } finally {
            deadline.cancel(false);
        }
    }

    @Override
    public void close() {
        http.close(CloseMode.GRACEFUL);
    }
}
