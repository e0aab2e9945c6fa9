package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import dev.tickwheel.concurrent.NamedThreadFactory;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms instances on the time wheel and dispatches them when they fire, exactly once.
 *
 * <p>When an instance fires, its ID goes to the {@link ClaimBatcher}, which claims it in the store with one
 * compare-and-set ({@code WAITING → DISPATCHING}), batched with whatever else fired meanwhile, and gets the claimed row
 * back. The target runs on a target thread ({@code tickwheel-target-N}); successes are recorded in batches by the
 * {@link OutcomeRecorder}, failures one by one here. Only the winner calls the target; a cancelled instance, or one another node claimed,
 * loses the claim and is never dispatched, even if its timer fired in the same millisecond as the cancel. The outcome
 * is recorded as SUCCEEDED, FAILED, or WAITING again with a backoff when the job's retry policy allows another
 * attempt; the retry is armed on the wheel directly.
 *
 * <p>Delivery: the claim makes dispatch exactly-once per attempt. A target that crashes mid-call, or a server that
 * stops between the call and the outcome write, leaves the instance DISPATCHING; recovery retries it, so such a target
 * can see the instance twice (at-least-once).
 *
 * <p>Thread-safe. {@link #close()} once, after the wheel has stopped firing.
 */
public final class InstanceDispatcher implements AutoCloseable {

    /** Instances claimed but not yet recorded, at most: what a crash can leave DISPATCHING. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 2_048;

    private static final Logger log = LoggerFactory.getLogger(InstanceDispatcher.class);
    private static final int MAX_ERROR_LENGTH = 2000;
    private static final Duration CLAIM_RETRY_DELAY = Duration.ofSeconds(1);

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final TargetInvoker targets;
    private final InstanceTimeWheelService wheel;
    private final Clock clock;
    private final DispatchListener listener;
    private final CompletionListener completions;
    // Permits for instances claimed and not yet recorded; taken by the claim batcher, released when recorded.
    private final Semaphore inFlight = new Semaphore(DEFAULT_MAX_IN_FLIGHT);
    private final ClaimBatcher claims;
    private final ThreadPoolExecutor targetThreads;
    private final OutcomeRecorder outcomes;

    /** Told when an instance reaches a final state, so fixed-delay jobs can plan their next instance. */
    @FunctionalInterface
    public interface CompletionListener {
        void completed(Job job, Instance instance, Instant completedAt);
    }

    public InstanceDispatcher(InstanceStore instances, JobCatalog jobs, TargetInvoker targets,
                              InstanceTimeWheelService wheel, Clock clock, DispatchListener listener,
                              CompletionListener completions) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.targets = Objects.requireNonNull(targets, "targets");
        this.wheel = Objects.requireNonNull(wheel, "wheel");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.completions = Objects.requireNonNull(completions, "completions");
        int threads = 4 * Runtime.getRuntime().availableProcessors();
        // Unbounded queue, bounded in effect by the in-flight permits: the claim thread never blocks on it.
        this.targetThreads = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), new NamedThreadFactory("target", true));
        this.outcomes = new OutcomeRecorder(instances, clock, OutcomeRecorder.DEFAULT_MAX_BATCH, inFlight, listener,
                completions);
        this.claims = new ClaimBatcher(instances, clock, ClaimBatcher.DEFAULT_MAX_BATCH, inFlight,
                this::startTargets,
                listener::claimLost, this::rearmAfterFailedClaim);
    }

    /**
     * Puts a WAITING instance on the wheel for its trigger time (now if that has passed). Arming an instance that is
     * already on the wheel does nothing: the store row is the truth, the wheel entry only a reminder.
     */
    public void arm(long instanceId, Instant triggerTime) {
        // Round up: the wheel takes whole milliseconds, and rounding down would fire up to 1 ms early.
        long delayNanos = Duration.between(clock.instant(), triggerTime).toNanos();
        long delayMs = delayNanos <= 0 ? 0 : (delayNanos + 999_999) / 1_000_000;
        try {
            wheel.schedule(instanceId, delayMs, () -> claims.submit(instanceId));
        } catch (IllegalStateException alreadyArmed) {
            log.debug("instance {} is already armed", instanceId);
        }
    }

    /** Removes the wheel's reminder of an instance the store has just cancelled; frees its memory at once. */
    public void disarm(long instanceId) {
        wheel.cancel(instanceId);
    }

    /** Hands a claimed batch to the target threads, after reading the batch's uncached jobs with one query. */
    private void startTargets(List<Instance> claimed, Instant firedAt) {
        try {
            jobs.prefetch(claimed.stream().map(Instance::jobId).collect(java.util.stream.Collectors.toSet()));
        } catch (RuntimeException e) {
            log.warn("prefetch of the jobs of {} claimed instances failed; each is read on its own", claimed.size(), e);
        }
        for (Instance instance : claimed) {
            targetThreads.execute(() -> runClaimed(instance, firedAt));
        }
    }

    /** Runs the target of a claimed instance and records the outcome. Runs on a target thread. */
    private void runClaimed(Instance instance, Instant firedAt) {
        boolean handedToRecorder = false;
        try {
            listener.fired(Duration.between(instance.expectedTriggerTime(), firedAt));
            Optional<Job> maybeJob = jobs.get(instance.jobId());
            if (maybeJob.isEmpty()) {
                instances.markFailed(instance.id(), "job " + instance.jobId() + " no longer exists");
                return;
            }
            Job job = maybeJob.get();
            JobContext context = new JobContext(instance.id(), job.id(), job.name(),
                    instance.params() != null ? instance.params() : job.params(),
                    instance.expectedTriggerTime(), instance.attempt());
            try {
                targets.invoke(job, context);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                failed(job, instance, e);
                return;
            }
            outcomes.succeeded(job, instance);
            handedToRecorder = true;
        } catch (RuntimeException e) {
            log.error("dispatch of instance {} failed; it stays DISPATCHING until recovery settles it",
                    instance.id(), e);
        } finally {
            if (!handedToRecorder) {
                inFlight.release();
            }
        }
    }

    /** A claim statement failed: nothing was claimed, so the instances are still WAITING; try again shortly. */
    private void rearmAfterFailedClaim(List<Long> instanceIds) {
        Instant retryAt = clock.instant().plus(CLAIM_RETRY_DELAY);
        for (long id : instanceIds) {
            arm(id, retryAt);
        }
    }

    private void failed(Job job, Instance instance, Exception failure) {
        String error = describe(failure);
        if (job.retryPolicy().allowsAnotherAttempt(instance.attempt())) {
            Instant next = clock.instant().plusMillis(job.retryPolicy().backoffMs());
            if (instances.retry(instance.id(), next, error)) {
                listener.retried(job.target().type());
                log.warn("instance {} of job {} failed (attempt {} of {}), retrying at {}: {}", instance.id(),
                        job.id(), instance.attempt(), job.retryPolicy().maxAttempts(), next, error);
                arm(instance.id(), next);
                return;
            }
        }
        instances.markFailed(instance.id(), error);
        listener.failed(job.target().type());
        log.warn("instance {} of job {} failed after {} attempt(s): {}", instance.id(), job.id(), instance.attempt(),
                error);
        completions.completed(job, instance, clock.instant());
    }

    /**
     * Stops claiming (fired but unclaimed instances stay WAITING), lets claimed instances finish for up to 10 s, and
     * writes their outcomes. Call after the wheel has stopped. Idempotent.
     */
    @Override
    public void close() {
        claims.close();
        targetThreads.shutdown();
        try {
            if (!targetThreads.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("target threads still running 10 s after close; their instances stay DISPATCHING");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        outcomes.close();
    }

    static String describe(Throwable failure) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
        return message.length() <= MAX_ERROR_LENGTH ? message : message.substring(0, MAX_ERROR_LENGTH);
    }
}
