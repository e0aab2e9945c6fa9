package dev.tickwheel.server.dispatch;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.JobStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The dispatcher's cache of job definitions by ID, so that a dispatch costs a claim statement and not a job read as
 * well. Whoever changes a job calls {@link #invalidate(long)}; entries also expire after a short time so that a change
 * made by another server in a cluster is seen soon.
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
                .build(jobs::get);
    }

    public Optional<Job> get(long jobId) {
        return cache.get(jobId);
    }

    public void invalidate(long jobId) {
        cache.invalidate(jobId);
    }
}
