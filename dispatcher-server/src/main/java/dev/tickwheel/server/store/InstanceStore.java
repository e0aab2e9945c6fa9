package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Durable storage of instances and the only place their status changes.
 *
 * <p>Every status change is one compare-and-set statement ({@code ... WHERE id = ? AND status = <from>}) following
 * {@link dev.tickwheel.server.instance.InstanceTransition}: it either applies atomically or changes nothing and
 * reports so. An illegal transition (say, succeeding a waiting instance) is refused the same way, never forced.
 * So any number of dispatchers, on any number of nodes, may race for the same instance: exactly one
 * {@link #claim} wins, and a cancelled instance can never be claimed.
 *
 * <p>Times are stored with millisecond precision.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: {@link #cancel} classifies a refused cancel by reading the status after the compare-and-set failed;
 * the status may have moved on again by the time the caller sees the answer (it was true at the read).
 */
public interface InstanceStore {

    /**
     * In one transaction: moves the job's next trigger time from {@code expectedNextTrigger} to
     * {@code newNextTrigger} (compare-and-set; the job must exist and be enabled), and inserts {@code instances}
     * as waiting, skipping any whose (job, trigger time) slot already has an instance. Inserts are batched.
     *
     * <p>Two loaders racing over the same job and window: one advances and inserts, the other gets
     * {@link AdvanceResult#LOST} and writes nothing.
     *
     * @param jobId               the job; every instance must belong to it
     * @param expectedNextTrigger the next trigger time the caller read; null matches a job that has none
     * @param newNextTrigger      the next trigger time after these instances, or null if the job has no more
     * @param instances           instances for schedule slots; may be empty (only advance)
     * @return what was advanced, created and skipped
     * @throws IllegalArgumentException if an instance belongs to another job or two share a trigger time
     * @throws DuplicateIdException     if an instance id is taken; nothing is written
     */
    AdvanceResult createInstancesAndAdvanceJob(
            long jobId, Instant expectedNextTrigger, Instant newNextTrigger, List<NewInstance> instances);

    /**
     * Inserts an on-demand (API) instance as waiting. On-demand instances fill no schedule slot, so two of them may
     * share a job and a trigger time (two API calls in the same millisecond both run).
     *
     * @return the instance as stored
     * @throws IllegalArgumentException if the job does not exist
     * @throws DuplicateIdException     if the id is taken
     */
    Instance insertInstance(NewInstance instance);

    /**
     * WAITING → DISPATCHING: increments {@code attempt} and sets the actual trigger time to {@code now}.
     *
     * @return true if this call claimed the instance; false if it is not waiting (claimed, cancelled, finished,
     *         unknown)
     */
    boolean claim(long instanceId, Instant now);

    /**
     * Claims many instances at once, each exactly as {@link #claim} would: an instance is in the result if and
     * only if this call moved it from WAITING to DISPATCHING.
     *
     * @return the ids this call claimed
     */
    Set<Long> claimAll(Collection<Long> instanceIds, Instant now);

    /** DISPATCHING → SUCCEEDED; clears the error. Returns false if the instance is not dispatching. */
    boolean markSucceeded(long instanceId);

    /** DISPATCHING → FAILED with {@code error}. Returns false if the instance is not dispatching. */
    boolean markFailed(long instanceId, String error);

    /**
     * DISPATCHING → WAITING, due again at {@code nextTriggerTime}, remembering {@code error} of the failed attempt.
     * Returns false if the instance is not dispatching.
     */
    boolean retry(long instanceId, Instant nextTriggerTime, String error);

    /**
     * WAITING → CANCELLED. On refusal, reads the status to say why.
     *
     * @return {@link CancelOutcome#CANCELLED} if this call cancelled it; otherwise why not
     */
    CancelOutcome cancel(long instanceId);

    /** The instance with this id, if stored. */
    Optional<Instance> get(long instanceId);

    /**
     * A page of instances in ascending id order, optionally of one job and/or in one status.
     *
     * @param jobId   only instances of this job, or null for all
     * @param status  only instances in this status, or null for all
     * @param afterId exclusive lower bound on the id; {@code 0} for the first page
     * @param limit   page size, 1..10 000
     */
    Page<Instance> list(Long jobId, InstanceStatus status, long afterId, int limit);

    /** Waiting instances with an id above {@code afterId}, ascending, at most {@code limit}; for start-up recovery. */
    List<Instance> findWaiting(long afterId, int limit);

    /**
     * Dispatching instances with an id above {@code afterId}, ascending, at most {@code limit}; for start-up
     * recovery of claims a crash left behind.
     */
    List<Instance> findDispatching(long afterId, int limit);

    /** How many instances are in each status; every status is a key, zero if none. */
    Map<InstanceStatus, Long> countByStatus();
}
