package dev.tickwheel.server.store;

import java.util.List;

/**
 * What {@link JobStore#delete} did.
 *
 * <p>Immutable.
 *
 * @param deleted              true if the job existed and is gone
 * @param cancelledInstanceIds the job's instances that were waiting and are now cancelled, so the caller can also
 *                             drop their timers; empty if the job did not exist
 */
public record JobDeletion(boolean deleted, List<Long> cancelledInstanceIds) {

    /** The result of deleting an id that was not stored. */
    public static final JobDeletion NOT_FOUND = new JobDeletion(false, List.of());

    public JobDeletion {
        cancelledInstanceIds = List.copyOf(cancelledInstanceIds);
    }
}
