package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms instances on the time wheel and dispatches them when they fire, exactly once.
 *
 * <p>When an instance fires, {@link #dispatch(long)} claims it in the store with one compare-and-set
 * ({@code WAITING → DISPATCHING}). Only the winner calls the target; a cancelled instance, or one another node claimed,
 * loses the claim and is never dispatched, even if its timer fired in the same millisecond as the cancel. The outcome
 * is recorded as SUCCEEDED, FAILED, or WAITING again with a backoff when the job's retry policy allows another
 * attempt; the retry is armed on the wheel directly.
 *
 * <p>Delivery: the claim makes dispatch exactly-once per attempt. A target that crashes mid-call, or a server that
 * stops between the call and the outcome write, leaves the instance DISPATCHING; recovery retries it, so such a target
 * can see the instance twice (at-least-once).
 *
 * <p>Thread-safe.
 */
public final class InstanceDispatcher {

    private static final Logger log = LoggerFactory.getLogger(InstanceDispatcher.class);
    private static final int MAX_ERROR_LENGTH = 2000;

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final TargetInvoker targets;
    private final InstanceTimeWheelService wheel;
    private final Clock clock;
    private final DispatchListener listener;
    private final CompletionListener completions;

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
    }

    /**
     * Puts a WAITING instance on the wheel for its trigger time (now if that has passed). Arming an instance that is
     * already on the wheel does nothing: the store row is the truth, the wheel entry only a reminder.
     */
    public void arm(long instanceId, Instant triggerTime) {
        long delayMs = Duration.between(clock.instant(), triggerTime).toMillis();
        try {
            wheel.schedule(instanceId, delayMs, () -> dispatch(instanceId));
        } catch (IllegalStateException alreadyArmed) {
            log.debug("instance {} is already armed", instanceId);
        }
    }

    /** Removes the wheel's reminder of an instance the store has just cancelled; frees its memory at once. */
    public void disarm(long instanceId) {
        wheel.cancel(instanceId);
    }

    /** Claims and runs one instance. Runs on the dispatch executor. */
    public void dispatch(long instanceId) {
        Instant firedAt = clock.instant();
        if (!instances.claim(instanceId, firedAt)) {
            log.debug("instance {} not claimed: cancelled, finished or claimed elsewhere", instanceId);
            listener.claimLost();
            return;
        }
        Instance instance = instances.get(instanceId)
                .orElseThrow(() -> new IllegalStateException("claimed instance " + instanceId + " has no row"));
        listener.fired(Duration.between(instance.expectedTriggerTime(), firedAt));
        Optional<Job> maybeJob = jobs.get(instance.jobId());
        if (maybeJob.isEmpty()) {
            instances.markFailed(instanceId, "job " + instance.jobId() + " no longer exists");
            return;
        }
        Job job = maybeJob.get();
        JobContext context = new JobContext(instanceId, job.id(), job.name(),
                instance.params() != null ? instance.params() : job.params(),
                instance.expectedTriggerTime(), instance.attempt());
        try {
            targets.invoke(job, context);
            instances.markSucceeded(instanceId);
            listener.succeeded(job.target().type());
            log.debug("instance {} of job {} succeeded (attempt {})", instanceId, job.id(), instance.attempt());
            completions.completed(job, instance, clock.instant());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            failed(job, instance, e);
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

    static String describe(Throwable failure) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
        return message.length() <= MAX_ERROR_LENGTH ? message : message.substring(0, MAX_ERROR_LENGTH);
    }
}
