package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.server.dispatch.TargetInvoker;
import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import dev.tickwheel.server.dispatch.webhook.TransportSettings;
import dev.tickwheel.server.dispatch.webhook.WebhookTransport;
import dev.tickwheel.server.instance.InstanceOutput;
import dev.tickwheel.server.job.Job;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs an instance to its job's WEBHOOK URL as JSON, asynchronously; any 2xx answer is success.
 *
 * <p>Request: {@code POST <url>} over HTTP/1.1 with {@code Content-Type: application/json}, {@code User-Agent:
 * tickwheel}, {@code Idempotency-Key: <instanceId>-<attempt>}, {@code Tickwheel-Instance-Id}, {@code Tickwheel-Job-Id}
 * {@code Tickwheel-Attempt}, and for forensics {@code Tickwheel-Node} and {@code Tickwheel-Epoch} (the member and the
 * shard lease epoch the call was claimed under). Body: {@code {"instanceId", "jobId", "jobName", "key", "params",
 * "expectedTriggerTime", "attempt", "idempotencyKey"}} ({@code key}: the caller's run key, or null), and for a job
 * completing by callback the header {@value #CALLBACK_URL_HEADER} and the same URL as {@code "callbackUrl"}, and for
 * a workflow step {@code "workflowRunId"}, {@code "workflowNode"} and {@code "upstream"} (each parent node's
 * {@code instanceId}, {@code status} and {@code output}). IDs are
 * strings because 64-bit values lose precision as JavaScript numbers;
 * {@code params} is embedded as JSON when it parses as JSON, else as a string.
 *
 * <p>A job with a signing secret ({@code JobOperations#signingSecret}) has every request signed:
 * {@code Tickwheel-Timestamp} and {@code Tickwheel-Signature: v1=<hex HMAC-SHA256>} over the timestamp and the exact
 * body bytes ({@link WebhookSigner}), the timestamp from the builder's {@link Builder#clock clock}, taken as the
 * request is written, so a call made again (after a restart, or on a new connection) is signed afresh with the same
 * Idempotency-Key. Calls of jobs without a secret carry neither header.
 *
 * <p>Each call has a whole-call deadline (connect, request, response headers and body); keeps only the first 8 KiB of
 * the response body (a 2xx body that is one JSON value within them is the attempt's output, {@code Instance#output}); goes once more, on a new connection, if a reused keep-alive connection failed before any
 * response byte arrived (safe: the receiver sees the same Idempotency-Key). Pooled connections idle longer than the
 * idle-eviction time are not used and get closed. How: {@link WebhookTransport}.
 *
 * <p>Thread-safe. The returned futures complete on the client's I/O threads or its deadline thread: dependents must be
 * quick and must not block.
 *
 * <p>Caveats: the pool must never be the tighter bound on calls in flight, so size
 * {@link Builder#maxConnectionsPerHost} at least as large as the dispatcher's per-host limit, and
 * {@link Builder#maxConnections} at least as large as its global limit. A call that waits for a pooled connection
 * spends its own deadline waiting.
 */
public final class WebhookInvoker implements TargetInvoker, AutoCloseable {

    /** The header with the URL where the target of a job completing by callback reports the attempt's outcome. */
    public static final String CALLBACK_URL_HEADER = "Tickwheel-Callback-Url";

    private static final Logger log = LoggerFactory.getLogger(WebhookInvoker.class);

    private final WebhookTransport transport;
    private final ObjectMapper json;

    private WebhookInvoker(Builder config) {
        this.json = config.json;
        this.transport = new WebhookTransport(config.settings(), new WebhookSigner(config.clock), "webhook",
                config.guard);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the call and returns at once. Never throws, except {@link NullPointerException} for a null argument
     * and {@link IllegalArgumentException} for a timeout that is not positive.
     *
     * @param timeout the whole-call deadline
     * @return completes on a 2xx answer, with its body as the output if the body is one JSON value of at most
     *         {@link dev.tickwheel.server.instance.Instance#MAX_OUTPUT_LENGTH} bytes (else null); exceptionally with a
     *         {@link WebhookException} whose message is worth storing as the instance's error otherwise
     */
    @Override
    public CompletableFuture<String> invoke(Job job, JobContext context, Duration timeout) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        String url = job.target().value();
        String idempotencyKey = context.idempotencyKey();
        byte[] body = body(context, idempotencyKey);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Idempotency-Key", idempotencyKey);
        headers.put("Tickwheel-Instance-Id", Long.toString(context.instanceId()));
        headers.put("Tickwheel-Job-Id", Long.toString(context.jobId()));
        headers.put("Tickwheel-Attempt", Integer.toString(context.attempt()));
        headers.put("Tickwheel-Node", Integer.toString(context.node()));
        headers.put("Tickwheel-Epoch", Long.toString(context.epoch()));
        if (context.callbackUrl() != null) {
            headers.put(CALLBACK_URL_HEADER, context.callbackUrl());
        }
        return transport.postJson(url, headers, body, timeout, job.operations().signingSecret())
                .thenApply(InstanceOutput::ofOrNull);
    }

    /**
     * The JSON body, written by a streaming generator: params, stored as JSON text, go in as they are when they are
     * JSON (checked by a streaming parse, no tree), else as a string.
     */
    byte[] body(JobContext context, String idempotencyKey) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("instanceId", Long.toString(context.instanceId()));
            g.writeStringField("jobId", Long.toString(context.jobId()));
            g.writeStringField("jobName", context.jobName());
            g.writeStringField("key", context.key());
            g.writeFieldName("params");
            String params = context.params();
            if (params == null) {
                g.writeNull();
            } else if (InstanceOutput.isOneJsonValue(params)) {
                g.writeRawValue(params);
            } else {
                g.writeString(params);
            }
            g.writeStringField("expectedTriggerTime", context.expectedTriggerTime().toString());
            g.writeNumberField("attempt", context.attempt());
            g.writeStringField("idempotencyKey", idempotencyKey);
            if (context.callbackUrl() != null) {
                g.writeStringField("callbackUrl", context.callbackUrl());
            }
            if (context.workflow() != null) {
                g.writeStringField("workflowRunId", Long.toString(context.workflow().runId()));
                g.writeStringField("workflowNode", context.workflow().node());
                g.writeFieldName("upstream");
                g.writeRawValue(context.workflow().upstream()); // JSON the store wrote
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("a JSON body of strings and numbers could not be written", e);
        }
        return out.toByteArray();
    }

    /** Closes the client and its connections; calls in flight fail with {@link WebhookException.Reason#CLOSED}. */
    @Override
    public void close() {
        transport.close();
    }

    /**
     * Builds a {@link WebhookInvoker}. Setters validate and name the setting and the value. Mutable, not thread-safe.
     */
    public static final class Builder {

        /** Pooled connections, all hosts together. */
        public static final int DEFAULT_MAX_CONNECTIONS = 4096;
        /** Pooled connections to one host (scheme, host and port): as many as in total, the dispatcher bounds it. */
        public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 4096;
        /** Below the 5 s after which Node.js and Apache httpd close idle keep-alive connections. */
        public static final Duration DEFAULT_IDLE_EVICTION = Duration.ofSeconds(2);
        public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
        /** One per core, at most 4: a thread moves tens of thousands of small calls a second. */
        public static final int DEFAULT_IO_THREADS = Math.min(4, Runtime.getRuntime().availableProcessors());

        private static final Duration MAX_DURATION = Duration.ofHours(1);

        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerHost = DEFAULT_MAX_CONNECTIONS_PER_HOST;
        private Duration idleEviction = DEFAULT_IDLE_EVICTION;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private int ioThreads = DEFAULT_IO_THREADS;
        private ObjectMapper json = new ObjectMapper();
        private Clock clock = Clock.systemUTC();
        private OutboundGuard guard = OutboundGuard.OFF;

        private Builder() {
        }

        /** Pooled connections, all hosts together; at least the dispatcher's global limit on calls in flight. */
        public Builder maxConnections(int max) {
            this.maxConnections = atLeastOne("maxConnections", max);
            return this;
        }

        /** Pooled connections to one scheme, host and port; at least the dispatcher's per-host limit. */
        public Builder maxConnectionsPerHost(int max) {
            this.maxConnectionsPerHost = atLeastOne("maxConnectionsPerHost", max);
            return this;
        }

        /** A pooled connection idle this long is no longer used, and is closed within half as long again. */
        public Builder idleEviction(Duration idle) {
            this.idleEviction = between("idleEviction", idle, Duration.ofMillis(1), MAX_DURATION);
            return this;
        }

        /** Longest wait for a connection to open; a call's deadline may cut it shorter. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = between("connectTimeout", timeout, Duration.ofMillis(1), MAX_DURATION);
            return this;
        }

        /** I/O reactor threads. */
        public Builder ioThreads(int threads) {
            this.ioThreads = atLeastOne("ioThreads", threads);
            return this;
        }

        /** Writes the request body; the default is a plain {@link ObjectMapper}. */
        public Builder json(ObjectMapper json) {
            this.json = Objects.requireNonNull(json, "json");
            return this;
        }

        /** The wall clock of the signature timestamps ({@link WebhookSigner}); the default is the system's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Which addresses calls may reach ({@link OutboundGuard}), judged as each connection opens; default
         * {@link OutboundGuard#OFF}.
         */
        public Builder outboundGuard(OutboundGuard guard) {
            this.guard = Objects.requireNonNull(guard, "guard");
            return this;
        }

        /** Builds the invoker and starts its threads; logs the effective configuration once. */
        public WebhookInvoker build() {
            if (maxConnectionsPerHost > maxConnections) {
                throw new IllegalArgumentException("maxConnectionsPerHost (" + maxConnectionsPerHost
                        + ") must not exceed maxConnections (" + maxConnections + ")");
            }
            WebhookInvoker invoker = new WebhookInvoker(this);
            log.info("webhook client: {}, outbound guard {}", settings(), guard);
            return invoker;
        }

        private TransportSettings settings() {
            return new TransportSettings(maxConnections, maxConnectionsPerHost, idleEviction, connectTimeout,
                    ioThreads);
        }

        private static int atLeastOne(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be at least 1: " + value);
            }
            return value;
        }

        private static Duration between(String name, Duration value, Duration min, Duration max) {
            Objects.requireNonNull(value, name);
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be between " + min.toMillis() + " ms and "
                        + max.toMillis() + " ms: " + value.toMillis() + " ms");
            }
            return value;
        }
    }
}
