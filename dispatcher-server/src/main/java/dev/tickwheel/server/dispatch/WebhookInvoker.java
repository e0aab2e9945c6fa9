package dev.tickwheel.server.dispatch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tickwheel.server.job.Job;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;

/**
 * POSTs an instance to a job's WEBHOOK URL as JSON and treats any 2xx answer as success.
 *
 * <p>Body: {@code {"instanceId": "…", "jobId": "…", "jobName", "params", "expectedTriggerTime", "attempt"}}. IDs are
 * strings because 64-bit values lose precision as JavaScript numbers; {@code params} is embedded as JSON when it
 * parses as JSON, else as a string. A timeout, a connection error or a non-2xx status is a failure.
 *
 * <p>Thread-safe: the JDK {@link HttpClient} is.
 */
public final class WebhookInvoker implements TargetInvoker, AutoCloseable {
    // Interim: JDK client, asynchronous; replaced by the Apache HttpClient 5 caller.

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient client;
    private final ObjectMapper json;
    private final Duration timeout;

    public WebhookInvoker(HttpClient client, ObjectMapper json, Duration timeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.json = Objects.requireNonNull(json, "json");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** An invoker with its own HTTP client: {@code timeout} to connect and to answer, redirects not followed. */
    public static WebhookInvoker create(ObjectMapper json, Duration timeout) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        return new WebhookInvoker(client, json, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> invoke(Job job, JobContext context, Duration callTimeout) {
        String url = job.target().value();
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(url))
                    .timeout(callTimeout)
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "tickwheel")
                    .header("Idempotency-Key", context.idempotencyKey())
                    .POST(HttpRequest.BodyPublishers.ofString(body(context)))
                    .build();
        } catch (IOException | RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .handle((response, failure) -> {
                    if (failure != null) {
                        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                        throw new java.util.concurrent.CompletionException(cause instanceof HttpTimeoutException
                                ? new IOException("webhook " + url + " timed out after " + callTimeout.toMillis()
                                        + " ms", cause)
                                : new IOException("webhook " + url + " failed: " + cause, cause));
                    }
                    int status = response.statusCode();
                    if (status < 200 || status > 299) {
                        throw new java.util.concurrent.CompletionException(
                                new IOException("webhook " + url + " answered HTTP " + status));
                    }
                    return null;
                });
    }

    String body(JobContext context) throws IOException {
        ObjectNode body = json.createObjectNode();
        body.put("instanceId", Long.toString(context.instanceId()));
        body.put("jobId", Long.toString(context.jobId()));
        body.put("jobName", context.jobName());
        if (context.params() == null) {
            body.putNull("params");
        } else {
            try {
                body.set("params", json.readTree(context.params()));
            } catch (IOException notJson) {
                body.put("params", context.params());
            }
        }
        body.put("expectedTriggerTime", context.expectedTriggerTime().toString());
        body.put("attempt", context.attempt());
        return json.writeValueAsString(body);
    }

    @Override
    public void close() {
        // the JDK client closes with its last reference
    }
}
