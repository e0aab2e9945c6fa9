package dev.tickwheel.server;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and cancels instances, and reads their history.
 *
 * <p>Thread-safe.
 */
public final class InstanceService {

    private final InstanceStore instances;
    private final JobStore jobs;
    private final ShardOwner owner;

    InstanceService(InstanceStore instances, JobStore jobs, ShardOwner owner) {
        this.instances = instances;
        this.jobs = jobs;
        this.owner = owner;
    }

    /**
     * Cancels a waiting instance, on any member: durably in the store first (the compare-and-set that decides), then
     * on the wheel of whichever member armed it (this one, or the owner, prompted), which frees its memory. A
     * cancelled instance is never dispatched, even if its timer fires in the same millisecond: the claim would lose.
     */
    public CancelOutcome cancel(long instanceId) {
        CancelOutcome outcome = instances.cancel(instanceId);
        if (outcome == CancelOutcome.CANCELLED) {
            owner.cancelled(instanceId);
        }
        return outcome;
    }

    public Optional<Instance> get(long instanceId) {
        return instances.get(instanceId);
    }

    /** The instance with its attempts, oldest first (see {@link InstanceHistory}), if stored. */
    public Optional<InstanceHistory> history(long instanceId) {
        return instances.history(instanceId);
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
        if (createdFrom != null && createdBefore != null && createdFrom.isAfter(createdBefore)) {
            throw new IllegalArgumentException("createdFrom must not be after createdBefore: " + createdFrom + " > "
                    + createdBefore);
        }
        InstanceFilter filter = new InstanceFilter(jobId, status,
                createdFrom == null ? 0 : SnowflakeIdGenerator.lowestIdAt(createdFrom),
                createdBefore == null ? Long.MAX_VALUE : SnowflakeIdGenerator.lowestIdAt(createdBefore));
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
