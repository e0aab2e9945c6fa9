package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A JSON client for API tests on the JDK HttpClient. Public for the cluster process tests. Thread-safe once
 * configured: {@link #withToken} must happen before the client is shared (the JDK client itself is thread-safe).
 */
public final class ApiClient {

    /** A response: status, raw text, parsed JSON (a missing node if the body is not JSON). */
    public record Reply(int status, String text, JsonNode json, String contentType) {
        public String error() {
            return json.path("error").asText(null);
        }

        public String message() {
            return json.path("message").asText("");
        }

        @Override
        public String toString() {
            return status + " " + text;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private String token;

    public ApiClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    ApiClient withToken(String newToken) {
        this.token = newToken;
        return this;
    }

    public Reply get(String path) {
        return send("GET", path, null);
    }

    public Reply post(String path, String body) {
        return send("POST", path, body);
    }

    Reply put(String path, String body) {
        return send("PUT", path, body);
    }

    Reply delete(String path) {
        return send("DELETE", path, null);
    }

    Reply send(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.body(), parse(response.body()),
                    response.headers().firstValue("Content-Type").orElse(""));
        } catch (IOException e) {
            throw new AssertionError(method + " " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static JsonNode parse(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            return node == null ? JSON.missingNode() : node;
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }
}
