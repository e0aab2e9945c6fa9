package dev.tickwheel.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The few calls of Tickwheel's HTTP API (docs/openapi.yaml) the cluster benchmark makes, on the JDK's HttpClient:
 * create a job, run it, read {@code GET /api/cluster}. Only the benchmark talks to the API this way; the servers'
 * webhook calls go the other way, to the {@link dev.tickwheel.bench.webhook.LoadReceiver}.
 *
 * <p>Thread-safe (the JDK client is).
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
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final String baseUrl;

    MemberApi(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    String baseUrl() {
        return baseUrl;
    }

    Reply get(String path) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
    }

    Reply post(String path, String jsonBody) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody)));
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

    private Reply send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.timeout(REQUEST_TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.body(), parse(response.body()));
        } catch (IOException e) {
            throw new UncheckedIOException("API call to " + baseUrl + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during an API call to " + baseUrl, e);
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
