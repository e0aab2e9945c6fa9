package dev.tickwheel.server;

import dev.tickwheel.concurrent.GroupCommit;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Reads and cancels instances, and reads their history.
 *
 * <p>Thread-safe.
 */
public final class InstanceService implements AutoCloseable {

    /** Most instances one {@link #rerunAll} call creates; a call that stops there says so ({@link RerunAll#more}). */
    public static final int MAX_RERUNS_PER_CALL = 10_000;
    /** Most matches one dry run of {@link #rerunAll} counts. */
    public static final int MAX_RERUN_MATCHES_COUNTED = 1_000_000;
    /** The key a rerun gets when its caller gives none: one rerun per instance, however often the call is repeated. */
    static final String RERUN_KEY_PREFIX = "rerun-of-";
    private static final int RERUN_PAGE = 1_000;
    /** Most instances one {@link #cancelAll} call cancels (one transaction). */
    public static final int MAX_CANCELS_PER_CALL = 1_000;
    /** Transactions cancelling single instances at once (group commit). */
    static final int CANCEL_COMMIT_WRITERS = 2;

    private final InstanceStore instances;
    private final JobStore jobs;
    private final ShardOwner owner;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    /** The longest a single cancel waits for its group commit. */
    private final Duration storeTimeout;
    /** Single cancels from many threads, written together; see {@link GroupCommit}. */
    private final GroupCommit<CancelTarget, CancelResult> cancelCommits;
    /** The owner hears of a write once it is committed: now, or when the caller's own transaction commits. */
    private final AfterWrite afterWrite;

    /** A single cancel as queued for its group commit: by id, or by job and key (then {@code instanceId} is 0). */
    private record CancelTarget(long instanceId, long jobId, String key) {
    }

    InstanceService(InstanceStore instances, JobStore jobs, ShardOwner owner, SnowflakeIdGenerator ids, Clock clock,
                    Duration storeTimeout, AfterWrite afterWrite) {
        this.ids = ids;
        this.afterWrite = afterWrite;
        this.instances = instances;
        this.jobs = jobs;
        this.owner = owner;
        this.clock = clock;
        this.storeTimeout = storeTimeout;
        this.cancelCommits = new GroupCommit<>("cancel-commit", CANCEL_COMMIT_WRITERS, MAX_CANCELS_PER_CALL,
                this::cancelTargets);
    }

    /**
     * Cancels a waiting instance, on any member: durably in the store first (the compare-and-set that decides), then
     * on the wheel of whichever member armed it (this one, or the owner, prompted), which frees its memory. A
     * cancelled instance is never dispatched, even if its timer fires in the same millisecond: the claim would lose.
     * Concurrent calls share transactions (group commit); a CANCELLED answer is committed. The result carries the
     * status the instance was seen in. Inside a transaction of the caller's on the store's data source, the cancel is
     * written in it and reaches the wheels once it commits (until then a firing timer's claim waits on the row).
     *
     * @throws dev.tickwheel.server.store.StoreException if the store failed, or did not commit within the store
     *                                                   timeout (the cancel may yet commit; repeating it is safe)
     */
    public CancelResult cancel(long instanceId) {
        CancelResult result = cancelOne(new CancelTarget(instanceId, 0, null), "cancel of instance " + instanceId);
        if (result.outcome() == CancelOutcome.CANCELLED) {
            afterWrite.then(() -> owner.cancelled(instanceId));
        }
        return result;
    }

    /** A single cancel: in the caller's own transaction if it has one open, else in the next group commit. */
    private CancelResult cancelOne(CancelTarget target, String operation) {
        if (afterWrite.joined()) {
            return cancelTargets(List.of(target)).get(0);
        }
        return Committed.await(cancelCommits.submit(target), operation, storeTimeout);
    }

    /**
     * Cancels the instance of job {@code jobId} that the caller's {@code key} names, as {@link #cancel}.
     *
     * @return empty if the key names no stored instance of the job
     */
    public Optional<CancelResult> cancelByKey(long jobId, String key) {
        CancelResult result = cancelOne(new CancelTarget(0, jobId, key), "cancel of run " + key + " of job " + jobId);
        if (result.outcome() == CancelOutcome.UNKNOWN) {
            return Optional.empty();
        }
        if (result.outcome() == CancelOutcome.CANCELLED) {
            afterWrite.then(() -> owner.cancelled(result.instanceId()));
        }
        return Optional.of(result);
    }

    /**
     * The group commit's writer: the keys of the batch resolved to ids (one read per job), then one transaction for
     * every id. A key that names no instance answers UNKNOWN (instance id 0).
     */
    private List<CancelResult> cancelTargets(List<CancelTarget> targets) {
        Map<Long, List<String>> keysByJob = new HashMap<>();
        for (CancelTarget target : targets) {
            if (target.key() != null) {
                keysByJob.computeIfAbsent(target.jobId(), j -> new ArrayList<>()).add(target.key());
            }
        }
        Map<Long, Map<String, Long>> idsByJob = new HashMap<>();
        keysByJob.forEach((jobId, keys) -> idsByJob.put(jobId, instances.idsByKey(jobId, keys)));
        List<Long> ids = new ArrayList<>(targets.size());
        for (CancelTarget target : targets) {
            ids.add(target.key() == null ? target.instanceId()
                    : idsByJob.get(target.jobId()).getOrDefault(target.key(), 0L));
        }
        List<Long> known = ids.stream().filter(id -> id != 0).toList();
        List<CancelResult> results = known.isEmpty() ? List.of() : cancelTogether(known);
        List<CancelResult> answers = new ArrayList<>(targets.size());
        int next = 0;
        for (long id : ids) {
            answers.add(id == 0 ? CancelResult.unknown(0) : results.get(next++));
        }
        return answers;
    }

    /**
     * Cancels up to {@link #MAX_CANCELS_PER_CALL} instances in one transaction: one result per id given, in order (an
     * id given twice gets the same result twice).
     *
     * @throws IllegalArgumentException if there are no ids or too many
     */
    public List<CancelResult> cancelAll(List<Long> instanceIds) {
        if (instanceIds.isEmpty() || instanceIds.size() > MAX_CANCELS_PER_CALL) {
            throw new IllegalArgumentException("ids must have 1.." + MAX_CANCELS_PER_CALL + " items: "
                    + instanceIds.size());
        }
        List<CancelResult> results = cancelTogether(instanceIds);
        afterWrite.then(() -> results.stream().filter(r -> r.outcome() == CancelOutcome.CANCELLED)
                .map(CancelResult::instanceId).distinct().forEach(owner::cancelled));
        return results;
    }

    /** One transaction for many ids, one result per id given (the store answers once per distinct id). */
    private List<CancelResult> cancelTogether(List<Long> instanceIds) {
        Map<Long, CancelResult> byId = new HashMap<>();
        for (CancelResult result : instances.cancelAll(instanceIds)) {
            byId.put(result.instanceId(), result);
        }
        List<CancelResult> results = new ArrayList<>(instanceIds.size());
        instanceIds.forEach(id -> results.add(byId.get(id)));
        return results;
    }

    /**
     * Moves a waiting instance to a new due time: {@code delayMs} from now, or {@code at} (one already past runs now),
     * and to new {@code params} if not null (else it keeps its own). Race-free against its firing, on any member: it
     * runs once, at the old time (the answer is ALREADY_DISPATCHED, or ALREADY_FINISHED once done) or at the new one
     * (RESCHEDULED), never both and never neither.
     *
     * @throws IllegalArgumentException if neither or both of {@code delayMs} and {@code at} are given, or either is
     *                                  out of range (nothing is written)
     */
    public RescheduleOutcome reschedule(long instanceId, Long delayMs, Instant at, String params) {
        if ((delayMs == null) == (at == null)) {
            throw new IllegalArgumentException("give exactly one of delayMs and at");
        }
        Instant dueAt = new RunSpec(null, delayMs, at, params).dueAt(clock.instant());
        RescheduleOutcome outcome = instances.reschedule(instanceId, dueAt, params != null, params);
        if (outcome.outcome() == RescheduleOutcome.Kind.RESCHEDULED) {
            afterWrite.then(() -> owner.rescheduled(outcome.instance()));
        }
        return outcome;
    }

    /** Stops taking single cancels; those queued are written first, for up to 10 s. Idempotent. */
    @Override
    public void close() {
        cancelCommits.close();
    }

    /** The instance of job {@code jobId} that the caller's {@code key} names, if stored. */
    public Optional<Instance> findByKey(long jobId, String key) {
        return instances.findByKey(jobId, key);
    }

    /**
     * Runs a finished instance again: a new instance of its job, due now, with its params and its own priority, that
     * names it ({@link Instance#rerunOf()}). Safe to repeat: the rerun is a run with a key, {@code key} or, without one,
     * {@code rerun-of-<instanceId>}, so a second call answers the rerun the first made ({@link RunWrite#created()}
     * false); to run it once more, rerun the rerun.
     *
     * @throws NoSuchElementException   if the instance does not exist, or its job no longer does (nothing is written)
     * @throws IllegalStateException    if the instance is not finished (WAITING or DISPATCHING)
     * @throws IllegalArgumentException if the key is not a valid run key
     */
    public RunWrite rerun(long instanceId, String key) {
        Instance original = instances.get(instanceId)
                .orElseThrow(() -> new NoSuchElementException("instance " + instanceId + " does not exist"));
        if (!original.status().successors().isEmpty()) {
            throw new IllegalStateException("instance " + instanceId + " is " + original.status()
                    + ": only a finished instance (SUCCEEDED, FAILED, INTERRUPTED or CANCELLED) is rerun");
        }
        NewInstance rerun = rerunOf(original, key == null ? RERUN_KEY_PREFIX + instanceId : key, clock.instant());
        RunWrite written = instances.insertRuns(List.of(rerun)).get(0);
        if (written.outcome() == RunWrite.Outcome.NO_JOB) {
            throw new NoSuchElementException("job " + original.jobId() + " of instance " + instanceId
                    + " no longer exists");
        }
        if (written.created()) {
            afterWrite.then(() -> owner.stored(written.instance()));
        }
        return written;
    }

    /** What {@link #rerunAll} did: the finished instances it matched, the reruns it made, and whether it stopped short. */
    public record RerunAll(long matched, long created, boolean more) {
    }

    /**
     * {@link #rerun} for every finished instance that matches, newest first, each with the key
     * {@code rerun-of-<instanceId>} (so an instance already rerun, by this or an earlier call, is matched and not
     * rerun again, and repeating a call is safe). A call makes at most {@value #MAX_RERUNS_PER_CALL} reruns, in
     * transactions of up to {@value #RERUN_PAGE}; one that stops there answers {@code more}: call again for the rest. A
     * dry run writes nothing and counts the matches (up to {@value #MAX_RERUN_MATCHES_COUNTED}, then {@code more}).
     * Instances of a job deleted meanwhile are matched and not rerun.
     *
     * @param status only instances in this final status, or null for every final one
     * @throws IllegalArgumentException if {@code status} is not a final status, or {@code from} is after {@code to}
     */
    public RerunAll rerunAll(Long jobId, InstanceStatus status, Instant from, Instant to, boolean dryRun) {
        return rerunAll(jobId, status, from, to, dryRun, null);
    }

    /** {@link #rerunAll(Long, InstanceStatus, Instant, Instant, boolean)} of one namespace's jobs (null: all). */
    public RerunAll rerunAll(Long jobId, InstanceStatus status, Instant from, Instant to, boolean dryRun,
                             String namespace) {
        if (status != null && !status.successors().isEmpty()) {
            throw new IllegalArgumentException("status must be a final status (SUCCEEDED, FAILED, INTERRUPTED or"
                    + " CANCELLED): " + status);
        }
        long matched = 0;
        long created = 0;
        Long before = null;
        Instant now = clock.instant();
        List<Instance> stored = new ArrayList<>();
        while (true) {
            Page<Instance, Long> page = list(jobId, status, from, to, before, RERUN_PAGE, namespace);
            List<NewInstance> reruns = new ArrayList<>();
            boolean stopped = false;
            for (Instance instance : page.items()) {
                if (dryRun ? matched >= MAX_RERUN_MATCHES_COUNTED : created + reruns.size() >= MAX_RERUNS_PER_CALL) {
                    stopped = true;
                    break;
                }
                before = instance.id();
                if (instance.status().successors().isEmpty()) {
                    matched++;
                    if (!dryRun) {
                        reruns.add(rerunOf(instance, RERUN_KEY_PREFIX + instance.id(), now));
                    }
                }
            }
            if (!reruns.isEmpty()) {
                for (RunWrite written : instances.insertRuns(reruns)) {
                    if (written.created()) {
                        created++;
                        stored.add(written.instance());
                    }
                }
            }
            if (stopped || page.nextCursor().isEmpty()) {
                afterWrite.then(() -> stored.forEach(owner::stored));
                // An instance already rerun takes no room in the cap: a call that stopped there may find nothing left.
                return new RerunAll(matched, created, stopped);
            }
        }
    }

    private NewInstance rerunOf(Instance original, String key, Instant due) {
        return new NewInstance(ids.nextId(), original.jobId(), due, original.params(), key, null,
                original.priority(), original.id());
    }

    /** The instance with its attempts, oldest first (see {@link InstanceHistory}), if stored. */
    public Optional<InstanceHistory> history(long instanceId) {
        return instances.history(instanceId);
    }

    /** The job of each stored instance among {@code instanceIds}, in one read. */
    public java.util.Map<Long, Long> jobIdsOf(java.util.Collection<Long> instanceIds) {
        return instances.jobIdsOf(instanceIds);
    }

    /** Instances per status, for the server's periodic status log line. */
    public java.util.Map<InstanceStatus, Long> countByStatus() {
        return instances.countByStatus();
    }

    /**
     * A page of instances, newest first (by id, which grows with creation time), every filter optional. The creation
     * time bounds become id bounds ({@link SnowflakeIdGenerator#lowestIdAt}), so every combination is one walk of an
     * index (see {@link InstanceStore#listLatest}).
     *
     * @param jobId         only instances of this job, or null
     * @param status        only instances in this status, or null
     * @param createdFrom   only instances created at or after this instant, or null
     * @param createdBefore only instances created before this instant, or null
     * @param beforeId      the previous page's {@link Page#nextCursor()}, or null for the first page
     * @param limit         page size, 1..10 000
     * @throws IllegalArgumentException if {@code createdFrom} is after {@code createdBefore}
     */
    public Page<Instance, Long> list(Long jobId, InstanceStatus status, Instant createdFrom, Instant createdBefore,
                                     Long beforeId, int limit) {
        return list(jobId, status, createdFrom, createdBefore, beforeId, limit, null);
    }

    /** {@link #list(Long, InstanceStatus, Instant, Instant, Long, int)} of one namespace's jobs (null: all). */
    public Page<Instance, Long> list(Long jobId, InstanceStatus status, Instant createdFrom, Instant createdBefore,
                                     Long beforeId, int limit, String namespace) {
        if (createdFrom != null && createdBefore != null && createdFrom.isAfter(createdBefore)) {
            throw new IllegalArgumentException("createdFrom must not be after createdBefore: " + createdFrom + " > "
                    + createdBefore);
        }
        InstanceFilter filter = new InstanceFilter(jobId, status,
                createdFrom == null ? 0 : SnowflakeIdGenerator.lowestIdAt(createdFrom),
                createdBefore == null ? Long.MAX_VALUE : SnowflakeIdGenerator.lowestIdAt(createdBefore), namespace);
        return instances.listLatest(filter, beforeId == null ? Long.MAX_VALUE : beforeId, limit);
    }

    /**
     * The names of the stored jobs among {@code jobIds} (a deleted job is absent): one query for a page's jobs.
     */
    public Map<Long, String> jobNames(Collection<Long> jobIds) {
        Map<Long, String> names = new HashMap<>();
        for (Job job : jobs.getAll(jobIds).values()) {
            names.put(job.id(), job.name());
        }
        return names;
    }
}
