package dev.tickwheel.bench.ceiling;

import dev.tickwheel.server.schedule.InstanceLoader;

/**
 * The sizes of one ceiling run: how many instances each phase takes through the store, and the batch sizes of the
 * three stages, which default to the engine's own (a loader page of {@link InstanceLoader#DEFAULT_PAGE_SIZE} jobs, a
 * claim statement of at most 500 instances as {@code ClaimBatcher.DEFAULT_MAX_BATCH}, a success statement of at most
 * 1 000 as {@code OutcomeRecorder.DEFAULT_MAX_BATCH}; {@code CeilingSettingsTest} fails if they drift apart).
 *
 * <p>Immutable.
 *
 * @param instances   instances per phase (each phase has jobs of its own, one instance each)
 * @param pageSize    jobs per loader page (one transaction)
 * @param claimBatch  most instances per claim statement
 * @param settleBatch most instances per success statement
 */
public record CeilingSettings(int instances, int pageSize, int claimBatch, int settleBatch) {

    /** The engine's loader page. */
    public static final int ENGINE_PAGE_SIZE = InstanceLoader.DEFAULT_PAGE_SIZE;
    /** The engine's largest claim batch ({@code ClaimBatcher.DEFAULT_MAX_BATCH}, package-private there). */
    public static final int ENGINE_CLAIM_BATCH = 500;
    /** The engine's largest success batch ({@code OutcomeRecorder.DEFAULT_MAX_BATCH}, package-private there). */
    public static final int ENGINE_SETTLE_BATCH = 1_000;

    public CeilingSettings {
        if (instances < 1 || pageSize < 1 || claimBatch < 1 || settleBatch < 1) {
            throw new IllegalArgumentException("every size must be positive: instances " + instances + ", page "
                    + pageSize + ", claim " + claimBatch + ", settle " + settleBatch);
        }
        if (claimBatch > 1_000 || settleBatch > 1_000) {
            throw new IllegalArgumentException("the store's statements take at most 1 000 ids: claim " + claimBatch
                    + ", settle " + settleBatch);
        }
    }

    /** {@code instances} per phase, with the engine's batch sizes. */
    public static CeilingSettings engine(int instances) {
        return new CeilingSettings(instances, ENGINE_PAGE_SIZE, ENGINE_CLAIM_BATCH, ENGINE_SETTLE_BATCH);
    }

    /** The smoke test's size: a few pages, several claim and success batches. */
    public static CeilingSettings tiny() {
        return engine(2_400);
    }
}
