package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.workflow.WorkflowRun;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Durable storage of instances and the only place their status changes.
 *
 * <p>Every status change is one compare-and-set statement ({@code ... WHERE id = ? AND status = <from>}) following
 * {@link dev.tickwheel.server.instance.InstanceTransition}: it either applies atomically or changes nothing and
 * reports so. An illegal transition (say, succeeding a waiting instance) is refused the same way, never forced.
 * So any number of dispatchers, on any number of nodes, may race for the same instance: exactly one
 * {@link #claimBatch} gets it, and a cancelled instance can never be claimed.
 *
 * <p><b>Fencing.</b> An instance store belongs to one cluster member (see {@link ClusterStore#session()}). Its claims
 * succeed only for instances whose shard lease the member holds, unexpired by the database's clock, and record the
 * lease's node and epoch in the row ({@link Instance#claimNode()}, {@link Instance#claimEpoch()}). Every settle of a
 * claimed row (success, failure, retry, release, interruption, the call-started mark) succeeds only while the member
 * still holds the shard under that same epoch, checked in the same statement. A member that was paused and wakes after
 * its shards moved can therefore neither claim nor settle anything; the new owner settles its claims
 * ({@link #findForeignClaims}).
 *
 * <p>Times are stored with millisecond precision.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: {@link #cancelAll} classifies a refused cancel by reading the status after the compare-and-set failed;
 * the status may have moved on again by the time the caller sees the answer (it was true at the read).
 */
public interface InstanceStore {

    /**
     * In one transaction: moves the job's next trigger time from {@link JobAdvance#expectedNextTrigger()} to
     * {@link JobAdvance#newNextTrigger()} (compare-and-set on the next trigger time and the version; the job must
     * exist and be enabled), and inserts the advance's instances as waiting, skipping any whose (job, trigger time)
     * slot already has an instance. Inserts are batched.
     *
     * <p>Two loaders racing over the same job and window: one advances and inserts, the other gets
     * {@link AdvanceResult#LOST} and writes nothing. A loader that planned from a job a user changed meanwhile gets
     * {@link AdvanceResult#LOST} too: the changed schedule stands.
     *
     * @return what was advanced, created and skipped
     * @throws IllegalArgumentException if an instance belongs to another job or two share a trigger time
     * @throws DuplicateIdException     if an instance id is taken; nothing is written
     */
    AdvanceResult createInstancesAndAdvanceJob(JobAdvance advance);

    /**
     * Creates the next instance of a fixed-delay job after one of its instances completed, in one transaction under
     * the job's row lock: only if the job is enabled, is FIXED_DELAY, has no next trigger time (its chain waits on a
     * completion) and has no other scheduled instance WAITING or DISPATCHING (a chain already goes on from it). So a
     * job has one chain, however completions, updates and re-enables interleave.
     *
     * @return true if the instance was created
     */
    boolean createFollowUp(NewInstance next);

    /**
     * {@link #createInstancesAndAdvanceJob} for many jobs in <em>one</em> transaction (a loader page): each job's
     * advance is its own compare-and-set, and each job's result is exactly what the single call would have returned.
     * Job rows are locked in ascending id order, so two loaders over overlapping pages cannot deadlock on them.
     *
     * @return one result per advance, in the order given
     * @throws IllegalArgumentException if two advances name the same job, or as the single call
     * @throws DuplicateIdException     if an instance id is taken or repeated; nothing is written
     */
    List<AdvanceResult> createInstancesAndAdvanceJobs(List<JobAdvance> advances);

    /**
     * Writes on-demand runs in <em>one</em> transaction: each run whose job exists is inserted as waiting, unless its
     * {@link NewInstance#key() key} already names an instance of its job, which is then returned instead (whatever
     * its status, params or due time: the key is the run's identity). Two runs of one job with one key, in this call
     * or in concurrent calls on any member, make one instance; the store's unique index decides. A keyless run is
     * always created. A run whose job does not exist writes nothing and says {@link RunWrite.Outcome#NO_JOB}; the
     * others are still written. The jobs are locked against deletion meanwhile, so a created run never outlives its
     * job's delete unseen (a delete that commits first makes it NO_JOB; one that comes after cancels it).
     *
     * @return one result per run, in the order given
     * @throws DuplicateIdException if an instance id is taken; nothing is written
     */
    List<RunWrite> insertRuns(List<NewInstance> runs);

    /** The instance of job {@code jobId} whose caller's key is {@code key}, if stored. */
    Optional<Instance> findByKey(long jobId, String key);

    /** The ids of the stored instances of job {@code jobId} named by {@code keys}, by key (unknown keys absent). */
    Map<String, Long> idsByKey(long jobId, Collection<String> keys);

    /**
     * WAITING → CANCELLED for many instances in one transaction: one result per distinct id, in the order of first
     * appearance. CANCELLED means this call moved it from WAITING (and it is committed when this returns); a refusal
     * says why, from the status read after the compare-and-set.
     */
    List<CancelResult> cancelAll(List<Long> instanceIds);

    /**
     * Moves a WAITING instance to a new due time (and, if {@code replaceParams}, to new params), keeping its id, key,
     * attempt and schedule slot. From the moment this commits, only a timer armed for {@code dueAt} or later can claim
     * the instance ({@link #claimArmed}): a timer armed for its old, earlier time that fires afterwards loses.
     * If the instance is no longer waiting, nothing changes and the outcome says why.
     *
     * @return RESCHEDULED with the row as moved, or the refusal with the row as seen, or UNKNOWN
     */
    RescheduleOutcome reschedule(long instanceId, Instant dueAt, boolean replaceParams, String params);

    /**
     * WAITING → DISPATCHING for many instances, with one statement per chunk, fenced: only instances of shards this
     * member holds (unexpired by the database's clock) are claimed, and each claimed row records the lease's node and
     * epoch. Each claimed instance's {@code attempt} is incremented and its actual trigger time set to {@code now}. Returns the claimed rows as they
     * are after the claim, so a dispatcher needs no read after its claim. An instance is in the result if and only if this call moved it from WAITING to
     * DISPATCHING; a cancelled, finished, unknown or elsewhere-claimed id is simply absent.
     *
     * @return the claimed instances, in no particular order
     */
    default List<Instance> claimBatch(Collection<Long> instanceIds, Instant now) {
        Map<Long, Long> anyDueTime = new HashMap<>();
        instanceIds.forEach(id -> anyDueTime.put(id, Long.MAX_VALUE));
        return claimArmed(anyDueTime, now);
    }

    /**
     * {@link #claimBatch} for timers: each instance of {@code armedForMs} (id → the due time its timer was armed for,
     * epoch milliseconds) is claimed only if its stored due time is not after that time. So a timer armed before a
     * {@link #reschedule} to a later time cannot claim the moved instance; a timer armed for a time later than the due
     * time (a claim retried after a failure, a missed instance fired now) can.
     *
     * @return the claimed instances, in no particular order
     */
    List<Instance> claimArmed(Map<Long, Long> armedForMs, Instant now);

    /**
     * DISPATCHING → SUCCEEDED for many instances at once; clears the error. An instance not dispatching is left alone
     * and absent from the result.
     *
     * @return the ids this call moved to SUCCEEDED
     */
    Set<Long> markAllSucceeded(Collection<Long> instanceIds);

    /**
     * {@link #markAllSucceeded} for instances that answered with an output: each keeps its own ({@link
     * Instance#output}, JSON text of at most {@link Instance#MAX_OUTPUT_LENGTH} characters). One transaction.
     *
     * @param outputs the output of each instance, by id
     * @return the ids this call moved to SUCCEEDED
     */
    Set<Long> markAllSucceeded(Map<Long, String> outputs);

    /**
     * The targets of these DISPATCHING attempts accepted their calls and will report by callback: each row keeps
     * DISPATCHING and is due to be reported by its deadline (a later deadline already set by a heartbeat stays).
     * Fenced like every settle of this member's claims; one transaction.
     *
     * @return the ids this call updated (absent: the row moved on, a report came first, or the claim is no longer
     *         this member's)
     */
    Set<Long> acceptCallbacks(Map<CallbackAttempt, Instant> deadlines);

    /**
     * The target reported success: DISPATCHING → SUCCEEDED with its output, if the row is still on this attempt and
     * the deadline has not passed. Not fenced by a lease: any member may take a report ({@link CallbackAttempt}). For a
     * workflow step, the run's next step is taken in the same transaction ({@link #succeedStep}).
     *
     * @param ids mints the ids of the workflow's next instances
     * @return empty if nothing was written; else the instances the run's next step created (to arm)
     */
    Optional<List<Instance>> callbackSucceeded(CallbackAttempt attempt, String output, LongSupplier ids);

    /**
     * The attempt failed by the target's report ({@code timedOut} false: only before the deadline) or by its deadline
     * ({@code timedOut} true: only after it): DISPATCHING → FAILED, with a workflow's next step as
     * {@link #callbackSucceeded}.
     */
    Optional<List<Instance>> callbackFailed(CallbackAttempt attempt, boolean timedOut, String error,
                                            LongSupplier ids);

    /**
     * As {@link #callbackFailed}, but another attempt is allowed: DISPATCHING → WAITING due at {@code next}, and the
     * failed attempt recorded for {@link #history}, in one transaction.
     */
    boolean callbackRetry(CallbackAttempt attempt, boolean timedOut, Instant next, String error);

    /** The target is still working: the deadline moves to {@code newDeadline}, if it has not passed. */
    boolean callbackHeartbeat(CallbackAttempt attempt, Instant newDeadline);

    /**
     * Up to {@code limit} instances of the shards this member holds that await a callback whose deadline is
     * {@code now} or earlier, by id.
     */
    List<Instance> findTimedOutCallbacks(Instant now, int limit);

    /**
     * Every instance of the shards this member holds that awaits a callback and whose job has a
     * {@code maxConcurrent}: what the job's limit still counts.
     */
    List<Instance> findAwaitingCallbacksOfLimitedJobs();

    /**
     * Starts a run of a workflow: the run, a row per node, and the instances of its first nodes, in one transaction.
     * A run with a key that exists for the workflow is answered as it is, and nothing is written.
     *
     * @param ids mints the ids of its instances
     * @throws java.util.NoSuchElementException if there is no such workflow
     */
    WorkflowStart startWorkflowRun(long runId, long workflowId, String key, String params, LongSupplier ids);

    /** A workflow run with every node's status and instance. */
    Optional<WorkflowRun> findWorkflowRun(long runId);

    /**
     * Cancels a running workflow run: its pending nodes are skipped, its started nodes' waiting instances cancelled
     * (one still dispatching runs on, and its end steps nothing). Empty if there is no such run.
     */
    Optional<WorkflowCancel> cancelWorkflowRun(long runId);

    /**
     * DISPATCHING → SUCCEEDED (with {@code output}) for an instance that is a workflow step, fenced like
     * {@link #markAllSucceeded}, and the run's next step in the same transaction: the nodes this decides are created
     * or skipped, and the run ends when nothing can start.
     *
     * @return empty if the row was not moved (no longer DISPATCHING, or the claim is not this member's); else the
     *         instances the step created (to arm)
     */
    Optional<List<Instance>> succeedStep(Instance instance, String output, LongSupplier ids);

    /** As {@link #succeedStep}, for a step whose last attempt failed: DISPATCHING → FAILED with {@code error}. */
    Optional<List<Instance>> failStep(Instance instance, String error, LongSupplier ids);

    /**
     * Takes the next step of up to {@code limit} workflow runs whose started node's instance ended by a way that does
     * not step (a cancel, a skip, an interruption): the sweep behind the steps taken with each end.
     *
     * @return the instances created (to arm)
     */
    List<Instance> advanceWorkflowRuns(int limit, LongSupplier ids);

    /** DISPATCHING → FAILED with {@code error}. Returns false if the instance is not dispatching. */
    boolean markFailed(long instanceId, String error);

    /**
     * DISPATCHING → WAITING, due again at {@code nextTriggerTime}, remembering {@code error} of the failed attempt.
     * In the same transaction, and only if the compare-and-set succeeds, records the failed attempt (its number,
     * claim time, due time, node, epoch and {@code error}) for {@link #history}. Returns false, having written
     * nothing, if the instance is not dispatching (or, like every settle, its claim epoch is no longer this member's).
     */
    boolean retry(long instanceId, Instant nextTriggerTime, String error);

    /**
     * DISPATCHING → WAITING as the <em>same</em> attempt (the attempt count goes back by one), for a claim whose call
     * was cut by a server stop: the next claim makes the same attempt number and so the same {@code Idempotency-Key}.
     * The expected trigger time is kept. Returns false if the instance is not dispatching.
     */
    boolean release(long instanceId);

    /**
     * DISPATCHING → INTERRUPTED with {@code reason}: an AT_MOST_ONCE call was cut by a server stop. Returns false if
     * the instance is not dispatching.
     */
    boolean markInterrupted(long instanceId, String reason);

    /**
     * Records that the calls of these DISPATCHING instances start now (AT_MOST_ONCE jobs): after a crash, a claim
     * with this mark is INTERRUPTED rather than dispatched again. Fenced like every settle: rows no longer
     * dispatching, or whose claim epoch this member no longer holds, are left alone, and their calls must not start.
     *
     * @return the ids marked
     */
    Set<Long> markCallStarted(Collection<Long> instanceIds, Instant now);

    /**
     * WAITING → CANCELLED with {@code reason}: the instance fired while its job was at its concurrency limit and the
     * job skips such instances. Returns false if the instance is not waiting.
     */
    boolean skip(long instanceId, String reason);

    /** The instance with this id, if stored. */
    Optional<Instance> get(long instanceId);

    /**
     * The instance with this id and its attempts ({@link InstanceHistory}), read in one statement so the attempts and
     * the row agree, if stored.
     */
    Optional<InstanceHistory> history(long instanceId);

    /** The job of each instance among {@code instanceIds} that is stored, in one read (ids not stored are absent). */
    Map<Long, Long> jobIdsOf(Collection<Long> instanceIds);

    /**
     * A page of the instances {@code filter} lets through, newest first (descending id: ids grow with creation time).
     * Every combination of filters is one backward walk of an index that ends with the id: the primary key, (status,
     * id) or (job_id, id); the id bounds of the filter and the cursor bound that walk, so a page reads about
     * {@code limit} rows, however old the page (with a job and a status, the job's instances are walked and the status
     * filtered on the way).
     *
     * @param filter   which instances
     * @param beforeId exclusive upper bound on the id: {@link Long#MAX_VALUE} for the first page, then the previous
     *                 page's {@link Page#nextCursor()} (its last id)
     * @param limit    page size, 1..10 000
     */
    Page<Instance, Long> listLatest(InstanceFilter filter, long beforeId, int limit);

    /**
     * Waiting instances of {@code shards} due by {@code dueBy}, after {@code after} in (due time, id) order, at most
     * {@code limit}. For arming what comes within the horizon, a shard this member has just acquired, and the
     * periodic sweep that arms what a lost prompt left unarmed. Its cost follows the rows it returns, not the backlog.
     */
    List<Instance> findWaiting(Collection<Integer> shards, WaitingCursor after, Instant dueBy, int limit);

    /**
     * DISPATCHING instances of shards this member holds that were claimed under another epoch than the one it holds
     * them under (by a member that died, stopped or was paused, or by this member's earlier self), with an id above
     * {@code afterId}, ascending, at most {@code limit}. Their calls may still be running: see
     * {@link ForeignClaim#leaseAcquiredAtMs()}.
     */
    List<ForeignClaim> findForeignClaims(long afterId, int limit);

    /**
     * A foreign claim's DISPATCHING → WAITING as the same attempt (see {@link #release}), if the row is still
     * DISPATCHING under {@code claimEpoch} and this member holds its shard. Returns false otherwise.
     */
    boolean releaseForeign(long instanceId, long claimEpoch);

    /**
     * A foreign claim's DISPATCHING → INTERRUPTED with {@code reason} (an AT_MOST_ONCE call that had started), if the
     * row is still DISPATCHING under {@code claimEpoch} and this member holds its shard. Returns false otherwise.
     */
    boolean interruptForeign(long instanceId, long claimEpoch, String reason);

    /**
     * One batch of the retention purge: examines the next {@code limit} instances of {@code scope} by id after
     * {@code afterId} among those <em>created</em> before {@code cutoff} ({@code id <}
     * {@link dev.tickwheel.id.SnowflakeIdGenerator#lowestIdAt lowestIdAt(cutoff)}), and deletes those of them that are
     * finished (SUCCEEDED, FAILED, CANCELLED, INTERRUPTED) and were last updated before {@code cutoff}. WAITING and
     * DISPATCHING instances are never deleted, however old.
     *
     * <p>One short transaction: a read of at most {@code limit} rows walking an index in id order (the primary key, or
     * (job_id, id) for a job's pass), then one delete by primary key of the rows chosen, which checks status and age
     * again. So a batch costs about {@code limit} index entries however many rows it keeps, and locks only the rows
     * it deletes. A pass walks the whole range by passing {@link PurgeBatch#lastId()} as the next {@code afterId}
     * until a batch comes back {@link PurgeBatch#exhausted() exhausted}.
     *
     * @param scope   which instances (one job, or every job but some; all shards or some)
     * @param cutoff  instances created and last updated before this instant may go
     * @param afterId exclusive lower bound on the id; {@code -1} for the first batch (no id is negative)
     * @param limit   instances examined (and so deleted) at most, 1..10 000
     */
    PurgeBatch purgeFinished(PurgeScope scope, Instant cutoff, long afterId, int limit);

    /**
     * The retention's whole-day step, for a store that keeps its history in day partitions (PostgreSQL); nothing, and
     * 0, for one that does not (H2, the default). Creates the partitions of today and the next days, and drops every
     * day whose rows were all created and last updated before {@code cutoff}, are all finished, and include none of
     * {@code jobsKeptLonger}; their slots, run keys and attempts go with them. Whatever stays is left to
     * {@link #purgeFinished}. In a cluster one member at a time does it; the others return 0.
     *
     * @param now            the wall clock now
     * @param cutoff         the default retention's cutoff (now minus the default retention)
     * @param jobsKeptLonger jobs whose own retention is longer than the default
     * @return instances removed with the days dropped
     */
    default long maintainPartitions(Instant now, Instant cutoff, Set<Long> jobsKeptLonger) {
        return 0;
    }

    /**
     * The cutoff the per-row default pass ({@link #purgeFinished}) should use for the default retention's
     * {@code cutoff}: the same where nothing is dropped whole (the default); on a store with day partitions the start
     * of the day before the cutoff's day, so that the rows of the last days past the cutoff are left for
     * {@link #maintainPartitions} to drop whole rather than deleted one by one. Finished instances are then kept
     * between the retention and the retention plus two days.
     */
    default Instant rowPurgeCutoff(Instant cutoff) {
        return cutoff;
    }

    /** How many instances are in each status; every status is a key, zero if none. */
    Map<InstanceStatus, Long> countByStatus();
}
