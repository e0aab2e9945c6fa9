package dev.tickwheel.server.schedule;

import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.time.InvalidTimeExpressionException;
import dev.tickwheel.time.MisfireResolution;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.MissedInstance;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the wheels from the store when a server starts: the store is the truth, the wheels only a cache of it. In
 * this order:
 *
 * <ol>
 *   <li><b>Interrupted calls.</b> A DISPATCHING instance was claimed when the server stopped; whether its call had
 *       started is unknown, except for AT_MOST_ONCE jobs, which mark a call before starting it. A stop never consumes an
 *       attempt: the claim is released (WAITING again as the same attempt, so the call is made again with the same
 *       {@code Idempotency-Key}), unless the job is AT_MOST_ONCE and the call had started: then it ends INTERRUPTED.
 *       </li>
 *   <li><b>One loader pass</b> (the caller's), which creates the instances of trigger times missed during the
 *       downtime under each job's misfire policy (see {@link InstancePlanner}).</li>
 *   <li><b>Waiting instances.</b> Each is armed for its trigger time. Scheduled first attempts older than the misfire
 *       threshold, those left from before the stop and those the pass just created, are missed triggers of one
 *       downtime: per job they go through the {@link MisfireResolver} together, so FIRE_ONCE_NOW fires one instance
 *       for the whole downtime, SKIP none, FIRE_ALL at most its cap. The rest are cancelled. On-demand instances,
 *       retries and released claims always fire: somebody asked for them, or a call was already under way.</li>
 * </ol>
 *
 * <p>Not thread-safe: run once, before the periodic loader starts.
 *
 * <p>Caveats: assumes this server is the only one on its store (the store's single-server lock ensures it).
 */
public final class StartupRecovery {

    private static final Logger log = LoggerFactory.getLogger(StartupRecovery.class);
    private static final int PAGE = 1_000;

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final InstanceDispatcher dispatcher;
    private final TimeExpressionParser parser;
    private final MisfireResolver misfires;
    private final Clock clock;
    private final Duration misfireThreshold;

    /** What a recovery did, for the start-up log line and tests. */
    public record Report(int rearmed, int firedOverdue, int cancelledMisfires, int releasedInterrupted,
                         int interruptedAtMostOnce) {
    }

    public StartupRecovery(InstanceStore instances, JobCatalog jobs, InstanceDispatcher dispatcher,
                           TimeExpressionParser parser, MisfireResolver misfires, Clock clock,
                           Duration misfireThreshold) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.misfires = Objects.requireNonNull(misfires, "misfires");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.misfireThreshold = Objects.requireNonNull(misfireThreshold, "misfireThreshold");
    }

    /**
     * Settles interrupted calls, runs {@code loaderPass} once, then arms what waits. The pass must not arm what it
     * creates ({@link InstanceLoader#createDue}): a missed trigger it created could fire before this recovery has
     * weighed it against the older ones.
     */
    public Report run(Runnable loaderPass) {
        int[] interrupted = settleInterrupted();
        loaderPass.run();
        Instant now = clock.instant();
        int rearmed = 0;
        Map<Long, List<Instance>> missedByJob = new HashMap<>();
        long after = 0;
        while (true) {
            // Every shard until recovery is told which shards this member holds (cluster wiring).
            List<Instance> page = instances.findWaiting(java.util.stream.IntStream.range(0,
                    dev.tickwheel.server.store.Shards.DEFAULT_COUNT).boxed().toList(), null, after, PAGE);
            for (Instance instance : page) {
                if (isMissedTrigger(instance, now)) {
                    missedByJob.computeIfAbsent(instance.jobId(), id -> new ArrayList<>()).add(instance);
                } else if (arm(instance, instance.expectedTriggerTime())) {
                    rearmed++;
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).id();
        }
        int fired = 0;
        int cancelled = 0;
        for (Map.Entry<Long, List<Instance>> entry : missedByJob.entrySet()) {
            Set<Long> keep = toFire(entry.getKey(), entry.getValue(), now);
            for (Instance instance : entry.getValue()) {
                if (keep.contains(instance.id())) {
                    if (arm(instance, now)) {
                        fired++;
                    }
                } else if (instances.skip(instance.id(), "misfire: missed while the server was down")) {
                    dispatcher.disarm(instance.id()); // the loader pass may have armed it
                    cancelled++;
                }
            }
        }
        Report report = new Report(rearmed, fired, cancelled, interrupted[0], interrupted[1]);
        log.info("recovery: {} waiting instances re-armed, {} missed triggers fired now, {} missed triggers"
                        + " cancelled, {} interrupted calls to be made again (same attempt), {} AT_MOST_ONCE calls"
                        + " interrupted", report.rearmed(), report.firedOverdue(), report.cancelledMisfires(),
                report.releasedInterrupted(), report.interruptedAtMostOnce());
        return report;
    }

    /** A scheduled first attempt, never claimed, older than the misfire threshold: a trigger the downtime missed. */
    private boolean isMissedTrigger(Instance instance, Instant now) {
        return !instance.isOnDemand() && instance.attempt() == 0 && instance.actualTriggerTime() == null
                && instance.expectedTriggerTime().isBefore(now.minus(misfireThreshold));
    }

    /** The ids of a job's missed instances its misfire policy fires, through the same resolver as the loader. */
    private Set<Long> toFire(long jobId, List<Instance> missed, Instant now) {
        Set<Long> keep = new HashSet<>();
        Optional<Job> job = jobs.get(jobId);
        if (job.isEmpty()) {
            missed.forEach(i -> keep.add(i.id())); // fired, then failed as an orphan: visible, not silently gone
            return keep;
        }
        Map<Instant, Long> byTime = new HashMap<>();
        missed.forEach(i -> byTime.put(i.scheduledTriggerTime(), i.id()));
        MisfireResolution resolution;
        try {
            resolution = misfires.resolve(parser.parse(job.get().schedule()), job.get().misfirePolicy(),
                    byTime.keySet(), now);
        } catch (InvalidTimeExpressionException e) {
            log.error("job {} has an invalid schedule; its {} missed instances fire now", jobId, missed.size());
            missed.forEach(i -> keep.add(i.id()));
            return keep;
        }
        for (MissedInstance fire : resolution.instancesToCreate()) {
            keep.add(byTime.get(fire.expectedTriggerTime()));
        }
        return keep;
    }

    private boolean arm(Instance instance, Instant at) {
        try {
            dispatcher.arm(instance.id(), instance.jobId(), at);
            return true;
        } catch (RuntimeException e) {
            // One bad row (a trigger time beyond what the wheel holds) must not stop the server from starting.
            log.error("instance {} cannot be armed for {}; it stays WAITING: {}", instance.id(), at, e.getMessage());
            return false;
        }
    }

    /** Returns {released, interrupted}. */
    private int[] settleInterrupted() {
        int released = 0;
        int interrupted = 0;
        long after = 0;
        while (true) {
            // Claims left by an earlier member, found and settled under the shards this member holds.
            List<dev.tickwheel.server.store.ForeignClaim> page = instances.findForeignClaims(after, PAGE);
            for (dev.tickwheel.server.store.ForeignClaim claim : page) {
                Instance instance = claim.instance();
                Optional<Job> job = jobs.get(instance.jobId());
                boolean atMostOnce = job.isPresent()
                        && job.get().delivery().guarantee() == DeliveryPolicy.Guarantee.AT_MOST_ONCE;
                if (atMostOnce && instance.callStartedAt() != null) {
                    if (instances.interruptForeign(instance.id(), instance.claimEpoch(),
                            "the server stopped during the call (attempt "
                            + instance.attempt() + "); AT_MOST_ONCE: not repeated, the target may or may not"
                            + " have run it")) {
                        interrupted++;
                    }
                } else if (instances.releaseForeign(instance.id(), instance.claimEpoch())) {
                    released++;
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).instance().id();
        }
        return new int[] {released, interrupted};
    }
}
