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

/**
 * The dispatcher's cache of job definitions by ID, so that a dispatch costs a claim statement and not a job read as
 * well. Whoever changes a job calls {@link #invalidate(long)}; entries also expire {@code ttl} after they were read,
 * so a change made without that call is seen within {@code ttl}.
 *
 * <p>Thread-safe (Caffeine).
 */
public final class JobCatalog {

    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
    private static final int MAX_JOBS = 100_000;

    private final LoadingCache<Long, Optional<Job>> cache;

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

    public void invalidate(long jobId) {
        cache.invalidate(jobId);
    }
}
