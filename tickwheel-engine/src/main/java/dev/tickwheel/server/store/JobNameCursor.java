package dev.tickwheel.server.store;

import dev.tickwheel.server.job.Job;
import java.util.Objects;

/**
 * Where a walk over jobs by name stopped: the (name, id) of the last job seen. Jobs are listed in {@code (name, id)}
 * order (names repeat, ids break the tie), so the cursor needs both, like {@link DueJobCursor}.
 *
 * <p>Immutable.
 *
 * @param name  the name of the last job seen
 * @param jobId the id of the last job seen
 */
public record JobNameCursor(String name, long jobId) {

    public JobNameCursor {
        Objects.requireNonNull(name, "name");
    }

    /** The cursor just after {@code job}. */
    public static JobNameCursor after(Job job) {
        return new JobNameCursor(job.name(), job.id());
    }
}
