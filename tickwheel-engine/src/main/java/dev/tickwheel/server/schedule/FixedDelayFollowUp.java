package dev.tickwheel.server.schedule;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.ScheduleType;
import java.time.Instant;
import java.util.Objects;

/**
 * Plans the next instance of a fixed-delay job when the previous one completes (succeeds, or fails for good): due
 * {@code delay} after the completion, created and armed at once, because a delay shorter than the loader period would
 * otherwise wait for the next loader pass.
 *
 * <p>One chain per job: the store creates the follow-up only while the job has no next trigger time and no other
 * scheduled instance waiting or dispatching ({@link InstanceStore#createFollowUp}). So an update or a disable/enable
 * while an instance runs, which starts a new chain from the job's new next trigger time, ends the old chain at that
 * instance instead of running two.
 *
 * <p>Thread-safe. {@link #bind} is called once, right after the dispatcher is built (the two refer to each other).
 */
public final class FixedDelayFollowUp implements InstanceDispatcher.CompletionListener {

    private final InstanceStore instances;
    private final SnowflakeIdGenerator ids;
    // volatile: set once by the composition root, read on the outcome thread.
    private final int shardCount;
    private volatile InstanceDispatcher dispatcher;

    /** @param shardCount the store's shards: a fixed-delay job's instances stay on its own shard */
    public FixedDelayFollowUp(InstanceStore instances, SnowflakeIdGenerator ids, int shardCount) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.shardCount = shardCount;
    }

    public void bind(InstanceDispatcher dispatcher) {
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    }

    @Override
    public void completed(Job job, Instance instance, Instant completedAt) {
        if (job.schedule().type() != ScheduleType.FIXED_DELAY || instance.isOnDemand() || !job.enabled()) {
            return;
        }
        Instant next = completedAt.plusMillis(job.schedule().delayMs());
        NewInstance created = new NewInstance(ids.nextId(), job.id(), next, null);
        if (instances.createFollowUp(created)) {
            dispatcher.arm(created.id(), job.id(),
                    Shards.ofInstance(created.id(), job.id(), false, job.delivery().pool(), shardCount), next, null);
        }
    }
}
