package dev.tickwheel.server;

import dev.tickwheel.server.cluster.ClusterBus;
import dev.tickwheel.server.cluster.ClusterEvent;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.CallbackTokens;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.dispatch.webhook.WebhookSigner;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.store.CallbackAttempt;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles the attempts of jobs that complete by callback ({@code Completion.Mode.CALLBACK}): a target's report to its
 * callback URL, taken by whichever member it reaches ({@link #report}), and the deadline of a report that never came,
 * checked by the owner of the instance's shard every loader period ({@link #sweep}).
 *
 * <p>A report names its attempt by the token in the URL ({@link CallbackTokens}); every write is a compare-and-set on
 * that attempt ({@link InstanceStore#callbackSucceeded} and the others), so a report, a repeat of it, a heartbeat and
 * the deadline can race on any members and exactly one settles the attempt. What follows a settle is done by the
 * member that wrote it: a retry is armed by the shard's owner ({@link ShardOwner#stored}, a prompt if that is another
 * member), a final outcome tells the listeners (metrics, alerts, fixed-delay follow-ups), and the job slot the
 * owner kept for the work is freed (here, or by a prompt; the owner's reconciliation catches a lost one).
 *
 * <p>Thread-safe: {@link #report} runs on API threads, {@link #sweep} on the loader thread.
 */
public final class CallbackService {

    /** The header of a signed report's Unix time in seconds, as on the job's calls. */
    public static final String TIMESTAMP_HEADER = WebhookSigner.TIMESTAMP_HEADER;
    /** The header of a signed report's signature, as on the job's calls. */
    public static final String SIGNATURE_HEADER = WebhookSigner.SIGNATURE_HEADER;
    /** How far a signed report's timestamp may be from this member's clock. */
    public static final Duration SIGNATURE_TOLERANCE = Duration.ofMinutes(5);
    /** Timed-out callbacks settled per store read by {@link #sweep}. */
    static final int SWEEP_PAGE = 500;

    private static final Logger log = LoggerFactory.getLogger(CallbackService.class);

    /** What a target reports. */
    public enum Outcome {
        /** The work is done; the instance succeeds, with the report's output. */
        SUCCEEDED,
        /** The work failed; the attempt fails with the report's error, and the job's retry policy applies. */
        FAILED,
        /** Still working: the deadline moves a callback time-out from now. */
        RUNNING
    }

    /**
     * A target's report.
     *
     * @param outcome what happened
     * @param error   for FAILED, why (stored as the attempt's error); may be null
     * @param output  for SUCCEEDED, the output (one JSON value, see {@code InstanceOutput}); may be null
     */
    public record Report(Outcome outcome, String error, String output) {
        public Report {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * The signature headers of a report and the exact body they sign, for a job with a signing secret.
     *
     * @param timestamp the {@code Tickwheel-Timestamp} header, or null
     * @param signature the {@code Tickwheel-Signature} header, or null
     * @param body      the raw request body
     */
    public record Signed(String timestamp, String signature, byte[] body) {
    }

    /** How a report was taken. */
    public enum Verdict {
        /** Applied: the attempt is settled (or, for RUNNING, its deadline moved). */
        APPLIED,
        /** The token is not one this cluster issued. */
        INVALID_TOKEN,
        /** The job signs its calls, and the report's signature is missing, wrong or stale. */
        BAD_SIGNATURE,
        /** No such instance (or its job is gone). */
        UNKNOWN_INSTANCE,
        /**
         * The attempt the token names is over: reported already (a replay), retried, claimed again after a take-over,
         * or finished otherwise.
         */
        STALE,
        /** The deadline passed before the report came; the attempt fails (or has failed) as timed out. */
        LATE
    }

    /**
     * The answer to a report.
     *
     * @param verdict  how it was taken
     * @param instance the instance after the report (after a refusal, as it is), or null if unknown
     */
    public record Result(Verdict verdict, Instance instance) {
    }

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final InstanceDispatcher dispatcher;
    private final ShardOwner owner;
    private final ShardOwnership ownership;
    private final ClusterBus bus;
    private final CallbackTokens tokens;
    private final WebhookSigner signer;
    private final DispatchListener listener;
    private final InstanceDispatcher.CompletionListener completions;
    private final Clock clock;
    private final LongSupplier ids;

    CallbackService(InstanceStore instances, JobCatalog jobs, InstanceDispatcher dispatcher, ShardOwner owner,
                    ShardOwnership ownership, ClusterBus bus, CallbackTokens tokens, WebhookSigner signer,
                    DispatchListener listener, InstanceDispatcher.CompletionListener completions, Clock clock,
                    LongSupplier ids) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.bus = Objects.requireNonNull(bus, "bus");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.signer = Objects.requireNonNull(signer, "signer");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.completions = Objects.requireNonNull(completions, "completions");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ids = Objects.requireNonNull(ids, "ids");
    }

    /**
     * Takes a target's report for the attempt {@code token} names. Any member may take it.
     *
     * @param signed the report's signature headers and raw body (checked only if the job has a signing secret)
     */
    public Result report(String token, Report report, Signed signed) {
        Optional<CallbackAttempt> named = tokens.verify(token);
        if (named.isEmpty()) {
            return new Result(Verdict.INVALID_TOKEN, null);
        }
        CallbackAttempt attempt = named.get();
        Optional<Instance> row = instances.get(attempt.instanceId());
        Optional<Job> job = row.flatMap(r -> jobs.get(r.jobId()));
        if (row.isEmpty() || job.isEmpty()) {
            return new Result(Verdict.UNKNOWN_INSTANCE, row.orElse(null));
        }
        String secret = job.get().operations().signingSecret();
        if (secret != null && (signed == null || !signer.verify(secret, signed.timestamp(), signed.signature(),
                signed.body(), SIGNATURE_TOLERANCE))) {
            return new Result(Verdict.BAD_SIGNATURE, null);
        }
        Instance instance = row.get();
        Verdict early = refusal(instance, attempt);
        if (early != null) {
            return new Result(early, instance);
        }
        boolean applied = switch (report.outcome()) {
            case SUCCEEDED -> succeed(instance, job.get(), attempt, report.output());
            case FAILED -> fail(instance, job.get(), attempt, false,
                    report.error() == null || report.error().isBlank() ? "the target reported FAILED"
                            : report.error());
            case RUNNING -> heartbeat(instance, job.get(), attempt);
        };
        Instance after = instances.get(attempt.instanceId()).orElse(instance);
        if (applied) {
            return new Result(Verdict.APPLIED, after);
        }
        // Lost a race: with another report, a repeat of this one, the deadline, or a claim after a take-over.
        Verdict refused = refusal(after, attempt);
        return new Result(refused != null ? refused : Verdict.STALE, after);
    }

    /** Why a report for {@code attempt} cannot apply to the row as it is, or null if it can. */
    private Verdict refusal(Instance instance, CallbackAttempt attempt) {
        if (instance.status() != InstanceStatus.DISPATCHING || instance.attempt() != attempt.attempt()
                || instance.claimEpoch() != attempt.claimEpoch()) {
            return Verdict.STALE;
        }
        Instant deadline = instance.callbackDeadline();
        return deadline != null && !clock.instant().isBefore(deadline) ? Verdict.LATE : null;
    }

    private boolean succeed(Instance instance, Job job, CallbackAttempt attempt, String output) {
        Optional<List<Instance>> next = instances.callbackSucceeded(attempt, output, ids);
        if (next.isEmpty()) {
            return false;
        }
        next.get().forEach(owner::stored); // a workflow's next steps, armed by their owners
        listener.callbackSettled("SUCCEEDED");
        listener.succeeded(job.target().type());
        log.debug("instance {} of job {} succeeded by its callback (attempt {})", instance.id(), job.id(),
                attempt.attempt());
        ended(instance, job);
        completed(job, instance);
        return true;
    }

    /**
     * Fails the attempt, reported ({@code timedOut} false) or past its deadline (true): a retry if the job's policy
     * allows another attempt, else FAILED.
     */
    private boolean fail(Instance instance, Job job, CallbackAttempt attempt, boolean timedOut, String error) {
        if (job.retryPolicy().allowsAnotherAttempt(attempt.attempt())) {
            Instant next = clock.instant().plusMillis(
                    job.retryPolicy().delayAfterAttempt(instance.id(), attempt.attempt()));
            if (!instances.callbackRetry(attempt, timedOut, next, error)) {
                return false;
            }
            listener.callbackSettled(timedOut ? "TIMED_OUT" : "FAILED");
            listener.retried(job.target().type());
            log.warn("instance {} of job {} failed (attempt {} of {}, {}), retrying at {}: {}", instance.id(),
                    job.id(), attempt.attempt(), job.retryPolicy().maxAttempts(),
                    timedOut ? "no callback in time" : "reported by callback", next, error);
            ended(instance, job);
            instances.get(instance.id()).ifPresent(owner::stored); // armed by the shard's owner
            return true;
        }
        Optional<List<Instance>> next = instances.callbackFailed(attempt, timedOut, error, ids);
        if (next.isEmpty()) {
            return false;
        }
        next.get().forEach(owner::stored);
        listener.callbackSettled(timedOut ? "TIMED_OUT" : "FAILED");
        listener.failed(job.target().type());
        log.warn("instance {} of job {} failed after {} attempt(s) ({}): {}", instance.id(), job.id(),
                attempt.attempt(), timedOut ? "no callback in time" : "reported by callback", error);
        try {
            listener.instanceEnded(job, instance, InstanceStatus.FAILED, error);
        } catch (RuntimeException e) { // a listener must not throw; if one does, the settle stands
            log.error("the dispatch listener threw for instance {}", instance.id(), e);
        }
        ended(instance, job);
        completed(job, instance);
        return true;
    }

    private boolean heartbeat(Instance instance, Job job, CallbackAttempt attempt) {
        Instant deadline = clock.instant().plusMillis(job.delivery().completion().callbackTimeoutMs());
        if (!instances.callbackHeartbeat(attempt, deadline)) {
            return false;
        }
        listener.callbackSettled("RUNNING");
        log.debug("instance {} of job {}: heartbeat, report due by {}", instance.id(), job.id(), deadline);
        return true;
    }

    /** The attempt no longer awaits a callback: the owner frees the job slot it kept for it. */
    private void ended(Instance instance, Job job) {
        dispatcher.callbackEnded(instance.id());
        if (job.delivery().limitsConcurrency() && !ownership.holds(instance.shard())) {
            bus.publish(new ClusterEvent.CallbackSettled(instance.id()));
        }
    }

    /** Tells the completion listener (fixed-delay follow-ups); its failure is logged, never the settle's. */
    private void completed(Job job, Instance instance) {
        try {
            completions.completed(job, instance, clock.instant());
        } catch (RuntimeException e) {
            log.error("completion of instance {} failed", instance.id(), e);
        }
    }

    /**
     * Fails, as timed out, the attempts of the held shards whose callback deadline has passed, then makes the job
     * slots kept for awaited callbacks match the store. Runs on the loader thread every loader period.
     *
     * @return attempts settled as timed out
     */
    int sweep() {
        int settled = 0;
        Instant now = clock.instant();
        List<Instance> due;
        int settledBefore;
        do {
            settledBefore = settled;
            due = instances.findTimedOutCallbacks(now, SWEEP_PAGE);
            for (Instance instance : due) {
                Optional<Job> job = jobs.get(instance.jobId());
                CallbackAttempt attempt = new CallbackAttempt(instance.id(), instance.attempt(),
                        instance.claimEpoch());
                if (job.isEmpty()) {
                    // A deleted job's instance: nothing to retry; it fails rather than awaiting forever.
                    if (instances.callbackFailed(attempt, true, "job " + instance.jobId() + " no longer exists", ids)
                            .isPresent()) {
                        dispatcher.callbackEnded(instance.id());
                        settled++;
                    }
                    continue;
                }
                long timeoutMs = job.get().delivery().completion().callbackTimeoutMs();
                if (fail(instance, job.get(), attempt, true, "no callback report within "
                        + (timeoutMs > 0 ? timeoutMs + " ms" : "the job's callback time-out")
                        + " of the target's answer or its last heartbeat")) {
                    settled++;
                }
            }
        } while (due.size() == SWEEP_PAGE && settled > settledBefore); // a page that settled nothing would repeat
        long readStart = System.nanoTime();
        dispatcher.reconcileCallbacks(readStart, instances.findAwaitingCallbacksOfLimitedJobs());
        return settled;
    }
}
