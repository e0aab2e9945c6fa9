package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.NewInstance;
import java.time.Instant;
import java.util.List;

/**
 * One job's advance by a loader: the instances to create for its schedule slots and where its next trigger time
 * moves, conditional on the job being as the loader read it (next trigger time and version).
 *
 * <p>Immutable.
 *
 * @param jobId               the job; every instance must belong to it
 * @param expectedVersion     the job's version the caller read; a job changed since then is not advanced
 * @param expectedNextTrigger the next trigger time the caller read; null matches a job that has none
 * @param newNextTrigger      the next trigger time after these instances, or null if the job has no more
 * @param instances           instances for schedule slots; may be empty (only advance)
 */
public record JobAdvance(long jobId, long expectedVersion, Instant expectedNextTrigger, Instant newNextTrigger, List<NewInstance> instances) {

    public JobAdvance {
        instances = List.copyOf(instances);
    }
}
