package dev.tickwheel.server.store;

/**
 * Which shard a job and each of its instances belong to. A job's shard decides who loads it (creates its scheduled
 * instances). Its instances are spread over all the shards by their own ids, so that one hot job is dispatched by
 * every member, unless the job needs one owner ({@link dev.tickwheel.server.job.Job#spreadsInstances()}): then they
 * share the job's shard, so that one member holds its {@code maxConcurrent} slots or runs its fixed-delay chain.
 *
 * <p>Stateless.
 */
public final class Shards {

    /** The shard count of a new store's schema. */
    public static final int DEFAULT_COUNT = 256;

    private Shards() {
    }

    /**
     * The shard of an instance: its own ({@link #of} of its id) if its job spreads its instances, else its job's.
     */
    public static int ofInstance(long instanceId, long jobId, boolean spread, int shardCount) {
        return of(spread ? instanceId : jobId, shardCount);
    }

    /**
     * The shard of {@code jobId} (or of any id) among {@code shardCount}: the job id mixed (MurmurHash3's 64-bit finalizer, so the
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
