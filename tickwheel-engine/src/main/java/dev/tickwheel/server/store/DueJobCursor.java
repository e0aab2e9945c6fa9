package dev.tickwheel.server.store;

import dev.tickwheel.server.job.Job;
import java.time.Instant;
import java.util.Objects;

/**
 * Where a walk over due jobs stopped: the (next trigger time, id) of the last job seen.
 *
 * <p>Due jobs are ordered by {@code (next_trigger_time, id)}, so the cursor needs both: an id alone cannot say where
 * to resume in that order. Keyset paging with this cursor costs one index range scan per page however far the
 * walk has gone, so a loader can walk 100 000 jobs without the pages getting slower.
 *
 * <p>Immutable.
 *
 * @param nextTriggerTime the next trigger time of the last job seen
 * @param jobId           the id of the last job seen
 */
public record DueJobCursor(Instant nextTriggerTime, long jobId) {

    public DueJobCursor {
        Objects.requireNonNull(nextTriggerTime, "nextTriggerTime");
    }

    /** The cursor just after {@code job}, which must have a next trigger time (every due job has one). */
    public static DueJobCursor after(Job job) {
        if (job.nextTriggerTime() == null) {
            throw new IllegalArgumentException("job has no nextTriggerTime, so it cannot be due: " + job.id());
        }
        return new DueJobCursor(job.nextTriggerTime(), job.id());
    }
}
