package dev.tickwheel.server.store;

/**
 * What one batch of the retention purge did ({@link InstanceStore#purgeFinished}).
 *
 * <p>Immutable.
 *
 * @param deleted   instances deleted
 * @param lastId    the id of the last instance the batch examined, where the next batch starts ({@code afterId});
 *                  the batch's own {@code afterId} if it examined none
 * @param exhausted true if the batch examined fewer instances than its limit: nothing created before the cutoff is
 *                  left after {@code lastId}, so the pass is done
 */
public record PurgeBatch(int deleted, long lastId, boolean exhausted) {

    public PurgeBatch {
        if (deleted < 0) {
            throw new IllegalArgumentException("deleted must not be negative: " + deleted);
        }
    }
}
