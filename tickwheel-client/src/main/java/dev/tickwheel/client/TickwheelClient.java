package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.Caller;
import dev.tickwheel.client.model.ClusterView;
import dev.tickwheel.client.model.Health;
import com.fasterxml.jackson.databind.ObjectReader;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A client of a Tickwheel server's HTTP API ({@code docs/openapi.yaml}): every operation, typed requests and answers,
 * errors as exceptions. Jobs are under {@link #jobs()} (with runs and runs by key), instances under
 * {@link #instances()}, workflows of jobs and their runs under {@link #workflows()}, namespaces, tokens and the
 * audit trail under {@link #namespaces()}, {@link #tokens()} and {@link #audit()}; {@link #whoami()},
 * {@link #health()} and {@link #cluster()} here. Every operation comes in a sync form and an
 * {@code …Async} form returning a {@link CompletableFuture}. A sync call runs on the calling thread, back-offs
 * included; an async call blocks no thread, and its future completes on the client's executor.
 *
 * <pre>{@code
 * try (TickwheelClient client = TickwheelClient.builder("http://127.0.0.1:7700").token(token).build()) {
 *     Job job = client.jobs().create(JobRequest.builder("send report", Schedule.api(),
 *             Target.webhook("https://example.com/hook")).build());
 *     RunResult run = client.jobs().run(job.id(), RunRequest.after(Duration.ofMinutes(30)).withKey("order-1001"));
 *     client.instances().cancel(run.instanceId());
 * }
 * }</pre>
 *
 * <p><b>Errors.</b> A refused call throws a {@link TickwheelException} (unchecked) carrying the HTTP status, the
 * server's error code, field and message: {@link NotFoundException} (404), {@link ConflictException} (409, a cancel
 * or reschedule too late, or a name taken), {@link ValidationException} (400, 413, 422), {@link UnauthorizedException}
 * (401: no token, or a wrong, revoked or expired one; 403: the token's role or namespace is short of the call's),
 * {@link UnavailableException} (503, or no answer at all: connection failure or time-out, once the retries are
 * spent), {@link UnexpectedStatusException} (the rest). A failure is never a flag in a result.
 *
 * <p><b>Retries: only calls that are safe to repeat.</b> The client repeats a call, up to the {@link RetryPolicy}'s
 * attempts with jittered back-off, when no answer came (connection refused, reset or closed before the answer; the
 * request time-out) or the server answered 503; never after any other answer (a 4xx fails the same way again). Safe to
 * repeat, so retried:
 * <ul>
 *   <li>every read ({@code GET}): jobs, instances, runs by key, workflows and their runs, namespaces, tokens, the
 *       audit trail, whoami, cluster, health;
 *   <li>a run with a key: the key is the run's identity in its job, so a repeat answers the instance the first
 *       attempt made ({@code created} false) rather than making another; likewise a workflow's run with a key, in
 *       its workflow;
 *   <li>a batch of runs if every item has a key (an item without one would make a new instance each time);
 *   <li>cancels, by ID, by key and in batches: a repeat of a cancel that took effect answers 409
 *       {@code ALREADY_FINISHED} with status {@code CANCELLED} (see {@link ConflictException}); a workflow run's
 *       cancel, whose repeat answers the run as it is ({@code CANCELLED});
 *   <li>a reschedule to an instant ({@link dev.tickwheel.client.model.RescheduleRequest#at}); one by a delay is not
 *       repeated, as a repeat would move the instance to "now + delay" again, later than asked;
 *   <li>a token's revoke: revoking a revoked token answers 204 again.
 * </ul>
 * Never retried: a run without a key (of a job or a workflow), a batch with an item without a key, create (of a job,
 * a workflow, a namespace or a token), replace ({@code PUT}), delete, enable and disable. Create and an unkeyed run
 * would make a second job, workflow, instance or workflow run. A token's secret is in its create's answer only, so a
 * lost answer loses it whatever the client does: {@link Tokens} says how to recover. Replace and delete are idempotent
 * in HTTP's sense, yet a repeated {@code PUT} can overwrite a change another caller made between the attempts, and a
 * repeated delete of a job the first attempt deleted answers 404, telling the caller a delete failed that took
 * effect; so they, and enable and disable with them, fail with {@link UnavailableException} on a lost answer and the
 * caller reads the job to see where it stands. No call is ever replayed after a 401 (PowerJob's client replays its
 * POSTs after a re-login): the token supplier is asked again on the next attempt or call.
 *
 * <p><b>Time-outs.</b> Opening a connection is bounded by the connect time-out, each attempt by the request time-out,
 * from sending (waiting for a free pooled connection included) to the whole answer read. A call's worst case is
 * {@code maxAttempts} request time-outs plus the back-offs between them.
 *
 * <p><b>Answers</b> are read leniently: fields the client does not know are ignored and an unknown enum value reads as
 * {@code UNKNOWN}, so a newer server does not break an older client. IDs are {@code long} here and JSON strings on the
 * wire; times are {@link java.time.Instant}s.
 *
 * <p>Thread-safe: one client serves any number of threads and calls at once.
 *
 * <p><b>Transport.</b> Apache HttpClient 5 over HTTP/1.1 keep-alive connections (the server has no HTTP/2): its
 * classic client for the sync calls, each exchange on the calling thread, and its async client for the async ones
 * (started at the first async call, with its I/O threads {@code tickwheel-client-io-<n>}); each has a pool of at most
 * {@link Builder#maxConnections} connections. The attempts' deadlines run on one timer thread
 * ({@code tickwheel-client-deadline-<n>}). Neither client repeats a call by itself; the rules above are the only
 * retries.
 *
 * <p>Caveats: a pooled connection idle for more than a second is checked before it is reused, yet a call can still
 * race the server closing an idle connection; it then fails as {@code connection_failed} though the server never read
 * it: a call that may be repeated is, one that may not reports that it may or may not have been made. An interrupt
 * ends a sync call before an attempt or during a back-off, not while it waits for an answer (the request time-out
 * bounds that wait).
 */
public final class TickwheelClient implements AutoCloseable {
    /** The default bound on opening a connection: 2 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The default bound on each attempt, from sending it to its whole answer: 10 s. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** The largest connect or request time-out a builder takes: 1 h. */
    public static final Duration MAX_TIMEOUT = Duration.ofHours(1);
    /** The default cap on connections to the server, per form (sync, async): 128. */
    public static final int DEFAULT_MAX_CONNECTIONS = 128;
    /** The largest connection cap a builder takes. */
    public static final int MAX_CONNECTIONS_LIMIT = 10_000;
    private static final AtomicInteger CLIENTS = new AtomicInteger(); // numbers the default executors' threads

    private final ClientSettings settings;
    private final ApiTransport transport;
    private final Jobs jobs;
    private final Instances instances;
    private final Calendars calendars;
    private final Pools pools;
    private final Workflows workflows;
    private final Namespaces namespaces;
    private final Tokens tokens;
    private final Audit audit;
    private final ObjectReader callerReader;
    private final ObjectReader healthReader;
    private final ObjectReader clusterReader;

    private TickwheelClient(ClientSettings settings, ApiTransport transport, ObjectMapper json) {
        this.settings = settings;
        this.transport = transport;
        this.jobs = new Jobs(transport, json);
        this.instances = new Instances(transport, json);
        this.calendars = new Calendars(transport, json);
        this.pools = new Pools(transport, json);
        this.workflows = new Workflows(transport, json);
        this.namespaces = new Namespaces(transport, json);
        this.tokens = new Tokens(transport, json);
        this.audit = new Audit(transport, json);
        this.callerReader = json.readerFor(Caller.class);
        this.healthReader = json.readerFor(Health.class);
        this.clusterReader = json.readerFor(ClusterView.class);
    }

    /** A builder of a client of the server at {@code baseUri}, e.g. {@code http://127.0.0.1:7700}. */
    public static Builder builder(String baseUri) {
        return new Builder(URI.create(Objects.requireNonNull(baseUri, "baseUri")));
    }

    /** A builder of a client of the server at {@code baseUri}. */
    public static Builder builder(URI baseUri) {
        return new Builder(Objects.requireNonNull(baseUri, "baseUri"));
    }

    /** Jobs, their runs, and runs by key. */
    public Jobs jobs() {
        return jobs;
    }

    /** Instances by ID: read, list, cancel, reschedule. */
    public Instances instances() {
        return instances;
    }

    /** Calendars of excluded days: create, list, read, delete. */
    public Calendars calendars() {
        return calendars;
    }

    /** Pools of concurrency and rate that jobs share: create, list, read, replace, delete. */
    public Pools pools() {
        return pools;
    }

    /** Workflows of jobs (a DAG of nodes and edges) and their runs: create, list, read, run, read a run, cancel it. */
    public Workflows workflows() {
        return workflows;
    }

    /** Namespaces, which group one team's jobs and their instances: create, list. */
    public Namespaces namespaces() {
        return namespaces;
    }

    /** API tokens with roles: create (the secret is shown once), list, read, revoke. */
    public Tokens tokens() {
        return tokens;
    }

    /** The audit trail of changes: list, newest first, filtered and paged. */
    public Audit audit() {
        return audit;
    }

    /** {@code GET /api/whoami}: the name, namespace and role of the client's token. */
    public Caller whoami() {
        return transport.call(ApiCall.get("/api/whoami", callerReader));
    }

    /** {@link #whoami()}, asynchronously. */
    public CompletableFuture<Caller> whoamiAsync() {
        return transport.send(ApiCall.get("/api/whoami", callerReader));
    }

    /**
     * {@code GET /health}: the server's health, UP or DOWN. A DOWN server answers 503 with the same body, which this
     * returns ({@link Health#up()} false) rather than throws; no answer at all is an {@link UnavailableException}.
     */
    public Health health() {
        return transport.call(healthCall());
    }

    /** {@link #health()}, asynchronously. */
    public CompletableFuture<Health> healthAsync() {
        return transport.send(healthCall());
    }

    private ApiCall<Health> healthCall() {
        return new ApiCall<>("GET", "/health", null, true, Set.of(200, 503), healthReader);
    }

    /** {@code GET /api/cluster}: the members and shard leases as the store sees them. */
    public ClusterView cluster() {
        return transport.call(ApiCall.get("/api/cluster", clusterReader));
    }

    /** {@link #cluster()}, asynchronously. */
    public CompletableFuture<ClusterView> clusterAsync() {
        return transport.send(ApiCall.get("/api/cluster", clusterReader));
    }

    /** The effective configuration. */
    public ClientSettings settings() {
        return settings;
    }

    /**
     * Refuses new calls (they fail with {@link IllegalStateException}); calls in flight end as they would, retries
     * included, and the connections and threads go once the last has ended. Idempotent.
     */
    @Override
    public void close() {
        transport.close();
    }

    @Override
    public String toString() {
        return "TickwheelClient" + settings;
    }

    /**
     * Builds a {@link TickwheelClient}. Every setter checks its value and names it when it refuses one;
     * {@link #build()} checks the rules between them.
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {

        private final URI baseUri;
        private Supplier<String> tokens;
        private Duration connectTimeout;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private RetryPolicy retry = RetryPolicy.DEFAULTS;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Executor executor;

        private Builder(URI baseUri) {
            this.baseUri = baseUri;
        }

        /**
         * A fixed bearer token, sent with every call: once the server has any token, every call but
         * {@link TickwheelClient#health()} needs one, reads too.
         */
        public Builder token(String token) {
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("token must not be blank: "
                        + (token == null ? null : "'" + token + "'"));
            }
            this.tokens = () -> token;
            return this;
        }

        /**
         * Where each attempt takes its bearer token: called once per attempt, so a rotated token is used from the
         * next attempt on. It may return null or blank for none; it must not block long, as it runs on the calling
         * thread (or, for an async call's retry, on the executor).
         */
        public Builder tokenSupplier(Supplier<String> tokens) {
            this.tokens = Objects.requireNonNull(tokens, "tokenSupplier");
            return this;
        }

        /** The bound on opening a connection, default {@link TickwheelClient#DEFAULT_CONNECT_TIMEOUT}. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = checkedTimeout("connectTimeout", timeout);
            return this;
        }

        /**
         * The bound on each attempt, from sending to the whole answer; default
         * {@link TickwheelClient#DEFAULT_REQUEST_TIMEOUT}.
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = checkedTimeout("requestTimeout", timeout);
            return this;
        }

        /** How calls that are safe to repeat are repeated: {@link RetryPolicy#DEFAULTS} unless set. */
        public Builder retryPolicy(RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retryPolicy");
            return this;
        }

        /**
         * The most connections to the server at once, per form: the sync calls share one pool of them, the async
         * calls another. Default {@link TickwheelClient#DEFAULT_MAX_CONNECTIONS}; a call that finds every connection
         * busy waits for one, within its request time-out.
         */
        public Builder maxConnections(int maxConnections) {
            if (maxConnections < 1 || maxConnections > MAX_CONNECTIONS_LIMIT) {
                throw new IllegalArgumentException("maxConnections must be in 1.." + MAX_CONNECTIONS_LIMIT + ": "
                        + maxConnections);
            }
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * Runs the async calls' completions (and so their dependent stages) and their retries. Default: the client's
         * own pool of daemon threads ({@code tickwheel-client-async-<n>-<m>}, made as needed, gone after 60 s idle).
         * Not shut down by {@link TickwheelClient#close()}; one that refuses a task fails the call it was for.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** @throws IllegalArgumentException if the base URI is not an absolute http(s) URI without query or fragment */
        public TickwheelClient build() {
            String scheme = baseUri.getScheme();
            if (!baseUri.isAbsolute() || baseUri.getHost() == null
                    || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
                throw new IllegalArgumentException("baseUri must be an absolute http or https URI such as"
                        + " http://127.0.0.1:7700, got '" + baseUri + "'");
            }
            if (baseUri.getRawQuery() != null || baseUri.getRawFragment() != null) {
                throw new IllegalArgumentException("baseUri must have no query or fragment, got '" + baseUri + "'");
            }
            String base = baseUri.toString().replaceAll("/+$", "");
            ClientSettings settings = new ClientSettings(URI.create(base),
                    connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout, requestTimeout, retry,
                    maxConnections, tokens != null);
            ObjectMapper json = ClientJson.newMapper();
            ApiTransport transport = new ApiTransport(settings, base, tokens,
                    executor == null ? defaultExecutor() : executor, json);
            System.getLogger(TickwheelClient.class.getName()).log(System.Logger.Level.DEBUG,
                    () -> "Tickwheel client: " + settings);
            return new TickwheelClient(settings, transport, json);
        }

        /** A cached pool of daemon threads: none while no async call runs, so it needs no shutdown. */
        private static Executor defaultExecutor() {
            String prefix = "tickwheel-client-async-" + CLIENTS.incrementAndGet() + "-";
            AtomicInteger threads = new AtomicInteger();
            return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    task -> {
                        Thread thread = new Thread(task, prefix + threads.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
        }

        private static Duration checkedTimeout(String name, Duration timeout) {
            Objects.requireNonNull(timeout, name);
            if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(name + " must be positive and at most " + MAX_TIMEOUT + ", got "
                        + timeout);
            }
            return timeout;
        }
    }
}
