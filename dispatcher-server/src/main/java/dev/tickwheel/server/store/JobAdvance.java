package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.NewInstance;
import java.time.Instant;
import java.util.List;

/**
 * One job's part of {@link InstanceStore#createInstancesAndAdvanceJobs}: the same arguments as
 * {@link InstanceStore#createInstancesAndAdvanceJob}.
 *
 * <p>Immutable.
 *
 * @param jobId               the job; every instance must belong to it
 * @param expectedNextTrigger the next trigger time the caller read; null matches a job that has none
 * @param newNextTrigger      the next trigger time after these instances, or null if the job has no more
 * @param instances           instances for schedule slots; may be empty (only advance)
 */
public record JobAdvance(long jobId, Instant expectedNextTrigger, Instant newNextTrigger, List<NewInstance> instances) {

    public JobAdvance {
        instances = List.copyOf(instances);
    }
}
