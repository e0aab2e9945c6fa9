package dev.tickwheel.server.schedule;

import dev.tickwheel.server.cluster.ClusterBus;
import dev.tickwheel.server.cluster.ClusterEvent;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import java.time.Instant;
import java.util.Objects;

/**
 * Puts a stored instance on the timer of the member that owns its shard: this member's wheel if it holds the shard,
 * else the owner is prompted over the {@link ClusterBus}. Since a job's instances may be spread over every shard
 * ({@link dev.tickwheel.server.store.Shards#ofInstance}), whoever creates or moves one (an API call, a loader pass)
 * sends it this way. A prompt is a hint: a lost one leaves the instance to its owner's sweep.
 *
 * <p>Thread-safe.
 */
public final class OwnerArming {

    private final ShardOwnership ownership;
    private final InstanceDispatcher dispatcher;
    private final ClusterBus bus;

    public OwnerArming(ShardOwnership ownership, InstanceDispatcher dispatcher, ClusterBus bus) {
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.bus = Objects.requireNonNull(bus, "bus");
    }

    /**
     * Arms a new instance of {@code shard} for {@code triggerTime}, here or on its owner.
     *
     * @param priority the instance's own priority, or null for its job's
     */
    public void arm(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority) {
        if (ownership.holds(shard)) {
            dispatcher.arm(instanceId, jobId, shard, triggerTime, priority);
        } else {
            bus.publish(new ClusterEvent.Arm(instanceId, jobId, shard, triggerTime.toEpochMilli(), priority));
        }
    }

    /**
     * {@link #arm} for an instance a loader has just created from {@code loaded} (stamped before the advance that
     * created it): here it fires with that copy of its job ({@link InstanceDispatcher#arm(long, long, int, Instant,
     * Integer, JobCatalog.Stamped)}); its owner, if another member, reads the job as for any prompt.
     */
    public void arm(long instanceId, int shard, Instant triggerTime, Integer priority, JobCatalog.Stamped loaded) {
        long jobId = loaded.job().id();
        if (ownership.holds(shard)) {
            dispatcher.arm(instanceId, jobId, shard, triggerTime, priority, loaded);
        } else {
            bus.publish(new ClusterEvent.Arm(instanceId, jobId, shard, triggerTime.toEpochMilli(), priority));
        }
    }

    /** Replaces the timer of an instance the store has just moved to another due time, here or on its owner. */
    public void rearm(Instance instance) {
        if (ownership.holds(instance.shard())) {
            dispatcher.rearm(instance.id(), instance.jobId(), instance.shard(), instance.expectedTriggerTime(),
                    instance.priority());
        } else {
            bus.publish(new ClusterEvent.Rescheduled(instance.id(), instance.jobId(), instance.shard(),
                    instance.expectedTriggerTime().toEpochMilli(), instance.priority()));
        }
    }
}
