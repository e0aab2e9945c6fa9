package dev.tickwheel.server;

import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.Page;
import java.util.Optional;

/**
 * Reads and cancels instances.
 *
 * <p>Thread-safe.
 */
public final class InstanceService {

    private final InstanceStore instances;
    private final ShardOwner owner;

    InstanceService(InstanceStore instances, ShardOwner owner) {
        this.instances = instances;
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

    /** Instances per status, for the server's periodic status log line. */
    public java.util.Map<InstanceStatus, Long> countByStatus() {
        return instances.countByStatus();
    }

    public Page<Instance> list(Long jobId, InstanceStatus status, long afterId, int limit) {
        return instances.list(jobId, status, afterId, limit);
    }
}
