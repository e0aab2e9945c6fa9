package dev.tickwheel.server.dispatch.alert;

import com.fasterxml.jackson.core.JsonFactory;
import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.webhook.WebhookTransport;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends failure alerts: POSTs a JSON message ({@link Alert}) to the job's {@code alertUrl}, or else to the server's
 * {@link AlertSettings#url()}; a job with neither gets no alert.
 *
 * <pre>
 *  outcome / loader thread ─► {@link #instanceEnded} / {@link #misfiresDropped}: FAILED or SKIP only; stamp the time
 *                             │ more than {@value #DEFAULT_QUEUE_CAPACITY} alerts pending? ─► dropped (counted)
 *                             ▼
 *  tickwheel-alert-1 ──────► destination (job URL + job secret, else server URL + alert-secret, else none)
 *                             ─► {@link AlertRules}: threshold window (FAILED adds one; at the threshold, a
 *                                FAILURE_THRESHOLD alert too), rate limit per job and kind (suppressed: counted)
 *                             ─► POST on the webhook transport, whole-call deadline, Idempotency-Key, signed
 *                             ─► 2xx: sent | else retry after 1 s, 4 s, 16 s (same key, signed afresh) | failed
 * </pre>
 *
 * <p>Alerting never slows dispatch: the engine's threads only stamp the time and hand the event over (no I/O, no
 * lock held for long); everything else runs on the alert thread and the HTTP client's I/O threads. The calls go out on
 * a {@link WebhookTransport} of the alerter's own (the same code as instance calls, not the same connection pool), so
 * an alert receiver that hangs holds no connection an instance call could use.
 *
 * <p>Every alert that has a destination ends exactly once: {@link AlertOutcome#SENT}, {@link AlertOutcome#FAILED},
 * {@link AlertOutcome#SUPPRESSED} or {@link AlertOutcome#DROPPED}, told to the {@link AlertListener}.
 *
 * <p>In a cluster, the member that writes an instance's end (the owner of the instance's shard) alerts; a job's
 * failures are counted by each member that writes some of them (one member for a job that keeps one owner, each of
 * its members' shares for a job that spreads its instances), so a shard moving starts that member's window afresh.
 *
 * <p>Thread-safe: {@link #instanceEnded} and {@link #misfiresDropped} from any thread; {@link AlertRules} and the
 * starting of calls are confined to the alert thread.
 *
 * <p>Caveats: alerts live in memory only. A crash, or a stop while alerts wait in the queue or for a retry, loses
 * them (a stop counts them as dropped); they are not written to the store and not sent again after a restart.
 */
public final class Alerter implements DispatchListener, AutoCloseable {

    /** Alerts waiting or being delivered, at most: beyond this, new ones are dropped. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1000;
    /** The pauses before the retries of an alert whose call failed; then it is given up. */
    static final List<Duration> RETRY_BACKOFFS = List.of(Duration.ofSeconds(1), Duration.ofSeconds(4),
            Duration.ofSeconds(16));
    /** How long {@link #close()} lets queued alerts be handled and calls in flight end. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(Alerter.class);

    /** Starts one POST: {@link WebhookTransport#postJson}, or a fake in tests. */
    @FunctionalInterface
    interface Poster {
        CompletableFuture<?> post(String url, Map<String, String> headers, byte[] body, Duration timeout,
                                     String signingSecret);
    }

    /** Runs the alerter's tasks one at a time: the alert thread, or the test's own hand. */
    interface Worker {
        /** @throws RejectedExecutionException once shut down */
        void execute(Runnable task);

        /** @throws RejectedExecutionException once shut down */
        void schedule(Runnable task, Duration delay);

        /** Runs the tasks already handed over (not the scheduled ones) for up to {@code wait}, then stops. */
        void shutdown(Duration wait) throws InterruptedException;
    }

    /** Where a job's alerts go, and the secret they are signed with (null: unsigned). */
    private record Destination(String url, String secret) {
    }

    /**
     * One alert on its way: the same body and key for every attempt. Identity equality ({@link #retrying} holds each
     * delivery once). Immutable.
     */
    private static final class Delivery {
        private final Alert alert;
        private final Destination destination;
        private final Map<String, String> headers;
        private final byte[] body;

        Delivery(Alert alert, Destination destination, Map<String, String> headers, byte[] body) {
            this.alert = alert;
            this.destination = destination;
            this.headers = headers;
            this.body = body;
        }

        Alert alert() {
            return alert;
        }

        Destination destination() {
            return destination;
        }

        Map<String, String> headers() {
            return headers;
        }

        byte[] body() {
            return body;
        }
    }

    private final AlertSettings settings;
    private final int node;
    private final Clock clock;
    private final Poster poster;
    private final Duration callTimeout;
    private final AlertListener listener;
    private final Worker worker;
    private final int capacity;
    private final List<Duration> backoffs;
    private final JsonFactory json = new JsonFactory();
    /** Confined to the alert thread. */
    private final AlertRules rules;
    /** Alerts handed over and not yet ended (queued, being delivered, waiting for a retry): the bound. */
    private final AtomicInteger pending = new AtomicInteger();
    /**
     * Deliveries waiting for a retry. Whoever removes one (its retry task, or {@link #close()}) owns it, so a retry
     * that races the stop either runs or is counted dropped, never both.
     */
    private final Set<Delivery> retrying = ConcurrentHashMap.newKeySet();
    /** Dropped because the queue was full, since start; read to log only every so often. */
    private final AtomicLong droppedFull = new AtomicLong();
    // volatile: set by close(), read by the engine's threads at hand-over.
    private volatile boolean closed;

    /**
     * @param node        this server's node id, sent in every alert
     * @param clock       stamps alerts, and drives the threshold window and the rate limit
     * @param transport   sends the alerts (signing them where a secret applies); owned by the caller
     * @param callTimeout the whole-call deadline of each alert call
     */
    public Alerter(AlertSettings settings, int node, Clock clock, WebhookTransport transport, Duration callTimeout,
                   AlertListener listener) {
        this(settings, node, clock, transport::postJson, callTimeout, listener, new ThreadWorker(),
                DEFAULT_QUEUE_CAPACITY, RETRY_BACKOFFS);
    }

    Alerter(AlertSettings settings, int node, Clock clock, Poster poster, Duration callTimeout,
            AlertListener listener, Worker worker, int capacity, List<Duration> backoffs) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.node = node;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.poster = Objects.requireNonNull(poster, "poster");
        this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.worker = Objects.requireNonNull(worker, "worker");
        this.capacity = capacity;
        this.backoffs = List.copyOf(backoffs);
        this.rules = new AlertRules(settings.failureWindow(), settings.minInterval());
    }

    /** Alerts an instance that ended FAILED; INTERRUPTED (and anything else) does not alert. Never blocks. */
    @Override
    public void instanceEnded(Job job, Instance instance, InstanceStatus status, String error) {
        if (status == InstanceStatus.FAILED) {
            handOver(Alert.instanceFailed(job, instance, error, clock.instant()));
        }
    }

    /** Alerts missed triggers dropped by the policy SKIP (FIRE_ONCE_NOW's collapsed ones do not alert). */
    @Override
    public void misfiresDropped(Job job, int count, Instant firstMissed) {
        if (job.misfirePolicy() == MisfirePolicy.SKIP && count > 0) {
            handOver(Alert.misfireSkipped(job, count, firstMissed, clock.instant()));
        }
    }

    private void handOver(Alert alert) {
        if (closed) {
            listener.alertEnded(alert.kind(), AlertOutcome.DROPPED);
            return;
        }
        if (pending.incrementAndGet() > capacity) {
            pending.decrementAndGet();
            droppedFull(alert);
            return;
        }
        try {
            worker.execute(() -> handle(alert));
        } catch (RejectedExecutionException stopped) {
            ended(alert, AlertOutcome.DROPPED);
        }
    }

    private void droppedFull(Alert alert) {
        long dropped = droppedFull.incrementAndGet();
        if (dropped == 1 || dropped % 100 == 0) { // a flood of drops must not become a flood of log lines
            log.warn("alert queue full ({} alerts pending): {} of job {} dropped ({} dropped since start)",
                    capacity, alert.kind(), alert.job().id(), dropped);
        }
        listener.alertEnded(alert.kind(), AlertOutcome.DROPPED);
    }

    /** Runs on the alert thread: the rules, then the call. */
    private void handle(Alert alert) {
        boolean admitted = false;
        try {
            Destination destination = destinationOf(alert.job());
            if (destination == null) {
                pending.decrementAndGet(); // nowhere to go: no alert at all, nothing counted
                return;
            }
            admit(alert, destination);
            admitted = true;
            if (alert.kind() == AlertKind.INSTANCE_FAILED) {
                int inWindow = rules.failed(alert.job().id(), alert.occurredAt());
                if (inWindow >= settings.failureThreshold()) {
                    pending.incrementAndGet(); // one more alert from this event; may pass the bound by these few
                    admit(Alert.failureThreshold(alert.job(), inWindow, rules.windowStart(alert.occurredAt()),
                            alert.error(), alert.occurredAt()), destination);
                }
            }
        } catch (RuntimeException e) { // a bug: the alert thread goes on
            log.error("alert {} could not be handled", alert.idempotencyKey(), e);
            if (!admitted) {
                ended(alert, AlertOutcome.FAILED);
            }
        }
    }

    /** The job's own URL and secret, else the server's URL and alert secret, else null. */
    private Destination destinationOf(Job job) {
        JobOperations operations = job.operations();
        if (operations.alertUrl() != null) {
            return new Destination(operations.alertUrl(), operations.signingSecret());
        }
        return settings.url() == null ? null : new Destination(settings.url(), settings.secret());
    }

    /** Runs on the alert thread: the rate limit decides; an alert that passes is sent. */
    private void admit(Alert alert, Destination destination) {
        int suppressedBefore = rules.admit(alert.job().id(), alert.kind(), alert.occurredAt());
        if (suppressedBefore < 0) {
            log.debug("alert {} suppressed: job {} had a {} alert less than {} ago", alert.idempotencyKey(),
                    alert.job().id(), alert.kind(), settings.minInterval());
            ended(alert, AlertOutcome.SUPPRESSED);
            return;
        }
        byte[] body = alert.body(json, suppressedBefore, node);
        attempt(new Delivery(alert, destination, Map.of("Idempotency-Key", alert.idempotencyKey()), body), 1);
    }

    /** Runs on the alert thread: starts attempt {@code number} (1 = the first call) of a delivery. */
    private void attempt(Delivery delivery, int number) {
        CompletableFuture<?> call;
        try {
            call = poster.post(delivery.destination().url(), delivery.headers(), delivery.body(), callTimeout,
                    delivery.destination().secret());
        } catch (RuntimeException e) { // a poster must not throw; if one does, the attempt failed
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((ok, failure) -> attemptEnded(delivery, number, failure));
    }

    /** Runs where the call ended (an I/O thread): done, or a retry on the alert thread after its pause. */
    private void attemptEnded(Delivery delivery, int number, Throwable failure) {
        Alert alert = delivery.alert();
        if (failure == null) {
            log.info("alert {} sent to {}", alert.idempotencyKey(), delivery.destination().url());
            ended(alert, AlertOutcome.SENT);
            return;
        }
        if (number > backoffs.size()) {
            log.warn("alert {} to {} failed {} times; given up: {}", alert.idempotencyKey(),
                    delivery.destination().url(), number, describe(failure));
            ended(alert, AlertOutcome.FAILED);
            return;
        }
        Duration pause = backoffs.get(number - 1);
        log.info("alert {} to {} failed (attempt {}); retrying in {} ms: {}", alert.idempotencyKey(),
                delivery.destination().url(), number, pause.toMillis(), describe(failure));
        retrying.add(delivery);
        try {
            worker.schedule(() -> {
                if (retrying.remove(delivery)) {
                    attempt(delivery, number + 1);
                }
            }, pause);
        } catch (RejectedExecutionException stopped) {
            if (retrying.remove(delivery)) {
                ended(alert, AlertOutcome.DROPPED);
            }
        }
    }

    /** An alert ended: it no longer counts against the bound. */
    private void ended(Alert alert, AlertOutcome outcome) {
        pending.decrementAndGet();
        listener.alertEnded(alert.kind(), outcome);
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /**
     * Stops taking alerts, handles those already queued and lets calls in flight end for up to two seconds; alerts
     * waiting for a retry are dropped (counted). Close the transport after this. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        try {
            worker.shutdown(CLOSE_WAIT);
            // Calls in flight: the pending alerts that are not waiting for a retry.
            while (pending.get() > retrying.size() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int dropped = 0;
        for (Delivery delivery : retrying) {
            if (retrying.remove(delivery)) {
                ended(delivery.alert(), AlertOutcome.DROPPED);
                dropped++;
            }
        }
        if (dropped > 0 || pending.get() > 0) {
            log.warn("alerter stopped: {} alerts waiting for a retry dropped, {} calls still in flight (they end"
                    + " as the transport closes); alerts are kept in memory only", dropped, pending.get());
        }
    }

    /** The alert thread, {@code tickwheel-alert-1}: immediate tasks in order, retries after their pause. */
    private static final class ThreadWorker implements Worker {
        private final ScheduledThreadPoolExecutor executor =
                new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("alert", true));

        ThreadWorker() {
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // pending retries end at stop
            executor.setRemoveOnCancelPolicy(true);
        }

        @Override
        public void execute(Runnable task) {
            executor.execute(guarded(task));
        }

        @Override
        public void schedule(Runnable task, Duration delay) {
            executor.schedule(guarded(task), delay.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void shutdown(Duration wait) throws InterruptedException {
            executor.shutdown();
            executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** The executor would keep a task's exception in its future, where nobody looks: log it instead. */
        private static Runnable guarded(Runnable task) {
            return () -> {
                try {
                    task.run();
                } catch (Throwable t) {
                    log.error("alert task failed", t);
                }
            };
        }
    }
}
