package dev.tickwheel.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
 * The few calls of Tickwheel's HTTP API (docs/openapi.yaml) the cluster benchmark makes: create a job, run it, read
 * {@code GET /api/cluster}. Only the benchmark talks to the API this way; the servers' webhook calls go the other way,
 * to the {@link dev.tickwheel.bench.webhook.LoadReceiver}.
 *
 * <p>On Apache HttpClient 5 (the client the server's webhooks use), classic API, one pool shared by every member's
 * API: a pooled connection idle for a second is checked before reuse (members are killed and restarted under it),
 * no automatic retries (a run is not idempotent), and the socket timeout bounds every read, the body's included.
 *
 * <p>Thread-safe (the client is).
 */
final class MemberApi {

    /** A response: status and parsed JSON (a missing node when the body is not JSON). */
    record Reply(int status, String text, JsonNode json) {
        @Override
        public String toString() {
            return status + " " + text;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CloseableHttpClient HTTP = HttpClients.custom()
            .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                    .setDefaultConnectionConfig(ConnectionConfig.custom()
                            .setConnectTimeout(Timeout.ofSeconds(5))
                            .setSocketTimeout(Timeout.ofSeconds(20))
                            .setValidateAfterInactivity(TimeValue.ofSeconds(1))
                            .build())
                    .setMaxConnTotal(64)
                    .setMaxConnPerRoute(16)
                    .build())
            .disableAutomaticRetries()
            .build();

    private final String baseUrl;

    MemberApi(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    String baseUrl() {
        return baseUrl;
    }

    Reply get(String path) {
        return send(new HttpGet(baseUrl + path));
    }

    Reply post(String path, String jsonBody) {
        HttpPost post = new HttpPost(baseUrl + path);
        post.setEntity(new StringEntity(jsonBody, ContentType.APPLICATION_JSON));
        return send(post);
    }

    /** {@code POST /api/jobs}: an on-demand webhook job, one attempt; returns the new job's id. */
    long createWebhookJob(String name, String url) {
        String body = """
                {"name": "%s", "schedule": {"type": "API"},
                 "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}""".formatted(name, url);
        Reply reply = post("/api/jobs", body);
        if (reply.status() != 201) {
            throw new IllegalStateException("POST /api/jobs on " + baseUrl + " answered " + reply);
        }
        return Long.parseLong(reply.json().get("id").asText());
    }

    /** {@code GET /api/cluster}. */
    ClusterSnapshot cluster() {
        Reply reply = get("/api/cluster");
        if (reply.status() != 200) {
            throw new IllegalStateException("GET /api/cluster on " + baseUrl + " answered " + reply);
        }
        return ClusterSnapshot.parse(reply.json(), System.currentTimeMillis());
    }

    private Reply send(HttpUriRequestBase request) {
        try {
            return HTTP.execute(request, response -> {
                String text = response.getEntity() == null ? ""
                        : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
                return new Reply(response.getCode(), text, parse(text));
            });
        } catch (IOException e) {
            throw new UncheckedIOException("API call to " + baseUrl + " failed: " + e, e);
        }
    }

    private static JsonNode parse(String text) {
        try {
            return text == null || text.isBlank() ? MissingNode.getInstance() : JSON.readTree(text);
        } catch (IOException notJson) {
            return MissingNode.getInstance();
        }
    }
}
