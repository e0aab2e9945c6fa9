package dev.tickwheel.server.store;

import java.nio.charset.StandardCharsets;

/**
 * Which shard a job and each of its instances belong to. A job's shard decides who loads it (creates its scheduled
 * instances). Its instances are spread over all the shards by their own ids, so that one hot job is dispatched by
 * every member, unless the job needs one owner ({@link dev.tickwheel.server.job.Job#spreadsInstances()}): then they
 * share the job's shard, so that one member holds its {@code maxConcurrent} slots or runs its fixed-delay chain, or
 * the shard of the job's pool ({@link #ofPool}), so that one member holds the pool's slots and rate.
 *
 * <p>Stateless.
 */
public final class Shards {

    /** The shard count of a new store's schema. */
    public static final int DEFAULT_COUNT = 256;

    private Shards() {
    }

    /**
     * The shard of an instance: its own if its job spreads its instances, else its pool's if its job names one (so one
     * member holds every slot of the pool), else its job's.
     */
    public static int ofInstance(long instanceId, long jobId, boolean spread, String pool, int shardCount) {
        return spread ? of(instanceId, shardCount) : ofOwner(jobId, pool, shardCount);
    }

    /** The shard of a job's instances when it keeps them on one owner: its pool's if it names one, else its own. */
    public static int ofOwner(long jobId, String pool, int shardCount) {
        return pool != null ? ofPool(pool, shardCount) : of(jobId, shardCount);
    }

    /**
     * The shard of a pool's instances: its name hashed (64-bit FNV-1a over its UTF-8 bytes, a fixed function, so
     * every member and every version agree) and then mixed as an id.
     */
    public static int ofPool(String pool, int shardCount) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : pool.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return of(hash, shardCount);
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
