package dev.tickwheel.server.store;

/**
 * Which shard a job, and every instance of it, belongs to. A job's instances share its shard so that one owner loads
 * the job, holds its {@code maxConcurrent} slots and dispatches its instances.
 *
 * <p>Stateless.
 */
public final class Shards {

    /** The shard count of a new store's schema. */
    public static final int DEFAULT_COUNT = 256;

    private Shards() {
    }

    /**
     * The shard of {@code jobId} among {@code shardCount}: the job id mixed (MurmurHash3's 64-bit finalizer, so the
     * time and sequence bits of Snowflake IDs spread evenly), reduced modulo the count.
     */
    public static int of(long jobId, int shardCount) {
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount must be positive: " + shardCount);
        }
        long h = jobId;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) Math.floorMod(h, (long) shardCount);
    }
}
