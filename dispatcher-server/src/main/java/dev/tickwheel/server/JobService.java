package dev.tickwheel.server;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobDeletion;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.time.FixedDelaySchedule;
import dev.tickwheel.time.OneShotSchedule;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.TimeExpression;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Instant;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * Creates, changes, runs and removes jobs, on any member. Every schedule is validated before anything is written; a
 * job due sooner than the next loader pass is loaded at once by the owner of its shard (this member, or the owner,
 * prompted), and a run is armed by its owner at once the same way.
 *
 * <p>Thread-safe.
 */
public final class JobService {

    /** Longest delay of an on-demand run: 366 days, the engine's bound for schedules. */
    public static final long MAX_RUN_DELAY_MS = 366L * 24 * 3600 * 1000;

    private final JobStore jobs;
    private final InstanceStore instances;
    private final ShardOwner owner;
    private final TimeExpressionParser parser;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;

    JobService(JobStore jobs, InstanceStore instances, ShardOwner owner, TimeExpressionParser parser,
               SnowflakeIdGenerator ids, Clock clock) {
        this.jobs = jobs;
        this.instances = instances;
        this.owner = owner;
        this.parser = parser;
        this.ids = ids;
        this.clock = clock;
    }

    /**
     * @throws dev.tickwheel.time.InvalidTimeExpressionException if the schedule is invalid (nothing is written)
     */
    public Job create(JobSpec spec) {
        Objects.requireNonNull(spec, "spec");
        Instant now = clock.instant();
        TimeExpression expression = parser.parse(spec.schedule());
        // Store the normalized schedule: a fixed rate without a start gets "now", which must survive restarts.
        Job job = jobs.insert(new NewJob(ids.nextId(), spec.name(), ScheduleSpec.of(expression), spec.target(),
                spec.params(),
                spec.enabled(), spec.misfirePolicy(), spec.retryPolicy(), spec.delivery(),
                firstTrigger(expression, now)));
        owner.jobCreated(job);
        return jobs.get(job.id()).orElse(job);
    }

    /**
     * Replaces a job's definition. Its waiting instances stay as they are; the next trigger is recomputed from now.
     *
     * @return the job, or empty if unknown
     * @throws IllegalStateException if the job kept changing concurrently: the optimistic update is tried three times
     */
    public Optional<Job> update(long jobId, JobSpec spec) {
        Objects.requireNonNull(spec, "spec");
        TimeExpression expression = parser.parse(spec.schedule());
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Job> current = jobs.get(jobId);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Job changed = current.get()
                    .withName(spec.name())
                    .withTarget(spec.target())
                    .withPolicies(spec.params(), spec.misfirePolicy(), spec.retryPolicy())
                    .withDelivery(spec.delivery())
                    .withEnabled(spec.enabled())
                    .withSchedule(ScheduleSpec.of(expression), firstTrigger(expression, clock.instant()));
            Optional<Job> updated = jobs.update(changed);
            if (updated.isPresent()) {
                owner.jobChanged(updated.get());
                return jobs.get(jobId);
            }
        }
        throw new IllegalStateException("job " + jobId + " kept changing concurrently; update abandoned");
    }

    /** Enables or disables a job; a disabled job creates no instances (waiting ones still fire). */
    public Optional<Job> setEnabled(long jobId, boolean enabled) {
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Job> current = jobs.get(jobId);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Job job = current.get();
            if (job.enabled() == enabled) {
                return current;
            }
            Job changed = job.withEnabled(enabled);
            if (enabled) {
                TimeExpression expression = parser.parse(job.schedule());
                changed = changed.withSchedule(job.schedule(), firstTrigger(expression, clock.instant()));
            }
            Optional<Job> updated = jobs.update(changed);
            if (updated.isPresent()) {
                owner.jobChanged(updated.get());
                return jobs.get(jobId);
            }
        }
        throw new IllegalStateException("job " + jobId + " kept changing concurrently; change abandoned");
    }

    /** Deletes a job and cancels its waiting instances. */
    public boolean delete(long jobId) {
        JobDeletion deletion = jobs.delete(jobId);
        owner.jobDeleted(jobId, deletion.cancelledInstanceIds());
        return deletion.deleted();
    }

    public Optional<Job> get(long jobId) {
        return jobs.get(jobId);
    }

    /**
     * A page of jobs by (name, id), optionally only those whose name contains {@code nameContains} ignoring case (a
     * plain substring; {@code %} and {@code _} match themselves).
     *
     * @param after the previous page's {@link Page#nextCursor()}, or null for the first page
     * @param limit page size, 1..10 000
     */
    public Page<Job, JobNameCursor> search(String nameContains, JobNameCursor after, int limit) {
        return jobs.search(nameContains, after, limit);
    }

    /**
     * Creates an on-demand instance of a job, due after {@code delayMs}.
     *
     * @throws NoSuchElementException if the job does not exist
     * @throws IllegalArgumentException if the delay is negative or above {@link #MAX_RUN_DELAY_MS} (nothing is written)
     */
    public Instance run(long jobId, long delayMs, String params) {
        if (delayMs < 0 || delayMs > MAX_RUN_DELAY_MS) {
            throw new IllegalArgumentException("delayMs must be in 0.." + MAX_RUN_DELAY_MS + ": " + delayMs);
        }
        Job job = jobs.get(jobId).orElseThrow(() -> new NoSuchElementException("job " + jobId + " does not exist"));
        Instant due = clock.instant().plusMillis(delayMs);
        Instance instance = instances.insertInstance(new NewInstance(ids.nextId(), job.id(), due, params));
        owner.stored(instance);
        return instance;
    }

    /** The first trigger at or after {@code now}: where a new (or re-enabled, or changed) job starts. */
    static Instant firstTrigger(TimeExpression expression, Instant now) {
        if (expression instanceof FixedDelaySchedule fixedDelay) {
            return now.plus(fixedDelay.delay());
        }
        if (expression instanceof OneShotSchedule oneShot) {
            return oneShot.at(); // may be past: the loader's misfire policy decides
        }
        return expression.nextAfter(now.minusMillis(1)).orElse(null);
    }
}
