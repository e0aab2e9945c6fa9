package dev.tickwheel.server.schedule;

import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.server.cluster.RepeatedFailureLog;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished instances once their retention has passed: the server's {@code retention-days}, or a job's own
 * {@link JobOperations#retentionDays()}. One {@link #run()} every retention interval, on a thread of its own.
 *
 * <pre>
 * A run is a list of passes, each with its cutoff (now minus its days), walked batch by batch
 * ({@link InstanceStore#purgeFinished}, one short transaction of at most batch-size rows each):
 *
 *   default pass   every job's instances but those of jobs with a retention of their own (deleted jobs' included),
 *                  on the primary key, cutoff now - retention-days
 *   one per job    for each job with retentionDays set whose shard this member holds, on (job_id, id), cutoff
 *                  now - its days: longer or shorter than the default, both work
 *
 * Before the passes, a store that keeps its history in day partitions (PostgreSQL) drops the days that are wholly past
 * the default retention ({@link InstanceStore#maintainPartitions}), and its default pass stops a day short of the
 * cutoff ({@link InstanceStore#rowPurgeCutoff}), so that those rows go with their day rather than one by one.
 *
 * A pass ends when a batch comes back exhausted. A run ends when every pass has, or after maxBatchesPerRun batches
 * in all (100: with 500-row batches, 50 000 rows looked at), so that one run never holds its thread or the database
 * for long. Then the pass it was in and its cursor are kept, and the next run starts there and goes round the others
 * after it: a backlog (the first start on a year of history) is worked off run by run, and every pass gets its turn.
 * </pre>
 *
 * In a cluster each member purges only the shards it holds ({@link ShardOwnership#heldShards()}), so members never
 * work on the same rows; a member holding every shard (one server) asks for no shard filter at all.
 *
 * <p>A run that fails (the database unreachable) is counted and logged, the first of a streak with its stack trace and
 * then at most one line every {@link #FAILURE_LOG_INTERVAL}, and never throws: the next run tries again where this
 * one stopped.
 *
 * <p>Thread-safe: runs are serialized ({@code synchronized}: the periodic run and {@link #run()} called by an embedding
 * application must not interleave their cursors); counters are atomics read by metrics scrapes.
 *
 * <p>Caveats: a retention change (the setting, or a job's days) applies from the next run. A clock stepped back
 * deletes nothing until it catches up; one stepped forward deletes early. An instance is "finished before the cutoff"
 * by its last update, and "created before the cutoff" by its id: both must be older than the retention.
 */
public final class RetentionPurge {

    /** At most one WARN line per streak of failed runs per minute. */
    public static final Duration FAILURE_LOG_INTERVAL = Duration.ofMinutes(1);

    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);
    /** The cursor key of the default pass; job ids are positive. */
    private static final long DEFAULT_PASS = 0;
    /** The cursor before the first batch of a pass: below every id. */
    private static final long FIRST = -1;

    /** How a run ended: the {@code outcome} tag of {@code tickwheel_retention_runs_total}. */
    public enum Outcome {
        /** Every pass reached its end. */
        CAUGHT_UP,
        /** The batch budget ran out with more to look at. */
        BUDGET_SPENT,
        /** A store call failed. */
        FAILED;

        /** The metric tag: {@code caught_up}, {@code budget_spent}, {@code failed}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The purge's settings.
     *
     * @param defaultDays      days a finished instance is kept unless its job says otherwise, 1..{@value
     *                         JobOperations#MAX_RETENTION_DAYS}
     * @param batchSize        rows one batch looks at (and so deletes) at most, 1..{@value #MAX_BATCH_SIZE}
     * @param interval         time between the starts of two runs
     * @param maxBatchesPerRun batches one run makes at most, at least 1
     */
    public record Settings(int defaultDays, int batchSize, Duration interval, int maxBatchesPerRun) {

        public static final int DEFAULT_DAYS = 7;
        public static final int DEFAULT_BATCH_SIZE = 500;
        public static final int MAX_BATCH_SIZE = 10_000;
        public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
        public static final int DEFAULT_MAX_BATCHES_PER_RUN = 100;
        /** 7 days, batches of 500, every minute, 100 batches a run at most. */
        public static final Settings DEFAULTS = new Settings(DEFAULT_DAYS, DEFAULT_BATCH_SIZE, DEFAULT_INTERVAL,
                DEFAULT_MAX_BATCHES_PER_RUN);

        public Settings {
            if (defaultDays < 1 || defaultDays > JobOperations.MAX_RETENTION_DAYS) {
                throw new IllegalArgumentException("retentionDays must be in 1.." + JobOperations.MAX_RETENTION_DAYS
                        + ": " + defaultDays);
            }
            if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("retentionBatchSize must be in 1.." + MAX_BATCH_SIZE + ": "
                        + batchSize);
            }
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()
                    || interval.compareTo(PeriodicTaskScheduler.MAX_DURATION) > 0) {
                throw new IllegalArgumentException("retentionInterval must be in (PT0S, "
                        + PeriodicTaskScheduler.MAX_DURATION + "]: " + interval);
            }
            if (maxBatchesPerRun < 1) {
                throw new IllegalArgumentException("maxBatchesPerRun must be at least 1: " + maxBatchesPerRun);
            }
        }
    }

    /** One pass of a run: whose instances, kept how long. */
    private record Pass(long key, PurgeScope scope, Instant cutoff) {
    }

    private final InstanceStore instances;
    private final JobStore jobs;
    private final ShardOwnership ownership;
    private final Settings settings;
    private final Clock clock;
    private final Ticker ticker;
    private final RepeatedFailureLog failureLog;

    // Guarded by this (runs are serialized): where each unfinished pass stopped, and the pass the next run starts at.
    private final Map<Long, Long> cursors = new HashMap<>();
    private long resumeAt = DEFAULT_PASS;

    // Written by runs, read by metrics scrapes.
    private final AtomicLong purged = new AtomicLong();
    private final AtomicLong caughtUpRuns = new AtomicLong();
    private final AtomicLong budgetSpentRuns = new AtomicLong();
    private final AtomicLong failedRuns = new AtomicLong();
    private final AtomicLong totalNanos = new AtomicLong();

    /**
     * @param clock  the wall clock the cutoffs are computed from
     * @param ticker times the runs (metrics) and spaces the failure log
     */
    public RetentionPurge(InstanceStore instances, JobStore jobs, ShardOwnership ownership, Settings settings,
                          Clock clock, Ticker ticker) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.failureLog = new RepeatedFailureLog(log, "retention purge", FAILURE_LOG_INTERVAL, ticker);
    }

    /**
     * One run (see the class comment). Never throws a {@link RuntimeException}: a failure is counted and logged, and
     * what was deleted before it stays deleted.
     *
     * @return instances deleted by this run
     */
    public synchronized long run() {
        long startNanos = ticker.read();
        Outcome outcome = Outcome.FAILED;
        long deleted = 0;
        try {
            Instant now = clock.instant();
            Set<Integer> held = ownership.heldShards();
            Map<Long, Integer> overrides = held.isEmpty() ? Map.of() : new TreeMap<>(jobs.findRetentionOverrides());
            if (!held.isEmpty()) {
                deleted += dropWholeDays(now, overrides);
            }
            List<Pass> passes = passes(now, held, overrides);
            int batches = 0;
            Outcome reached = Outcome.CAUGHT_UP;
            for (Pass pass : passes) {
                resumeAt = pass.key();
                long cursor = cursors.getOrDefault(pass.key(), FIRST);
                boolean exhausted = false;
                while (!exhausted && batches < settings.maxBatchesPerRun()) {
                    PurgeBatch batch = instances.purgeFinished(pass.scope(), pass.cutoff(), cursor,
                            settings.batchSize());
                    batches++;
                    deleted += batch.deleted();
                    purged.addAndGet(batch.deleted());
                    cursor = batch.lastId();
                    cursors.put(pass.key(), cursor);
                    exhausted = batch.exhausted();
                }
                if (!exhausted) {
                    reached = Outcome.BUDGET_SPENT;
                    break;
                }
                cursors.remove(pass.key());
            }
            if (reached == Outcome.CAUGHT_UP) {
                resumeAt = DEFAULT_PASS;
            }
            outcome = reached;
            failureLog.succeeded();
            log.debug("retention run: {} instances deleted in {} batches over {} passes, {}", deleted, batches,
                    passes.size(), outcome.tag());
        } catch (RuntimeException e) {
            failureLog.failed(e);
        } finally {
            // An Error leaves as FAILED too: counted here, logged by the scheduler's guard.
            counter(outcome).incrementAndGet();
            totalNanos.addAndGet(ticker.read() - startNanos);
        }
        return deleted;
    }

    /**
     * The store's whole-day step ({@link InstanceStore#maintainPartitions}), before the passes: days whose rows are
     * all past the default retention and hold no job kept longer go whole.
     */
    private long dropWholeDays(Instant now, Map<Long, Integer> overrides) {
        Set<Long> keptLonger = new java.util.TreeSet<>();
        overrides.forEach((jobId, days) -> {
            if (days > settings.defaultDays()) {
                keptLonger.add(jobId);
            }
        });
        long dropped = instances.maintainPartitions(now, now.minus(Duration.ofDays(settings.defaultDays())),
                keptLonger);
        purged.addAndGet(dropped);
        return dropped;
    }

    /**
     * This run's passes, the one the last run stopped in first, then the others in their order, going round. None
     * while this member holds no shard.
     */
    private List<Pass> passes(Instant now, Set<Integer> held, Map<Long, Integer> overrides) {
        if (held.isEmpty()) {
            return List.of();
        }
        List<Pass> passes = new ArrayList<>();
        Set<Integer> shards = held.size() == ownership.shardCount() ? null : held;
        passes.add(new Pass(DEFAULT_PASS, PurgeScope.allJobsExcept(overrides.keySet(), shards),
                instances.rowPurgeCutoff(now.minus(Duration.ofDays(settings.defaultDays())))));
        overrides.forEach((jobId, days) -> {
            if (held.contains(ownership.shardOf(jobId))) {
                passes.add(new Pass(jobId, PurgeScope.ofJob(jobId), now.minus(Duration.ofDays(days))));
            }
        });
        cursors.keySet().retainAll(passes.stream().map(Pass::key).toList()); // jobs deleted, changed or moved away
        int first = 0;
        for (int i = 0; i < passes.size(); i++) {
            if (passes.get(i).key() == resumeAt) {
                first = i;
            }
        }
        List<Pass> rotated = new ArrayList<>(passes.subList(first, passes.size()));
        rotated.addAll(passes.subList(0, first));
        return rotated;
    }

    private AtomicLong counter(Outcome outcome) {
        return switch (outcome) {
            case CAUGHT_UP -> caughtUpRuns;
            case BUDGET_SPENT -> budgetSpentRuns;
            case FAILED -> failedRuns;
        };
    }

    /** The counters now. */
    public RetentionStats stats() {
        return new RetentionStats(purged.get(), caughtUpRuns.get(), budgetSpentRuns.get(), failedRuns.get(),
                totalNanos.get());
    }
}
