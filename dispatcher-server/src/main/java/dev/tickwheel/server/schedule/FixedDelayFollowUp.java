package dev.tickwheel.server.schedule;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.time.ScheduleType;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Plans the next instance of a fixed-delay job when the previous one completes (succeeds, or fails for good): due
 * {@code delay} after the completion, created and armed at once, because a delay shorter than the loader period would
 * otherwise wait for the next loader pass.
 *
 * <p>Thread-safe. {@link #bind} is called once, right after the dispatcher is built (the two refer to each other).
 */
public final class FixedDelayFollowUp implements InstanceDispatcher.CompletionListener {

    private final InstanceStore instances;
    private final SnowflakeIdGenerator ids;
    // volatile: set once by the composition root, read on dispatch threads.
    private volatile InstanceDispatcher dispatcher;

    public FixedDelayFollowUp(InstanceStore instances, SnowflakeIdGenerator ids) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.ids = Objects.requireNonNull(ids, "ids");
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
        // The job's next trigger stays empty while an instance is in flight; the CAS on "empty" makes a duplicate
        // completion (a retry racing recovery) create nothing.
        if (instances.createInstancesAndAdvanceJob(job.id(), null, null, List.of(created)).advanced()) {
            dispatcher.arm(created.id(), next);
        }
    }
}
