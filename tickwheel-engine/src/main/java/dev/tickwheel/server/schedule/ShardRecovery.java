package dev.tickwheel.server.schedule;

import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.WaitingCursor;
import dev.tickwheel.time.InvalidTimeExpressionException;
import dev.tickwheel.time.MisfireResolution;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.MissedInstance;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the wheel from the store for shards this member has just come to hold (at start, on a take-over, or when
 * a shard moves here): the store is the truth, the wheel only a cache of it. In this order:
 *
 * <ol>
 *   <li><b>One loader pass</b> over the jobs of those shards (the caller's), which creates the instances of trigger
 *       times missed while nobody held them, under each job's misfire policy (see {@link InstancePlanner}).</li>
 *   <li><b>Waiting instances</b> of those shards due within the horizon (the shards' horizon is set first; later
 *       instances wait in the store for the horizon pass, so a recovery reads what is due soon, not the backlog).
 *       Each is armed for its trigger time. Scheduled first attempts older
 *       than the misfire threshold, those left from before and those the pass just created, are missed triggers of
 *       one downtime: per job they go through the {@link MisfireResolver} together, so FIRE_ONCE_NOW fires one
 *       instance for the whole downtime, SKIP none, FIRE_ALL at most its cap. The rest are cancelled. On-demand
 *       instances, retries and released claims always fire: somebody asked for them, or a call was already under
 *       way.</li>
 * </ol>
 *
 * <p>Claims a previous owner left DISPATCHING are not settled here but by {@link ForeignClaimSettler}, once their
 * calls can no longer be running.
 *
 * <p>Not thread-safe: runs on the loader thread, between loader passes.
 */
public final class ShardRecovery {

    private static final Logger log = LoggerFactory.getLogger(ShardRecovery.class);
    private static final int PAGE = 1_000;

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final InstanceDispatcher dispatcher;
    private final TimeExpressionParser parser;
    private final MisfireResolver misfires;
    private final Clock clock;
    private final Duration misfireThreshold;
    private final Duration horizon;
    private final DispatchListener listener;

    /** What a recovery did, for the log line and tests. */
    public record Report(int rearmed, int firedOverdue, int cancelledMisfires) {
    }

    public ShardRecovery(InstanceStore instances, JobCatalog jobs, InstanceDispatcher dispatcher,
                           TimeExpressionParser parser, MisfireResolver misfires, Clock clock,
                           Duration misfireThreshold, Duration horizon, DispatchListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.misfires = Objects.requireNonNull(misfires, "misfires");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.misfireThreshold = Objects.requireNonNull(misfireThreshold, "misfireThreshold");
        this.horizon = Objects.requireNonNull(horizon, "horizon");
    }

    /**
     * Runs {@code loaderPass} once over {@code shards}, then arms what waits in them. The pass must not arm what it
     * creates ({@link InstanceLoader#createDue}): a missed trigger it created could fire before this recovery has
     * weighed it against the older ones. It returns the jobs it advanced, stamped before their advance: their
     * instances fire with those copies ({@link InstanceDispatcher#arm(long, long, int, Instant, Integer,
     * JobCatalog.Stamped)}) rather than reading them again.
     */
    public Report run(Collection<Integer> shards, Supplier<Map<Long, JobCatalog.Stamped>> loaderPass) {
        // Before anything of these shards can fire: a job's limit counts the work its targets accepted for a later
        // callback under an earlier owner (or this member before a restart).
        long readStart = System.nanoTime();
        dispatcher.reconcileCallbacks(readStart, instances.findAwaitingCallbacksOfLimitedJobs());
        // The horizon first: what is written from now on and due within it is armed when its owner hears of it. Set
        // even if what follows fails: the periodic passes then take these shards as recovered (see ShardOwner).
        Instant until = clock.instant().plus(horizon);
        dispatcher.extendHorizon(shards, until);
        Map<Long, JobCatalog.Stamped> loaded = loaderPass.get();
        Instant now = clock.instant();
        int rearmed = 0;
        Map<Long, List<Instance>> missedByJob = new HashMap<>();
        WaitingCursor after = WaitingCursor.FIRST;
        while (true) {
            List<Instance> page = instances.findWaiting(shards, after, until, PAGE);
            for (Instance instance : page) {
                if (isMissedTrigger(instance, now)) {
                    missedByJob.computeIfAbsent(instance.jobId(), id -> new ArrayList<>()).add(instance);
                } else if (arm(instance, instance.expectedTriggerTime(), loaded.get(instance.jobId()))) {
                    rearmed++;
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            Instance last = page.get(page.size() - 1);
            after = WaitingCursor.after(last.expectedTriggerTime(), last.id());
        }
        int fired = 0;
        int cancelled = 0;
        for (Map.Entry<Long, List<Instance>> entry : missedByJob.entrySet()) {
            Set<Long> keep = toFire(entry.getKey(), entry.getValue(), now);
            int cancelledOfJob = 0;
            Instant firstCancelled = null;
            for (Instance instance : entry.getValue()) {
                if (keep.contains(instance.id())) {
                    if (arm(instance, now, loaded.get(instance.jobId()))) {
                        fired++;
                    }
                } else if (instances.skip(instance.id(), "misfire: missed while no server held its shard")) {
                    dispatcher.disarm(instance.id()); // an earlier arming may have put it on the wheel
                    cancelledOfJob++;
                    if (firstCancelled == null || instance.expectedTriggerTime().isBefore(firstCancelled)) {
                        firstCancelled = instance.expectedTriggerTime();
                    }
                }
            }
            if (cancelledOfJob > 0) {
                // Only a job that exists has its missed instances cancelled (toFire keeps an orphan's).
                int dropped = cancelledOfJob;
                Instant firstMissed = firstCancelled;
                jobs.get(entry.getKey()).ifPresent(job -> listener.misfiresDropped(job, dropped, firstMissed));
                cancelled += cancelledOfJob;
            }
        }
        Report report = new Report(rearmed, fired, cancelled);
        log.info("recovery of {} shard(s): {} waiting instances armed, {} missed triggers fired now, {} missed"
                + " triggers cancelled", shards.size(), report.rearmed(), report.firedOverdue(),
                report.cancelledMisfires());
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

    /**
     * Arms an instance unless this member already has it (on the wheel, or fired and waiting for its claim); with its
     * job's stamped copy if the pass advanced the job ({@code loaded}), else null.
     */
    private boolean arm(Instance instance, Instant at, JobCatalog.Stamped loaded) {
        try {
            return dispatcher.armIfUnknown(instance.id(), instance.jobId(), instance.shard(), at, instance.priority(),
                    loaded);
        } catch (RuntimeException e) {
            // One bad row (a trigger time beyond what the wheel holds) must not stop the server from starting.
            log.error("instance {} cannot be armed for {}; it stays WAITING: {}", instance.id(), at, e.getMessage());
            return false;
        }
    }
}
