package dev.tickwheel.server.dispatch;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.JobStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The dispatcher's cache of job definitions by ID, so that a dispatch costs a claim statement and not a job read as
 * well. Whoever changes a job calls {@link #invalidate(long)}; entries also expire {@code ttl} after they were read,
 * so a change made without that call is seen within {@code ttl}.
 *
 * <p><b>Copies held outside the cache.</b> A loader that has just created a job's instance holds the job it read, and
 * the instance can carry it to its fire instead of reading it again ({@link #stamp}, {@link #ifCurrent}): every
 * {@link #invalidate} first moves an epoch (one per stripe of job ids), and a stamped copy is refused once the epoch
 * of its job's stripe has moved since the stamp. Why a copy stamped before the loader's advance is never served after
 * a change of its job that was invalidated before the fire:
 * <ul>
 *   <li>every change of a job's definition (update, enable, disable, delete) moves its version or removes the row,
 *       and the loader's advance is a compare-and-set on that version: a change committed before the advance makes it
 *       write nothing, so no instance carries the old copy;</li>
 *   <li>a change committed after the advance is invalidated after it commits, so after the stamp was taken: the
 *       epoch has moved by the time of any fire that follows the invalidation, and the copy is refused.</li>
 * </ul>
 * A copy lives as long as its instance waits (up to the loader's window), not {@code ttl}: a change made without an
 * invalidation (a lost prompt from another member) is seen by such an instance only at its fire's next read; a
 * {@link #invalidateAll} (the cluster bus reconnected, prompts may be lost) refuses every copy stamped before it.
 *
 * <p>Thread-safe (Caffeine; the epochs are atomic).
 */
public final class JobCatalog {

    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
    private static final int MAX_JOBS = 100_000;
    /** Epoch stripes: a change of one job refuses the stamped copies of about 1/1024 of the others (1024 × 8 B). */
    private static final int EPOCH_STRIPES = 1024;
    /** The top 10 bits of a 64-bit hash pick one of the 1024 stripes. */
    private static final int STRIPE_SHIFT = Long.SIZE - Integer.numberOfTrailingZeros(EPOCH_STRIPES); // 54

    private final LoadingCache<Long, Optional<Job>> cache;
    /** Moved by every invalidation of a job of the stripe, before the cache entry goes; read by stamps and fires. */
    private final AtomicLongArray epochs = new AtomicLongArray(EPOCH_STRIPES);

    /** A copy of a job held outside the cache, with the epoch of its stripe when it was stamped. Immutable. */
    public record Stamped(Job job, long epoch) {
        public Stamped {
            Objects.requireNonNull(job, "job");
        }
    }

    public JobCatalog(JobStore jobs, Duration ttl) {
        Objects.requireNonNull(jobs, "jobs");
        this.cache = Caffeine.newBuilder()
                .maximumSize(MAX_JOBS)
                .expireAfterWrite(ttl)
                .build(new CacheLoader<>() {
                    @Override
                    public Optional<Job> load(Long jobId) {
                        return jobs.get(jobId);
                    }

                    @Override
                    public Map<Long, Optional<Job>> loadAll(Set<? extends Long> jobIds) {
                        Map<Long, Job> found = jobs.getAll(List.copyOf(jobIds));
                        Map<Long, Optional<Job>> loaded = new HashMap<>();
                        for (Long id : jobIds) {
                            loaded.put(id, Optional.ofNullable(found.get(id)));
                        }
                        return loaded;
                    }
                });
    }

    public Optional<Job> get(long jobId) {
        return cache.get(jobId);
    }

    /** The job if it is cached (present or known absent); null if it would have to be read. */
    public Optional<Job> getIfCached(long jobId) {
        return cache.getIfPresent(jobId);
    }

    /** The given jobs, those not cached read with one query; an unknown job maps to empty. */
    public Map<Long, Optional<Job>> getAll(Collection<Long> jobIds) {
        return cache.getAll(jobIds);
    }

    /**
     * Stamps a copy of {@code job} that the caller read from the store, so that it may be used later instead of the
     * catalog's as long as the job is not invalidated meanwhile ({@link #ifCurrent}). Take the stamp before the write
     * that makes the copy count commits (the loader: before its advance, which is a compare-and-set on the version
     * the copy was read at), so that an invalidation of any later change comes after the stamp.
     */
    public Stamped stamp(Job job) {
        return new Stamped(job, epochs.get(stripeOf(job.id())));
    }

    /** The stamped copy if no invalidation of its stripe came after its stamp; null if it may be stale. */
    public Optional<Job> ifCurrent(Stamped stamped) {
        return epochs.get(stripeOf(stamped.job().id())) == stamped.epoch() ? Optional.of(stamped.job()) : null;
    }

    public void invalidate(long jobId) {
        epochs.incrementAndGet(stripeOf(jobId)); // first: from here on no fire takes a copy stamped before
        cache.invalidate(jobId);
    }

    /** Forgets every job and refuses every stamped copy: for when invalidations may have been missed. */
    public void invalidateAll() {
        for (int stripe = 0; stripe < EPOCH_STRIPES; stripe++) {
            epochs.incrementAndGet(stripe);
        }
        cache.invalidateAll();
    }

    private static int stripeOf(long jobId) {
        // Fibonacci hashing, top 10 bits: snowflake ids differ mostly in their low and middle bits.
        return (int) ((jobId * 0x9E3779B97F4A7C15L) >>> STRIPE_SHIFT);
    }
}
