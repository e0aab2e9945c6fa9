package dev.tickwheel.bench.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.classic.methods.HttpDelete;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Tickwheel's HTTP API as the benchmark's client calls it: POSTs with JSON bodies over a pool of keep-alive
 * connections, one per request in flight, each answer read whole as text.
 *
 * <p>On Apache HttpClient 5, classic (blocking) API, with a pooling connection manager: every worker thread blocks
 * on its own request, so {@code connections} workers keep exactly that many requests in flight, each on a connection
 * opened once and reused. No automatic retries (a run is not idempotent), no cookies, no compression, no redirects:
 * nothing that would add work the server's answer does not need. The socket timeout bounds every read.
 *
 * <p>Thread-safe (the client and its pool are).
 */
final class SchedulingApi implements AutoCloseable {

    /** An answer: its status and body. */
    record Reply(int status, String body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private final String baseUrl;
    private final CloseableHttpClient http;

    /** A client of the server at {@code baseUrl} (e.g. {@code http://127.0.0.1:4321}), {@code connections} at most. */
    SchedulingApi(String baseUrl, int connections) {
        this.baseUrl = baseUrl;
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(5))
                                .setSocketTimeout(Timeout.ofSeconds(30))
                                .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                                .build())
                        .setMaxConnTotal(connections)
                        .setMaxConnPerRoute(connections)
                        .build())
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableContentCompression()
                .disableRedirectHandling()
                .build();
    }

    String baseUrl() {
        return baseUrl;
    }

    /** {@code POST path} with {@code jsonBody}, or without a body if it is null. */
    Reply post(String path, String jsonBody) throws IOException {
        HttpPost post = new HttpPost(baseUrl + path);
        if (jsonBody != null) {
            post.setEntity(new StringEntity(jsonBody, ContentType.APPLICATION_JSON));
        }
        return send(post);
    }

    Reply get(String path) throws IOException {
        return send(new HttpGet(baseUrl + path));
    }

    Reply delete(String path) throws IOException {
        return send(new HttpDelete(baseUrl + path));
    }

    /** {@code GET /health} answered 200; false on any other answer or a failed connection. */
    boolean healthy() {
        try {
            return get("/health").status() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * {@code POST /api/jobs}: an on-demand job (schedule API) whose webhook points at a closed port; nothing it runs
     * is meant to fire.
     *
     * @return the job's id
     * @throws IllegalStateException if the server does not answer 201 with an id
     */
    long createJob(String name) {
        String body = """
                {"name":"%s","schedule":{"type":"API"},"target":{"type":"WEBHOOK","url":"http://127.0.0.1:9/none"}}"""
                .formatted(name);
        Reply reply = call(() -> post("/api/jobs", body));
        long[] id = JsonScan.numbers(reply.body(), "id");
        if (reply.status() != 201 || id.length == 0) {
            throw new IllegalStateException("POST /api/jobs on " + baseUrl + " answered " + reply);
        }
        return id[0];
    }

    /**
     * {@code DELETE /api/jobs/{id}}: the job goes and its WAITING instances are cancelled.
     *
     * @throws IllegalStateException if the server does not answer 204
     */
    void deleteJob(long jobId) {
        Reply reply = call(() -> delete("/api/jobs/" + jobId));
        if (reply.status() != 204) {
            throw new IllegalStateException("DELETE /api/jobs/" + jobId + " on " + baseUrl + " answered " + reply);
        }
    }

    @Override
    public void close() throws IOException {
        http.close();
    }

    private Reply send(HttpUriRequestBase request) throws IOException {
        return http.execute(request, response -> new Reply(response.getCode(), response.getEntity() == null ? ""
                : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)));
    }

    private Reply call(IoCall call) {
        try {
            return call.run();
        } catch (IOException e) {
            throw new UncheckedIOException("API call to " + baseUrl + " failed: " + e, e);
        }
    }

    @FunctionalInterface
    private interface IoCall {
        Reply run() throws IOException;
    }
}
