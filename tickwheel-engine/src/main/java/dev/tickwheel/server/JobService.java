package dev.tickwheel.server;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.concurrent.GroupCommit;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.ScheduleWindow;
import dev.tickwheel.server.job.TargetType;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.store.CalendarStore;
import dev.tickwheel.server.store.PoolStore;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobDeletion;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.time.FixedDelaySchedule;
import dev.tickwheel.time.OneShotSchedule;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.TimeExpression;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Creates, changes, runs and removes jobs, on any member. Every schedule is validated before anything is written; a
 * job due sooner than the next loader pass is loaded at once by the owner of its shard (this member, or the owner,
 * prompted), and a run is armed by its owner at once the same way.
 *
 * <p>Thread-safe.
 */
public final class JobService implements AutoCloseable {

    /** Longest delay of an on-demand run: 366 days, the engine's bound for schedules. */
    public static final long MAX_RUN_DELAY_MS = 366L * 24 * 3600 * 1000;
    /** Most runs one {@link #runAll} call writes (one transaction). */
    public static final int MAX_RUNS_PER_CALL = 1_000;
    /** Transactions writing single runs at once (group commit): one gathers while the other commits. */
    static final int RUN_COMMIT_WRITERS = 2;

    private final JobStore jobs;
    private final CalendarStore calendars;
    private final PoolStore pools;
    private final InstanceStore instances;
    private final ShardOwner owner;
    private final TimeExpressionParser parser;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    /** The longest {@link #run(long, RunSpec)} waits for its group commit. */
    private final Duration storeTimeout;
    /**
     * Single runs from many threads, written together: each {@link #run(long, RunSpec)} waits for the transaction its
     * run went into, so a returned run is committed. See {@link GroupCommit}.
     */
    private final GroupCommit<NewInstance, RunWrite> runCommits;
    /** The owner hears of a write once it is committed: now, or when the caller's own transaction commits. */
    private final AfterWrite afterWrite;
    /** Judges webhook and alert URLs before anything is written; calls are judged again as they connect. */
    private final OutboundGuard guard;

    /** The namespace of a job by its id (a job never changes namespace), for the names in an update's spec. */
    private final LongFunction<String> namespaceOfJob;

    JobService(JobStore jobs, InstanceStore instances, ShardOwner owner, TimeExpressionParser parser,
               SnowflakeIdGenerator ids, Clock clock, Duration storeTimeout, AfterWrite afterWrite,
               CalendarStore calendars, PoolStore pools, OutboundGuard guard, LongFunction<String> namespaceOfJob) {
        this.guard = guard;
        this.namespaceOfJob = namespaceOfJob;
        this.calendars = calendars;
        this.pools = pools;
        this.afterWrite = afterWrite;
        this.jobs = jobs;
        this.instances = instances;
        this.owner = owner;
        this.parser = parser;
        this.ids = ids;
        this.clock = clock;
        this.storeTimeout = storeTimeout;
        this.runCommits = new GroupCommit<>("run-commit", RUN_COMMIT_WRITERS, MAX_RUNS_PER_CALL,
                instances::insertRuns);
    }

    /**
     * @throws dev.tickwheel.time.InvalidTimeExpressionException if the schedule is invalid (nothing is written)
     * @throws RefusedTargetException if the outbound guard refuses the webhook URL or the alert URL (nothing is
     *                                written)
     */
    public Job create(JobSpec spec) {
        return create(spec, Namespaces.DEFAULT);
    }

    /**
     * {@link #create(JobSpec)} in a namespace, which must exist ({@link AccessService#namespace}); a job never changes
     * namespace. The spec's calendar and pool are named as in that namespace (their local names); the stored job holds
     * their {@linkplain Namespaces#qualified qualified names}.
     *
     * @throws dev.tickwheel.time.InvalidTimeExpressionException if the schedule is invalid (nothing is written)
     * @throws IllegalArgumentException if the calendar or pool does not exist in the namespace
     */
    public Job create(JobSpec requested, String namespace) {
        Objects.requireNonNull(requested, "spec");
        Namespaces.check(namespace);
        JobSpec spec = inNamespace(requested, namespace);
        requireCalendar(spec);
        requirePool(spec);
        requireAllowedUrls(spec);
        Instant now = clock.instant();
        TimeExpression expression = parser.parse(spec.schedule());
        // Store the normalized schedule: a fixed rate without a start gets "now", which must survive restarts.
        Job job = jobs.insert(new NewJob(ids.nextId(), spec.name(), normalized(expression, spec), spec.target(),
                spec.params(), spec.enabled(), spec.misfirePolicy(), spec.retryPolicy(), spec.delivery(),
                spec.operations(), firstTrigger(expression, now, spec.schedule(), 0)), namespace);
        afterWrite.then(() -> owner.jobCreated(job));
        return jobs.get(job.id()).orElse(job);
    }

    /**
     * Creates the job, or brings the one of its name up to date: what an application declares in code at start-up
     * (the Spring Boot starter's {@code @TickwheelJob} and {@code JobDefinition} beans). Safe on several members at
     * once: the creation is serialised on the store, so one job of the name exists. A job whose definition is already
     * the spec's (its fixed-rate start aside, which {@link #create} sets to "now") is left as it is, its next trigger
     * time included.
     *
     * @return the job as stored, and whether it was created, changed or left
     * @throws IllegalStateException if several jobs already have the name (created over the API): say which one to
     *                               keep by deleting or renaming the others
     * @throws dev.tickwheel.time.InvalidTimeExpressionException if the schedule is invalid (nothing is written)
     */
    public Declared declare(JobSpec requested) {
        Objects.requireNonNull(requested, "spec");
        JobSpec spec = inNamespace(requested, Namespaces.DEFAULT);
        requireCalendar(spec);
        requirePool(spec);
        requireAllowedUrls(spec);
        TimeExpression expression = parser.parse(spec.schedule());
        List<Job> named = jobs.findByName(spec.name());
        if (named.isEmpty()) {
            NewJob job = new NewJob(ids.nextId(), spec.name(), normalized(expression, spec), spec.target(),
                    spec.params(), spec.enabled(), spec.misfirePolicy(), spec.retryPolicy(), spec.delivery(),
                    spec.operations(), firstTrigger(expression, clock.instant(), spec.schedule(), 0));
            Job stored = jobs.insertUnlessNamed(job);
            if (stored.id() == job.id()) {
                afterWrite.then(() -> owner.jobCreated(stored));
                return new Declared(stored, Declared.Change.CREATED);
            }
            named = List.of(stored); // another member declared it first
        }
        if (named.size() > 1) {
            throw new IllegalStateException(named.size() + " jobs are named '" + spec.name() + "' (ids "
                    + named.stream().map(Job::id).toList() + "); a declared job's name must name one job: delete or"
                    + " rename the others");
        }
        Job current = named.get(0);
        if (sameDefinition(current, spec)) {
            return new Declared(current, Declared.Change.UNCHANGED);
        }
        Job updated = update(current.id(), spec).orElseThrow(() -> new IllegalStateException("job "
                + current.id() + " ('" + spec.name() + "') was deleted while it was being declared"));
        return new Declared(updated, Declared.Change.UPDATED);
    }

    /** What {@link #declare} did. */
    public record Declared(Job job, Change change) {
        /** Created, brought up to date, or already as declared. */
        public enum Change { CREATED, UPDATED, UNCHANGED }
    }

    private static boolean sameDefinition(Job job, JobSpec spec) {
        ScheduleSpec stored = job.schedule();
        ScheduleSpec declared = spec.schedule();
        boolean sameSchedule = stored.type() == declared.type()
                && Objects.equals(stored.expression(), declared.expression())
                && Objects.equals(stored.zoneId(), declared.zoneId())
                && Objects.equals(stored.periodMs(), declared.periodMs())
                && Objects.equals(stored.delayMs(), declared.delayMs())
                && (declared.at() == null || declared.at().equals(stored.at()))
                && Objects.equals(stored.jitterMs(), declared.jitterMs())
                && Objects.equals(stored.spread(), declared.spread())
                && Objects.equals(stored.startAt(), declared.startAt())
                && Objects.equals(stored.endAt(), declared.endAt())
                && Objects.equals(stored.maxRuns(), declared.maxRuns())
                && Objects.equals(stored.calendar(), declared.calendar());
        return sameSchedule && job.target().equals(spec.target()) && Objects.equals(job.params(), spec.params())
                && job.enabled() == spec.enabled() && job.misfirePolicy() == spec.misfirePolicy()
                && job.retryPolicy().equals(spec.retryPolicy()) && job.delivery().equals(spec.delivery())
                && (spec.keepSigningSecret() || job.operations().equals(spec.operations()));
    }

    /**
     * Replaces a job's definition. Its waiting instances stay as they are; the next trigger is recomputed from now.
     *
     * @return the job, or empty if unknown
     * @throws IllegalStateException if the job kept changing concurrently: the optimistic update is tried three times
     */
    public Optional<Job> update(long jobId, JobSpec requested) {
        Objects.requireNonNull(requested, "spec");
        JobSpec spec = inNamespace(requested, namespaceOfJob.apply(jobId));
        requireCalendar(spec);
        requirePool(spec);
        requireAllowedUrls(spec);
        TimeExpression expression = parser.parse(spec.schedule());
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Job> current = jobs.get(jobId);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            JobOperations operations = spec.keepSigningSecret()
                    ? spec.operations().withSigningSecret(current.get().operations().signingSecret())
                    : spec.operations();
            Job changed = current.get()
                    .withName(spec.name())
                    .withTarget(spec.target())
                    .withPolicies(spec.params(), spec.misfirePolicy(), spec.retryPolicy())
                    .withDelivery(spec.delivery())
                    .withOperations(operations)
                    .withEnabled(spec.enabled())
                    .withSchedule(normalized(expression, spec), firstTrigger(expression, clock.instant(),
                            spec.schedule(), current.get().scheduledRuns()));
            Optional<Job> updated = jobs.update(changed);
            if (updated.isPresent()) {
                // The store moved the job's waiting instances to one shard if it now needs one owner there.
                boolean gathered = updated.get().gathersInstancesOf(current.get().spreadsInstances(),
                        current.get().delivery().pool());
                Job stored = updated.get();
                afterWrite.then(() -> owner.jobChanged(stored, gathered));
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
                changed = changed.withSchedule(job.schedule(), firstTrigger(expression, clock.instant(),
                        job.schedule(), job.scheduledRuns()));
            }
            Optional<Job> updated = jobs.update(changed);
            if (updated.isPresent()) {
                Job stored = updated.get();
                afterWrite.then(() -> owner.jobChanged(stored, false));
                return jobs.get(jobId);
            }
        }
        throw new IllegalStateException("job " + jobId + " kept changing concurrently; change abandoned");
    }

    /** Deletes a job and cancels its waiting instances. */
    public boolean delete(long jobId) {
        JobDeletion deletion = jobs.delete(jobId);
        afterWrite.then(() -> owner.jobDeleted(jobId, deletion.cancelledInstanceIds()));
        return deletion.deleted();
    }

    public Optional<Job> get(long jobId) {
        return jobs.get(jobId);
    }

    /**
     * The job named exactly {@code name}, if there is one: how an application finds the id of a job it declared in
     * code (names are not unique over the API; a declared job's is).
     *
     * @throws IllegalStateException if several jobs have the name
     */
    public Optional<Job> findByName(String name) {
        List<Job> named = jobs.findByName(Objects.requireNonNull(name, "name"));
        if (named.size() > 1) {
            throw new IllegalStateException(named.size() + " jobs are named '" + name + "' (ids "
                    + named.stream().map(Job::id).toList() + ")");
        }
        return named.stream().findFirst();
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

    /** {@link #search(String, JobNameCursor, int)} among one namespace's jobs (null: every namespace). */
    public Page<Job, JobNameCursor> search(String nameContains, JobNameCursor after, int limit, String namespace) {
        return jobs.search(nameContains, after, limit, namespace);
    }

    /**
     * Creates an on-demand instance of a job, due after {@code delayMs}.
     *
     * @throws NoSuchElementException if the job does not exist
     * @throws IllegalArgumentException if the delay is negative or above {@link #MAX_RUN_DELAY_MS} (nothing is written)
     */
    public Instance run(long jobId, long delayMs, String params) {
        return run(jobId, RunSpec.after(delayMs, params)).instance();
    }

    /**
     * Creates an on-demand instance of a job, or, if the run's key already names one of the job's instances, returns
     * that one (whatever its status, params or time: the key is the identity; {@link RunWrite#created()} says which).
     * Safe to repeat: a call retried after a lost answer, or two calls racing with one key on any members, make one
     * instance. Concurrent calls share transactions (group commit); when this returns, the run is committed and armed
     * (here, or by its shard's owner, prompted). Called inside a transaction of the caller's on the store's data
     * source (see {@link dev.tickwheel.server.store.jdbc.CallerTransactions}), the run is written in that
     * transaction instead, on the caller's thread, and armed once it commits; rolled back, it never existed.
     *
     * @throws StoreException           if the store failed, or did not commit the run within the store timeout: the
     *                                  run may or may not have been written; repeat the call with the same key to
     *                                  find out (the owner's sweep arms a run written after its caller gave up)
     * @throws NoSuchElementException   if the job does not exist (nothing is written)
     * @throws IllegalArgumentException if {@code at} is too far ahead (nothing is written)
     */
    public RunWrite run(long jobId, RunSpec spec) {
        Objects.requireNonNull(spec, "spec");
        NewInstance run = spec.instance(ids.nextId(), jobId, clock.instant());
        RunWrite written = afterWrite.joined() ? instances.insertRuns(List.of(run)).get(0)
                : Committed.await(runCommits.submit(run), "run of job " + jobId, storeTimeout);
        if (written.outcome() == RunWrite.Outcome.NO_JOB) {
            throw noJob(jobId);
        }
        if (written.created()) {
            afterWrite.then(() -> owner.stored(written.instance()));
        }
        return written;
    }

    /**
     * {@link #run(long, RunSpec)} for up to {@link #MAX_RUNS_PER_CALL} runs of one job in one transaction: all are
     * written or none. One result per run, in order; a key given twice names one instance (created by the first).
     *
     * @throws NoSuchElementException   if the job does not exist (nothing is written)
     * @throws IllegalArgumentException if there are no runs or too many, or an {@code at} is too far ahead (nothing is
     *                                  written)
     */
    public List<RunWrite> runAll(long jobId, List<RunSpec> specs) {
        Objects.requireNonNull(specs, "specs");
        if (specs.isEmpty() || specs.size() > MAX_RUNS_PER_CALL) {
            throw new IllegalArgumentException("runs must have 1.." + MAX_RUNS_PER_CALL + " items: " + specs.size());
        }
        Instant now = clock.instant();
        List<NewInstance> runs = new ArrayList<>(specs.size());
        for (RunSpec spec : specs) {
            runs.add(spec.instance(ids.nextId(), jobId, now));
        }
        List<RunWrite> written = instances.insertRuns(runs);
        if (written.get(0).outcome() == RunWrite.Outcome.NO_JOB) {
            throw noJob(jobId); // one job: all or none
        }
        afterWrite.then(() -> {
            for (RunWrite write : written) {
                if (write.created()) {
                    owner.stored(write.instance());
                }
            }
        });
        return written;
    }

    private static NoSuchElementException noJob(long jobId) {
        return new NoSuchElementException("job " + jobId + " does not exist");
    }

    /** Stops taking single runs; those queued are written first, for up to 10 s. Idempotent. */
    @Override
    public void close() {
        runCommits.close();
    }

    /**
     * @throws RefusedTargetException if the outbound guard refuses the webhook's URL or the alert URL as they resolve
     *                                now (a name that does not resolve is let through: it is judged again at connect
     *                                time)
     */
    private void requireAllowedUrls(JobSpec spec) {
        if (spec.target().type() == TargetType.WEBHOOK) {
            guard.check(spec.target().value()).ifPresent(refusal -> {
                throw new RefusedTargetException("target.url", refusal.message());
            });
        }
        guard.check(spec.operations().alertUrl()).ifPresent(refusal -> {
            throw new RefusedTargetException("alertUrl", refusal.message());
        });
    }

    /**
     * {@code spec} with its calendar and pool, local names of {@code namespace}, replaced by their qualified names.
     *
     * @throws IllegalArgumentException naming the field if a name is not a local name (one naming another namespace's
     *                                  calendar or pool with '/' included)
     */
    private static JobSpec inNamespace(JobSpec spec, String namespace) {
        String calendar = spec.schedule().calendar();
        String pool = spec.delivery().pool();
        if (calendar != null) {
            requireLocalName("calendar", calendar);
            spec = spec.withSchedule(spec.schedule().withCalendar(Namespaces.qualified(namespace, calendar)));
        }
        if (pool != null) {
            requireLocalName("pool", pool);
            spec = spec.withDelivery(spec.delivery().withPool(Namespaces.qualified(namespace, pool)));
        }
        return spec;
    }

    private static void requireLocalName(String field, String name) {
        if (!Namespaces.isLocalName(name)) {
            throw new IllegalArgumentException(field + " '" + name + "' does not exist; create it first");
        }
    }

    /** @throws IllegalArgumentException if the spec names a pool that does not exist */
    private void requirePool(JobSpec spec) {
        String name = spec.delivery().pool();
        if (name != null && pools.get(name).isEmpty()) {
            throw new IllegalArgumentException("pool '" + Namespaces.localName(name) + "' does not exist; create it"
                    + " first");
        }
    }

    private void requireCalendar(JobSpec spec) {
        String name = spec.schedule().calendar();
        if (name != null && calendars.get(name).isEmpty()) {
            throw new IllegalArgumentException("calendar '" + Namespaces.localName(name) + "' does not exist; create"
                    + " it first");
        }
    }

    /**
     * The schedule to store: the expression's fields (a fixed rate without a start gets "now", which must survive
     * restarts) with the spec's window, jitter and calendar.
     */
    private static ScheduleSpec normalized(TimeExpression expression, JobSpec spec) {
        return ScheduleSpec.of(expression).withWindowOf(spec.schedule());
    }

    /**
     * The first trigger at or after {@code now} and inside the schedule's window, or null if the window has ended or
     * its runs are used up: where a new (or re-enabled, or changed) job starts.
     */
    static Instant firstTrigger(TimeExpression expression, Instant now, ScheduleSpec window, long runsSoFar) {
        if (ScheduleWindow.runsLeft(window, runsSoFar) == 0) {
            return null;
        }
        Instant from = window.startAt() != null && window.startAt().isAfter(now) ? window.startAt() : now;
        Instant first = firstTrigger(expression, from);
        return first != null && window.endAt() != null && first.isAfter(window.endAt()) ? null : first;
    }

    /** The first trigger at or after {@code now}. */
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
