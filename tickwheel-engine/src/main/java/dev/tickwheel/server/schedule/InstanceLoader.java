package dev.tickwheel.server.schedule;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.ScheduleWindow;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.DueJobCursor;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.InvalidTimeExpressionException;
import dev.tickwheel.time.TimeExpression;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loader pass: walks the enabled jobs whose next trigger time falls within the load window, in pages, and for each
 * page creates its jobs' instances and advances their next trigger times in one transaction (one compare-and-set per
 * job, multi-row inserts), then arms the created instances on the wheel.
 *
 * <p>The advance is a compare-and-set on the job's next trigger time and version, and (job, expected trigger time) is
 * unique, so a pass that runs twice, or on two servers at once, creates each instance once: the loser's advance fails
 * and writes nothing. A pass that read a job before a user changed it writes nothing for it either; the change stands
 * (it loads the job itself).
 *
 * <p>A pass loads only the jobs of the shards this member holds: each job's loading belongs to its shard's owner. The
 * instances it creates are spread over the shards unless the job needs one owner
 * ({@link Job#spreadsInstances()}), and each goes to its own shard's owner ({@link OwnerArming}). Two
 * members whose views of a moving shard overlap for a moment still create each instance once (the compare-and-set
 * above), and an instance created by a member that has just lost the shard waits in the store for the new owner's
 * sweep.
 *
 * <p>Thread-safe; passes normally run on the single loader thread, and {@link #loadJob} may also be called by whoever
 * creates or changes a job so that a trigger due sooner than the next pass is not missed.
 */
public final class InstanceLoader {

    public static final int DEFAULT_PAGE_SIZE = 500;

    private static final Logger log = LoggerFactory.getLogger(InstanceLoader.class);

    private final JobStore jobs;
    private final InstanceStore instances;
    private final OwnerArming arming;
    private final ShardOwnership ownership;
    private final InstancePlanner planner;
    private final TimeExpressionParser parser;
    private final CalendarCatalog calendars;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    private final Duration window;
    private final int pageSize;
    private final DispatchListener listener;
    private final JobCatalog catalog;

    /**
     * @param listener told of the missed triggers a misfire policy dropped (metrics, alerts)
     * @param catalog  stamps the jobs a pass reads, so that their new instances fire with them
     *                 ({@link JobCatalog#stamp})
     */
    public InstanceLoader(JobStore jobs, InstanceStore instances, OwnerArming arming,
                          ShardOwnership ownership, InstancePlanner planner, TimeExpressionParser parser,
                          SnowflakeIdGenerator ids, Clock clock, Duration window, int pageSize,
                          DispatchListener listener, CalendarCatalog calendars, JobCatalog catalog) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.calendars = Objects.requireNonNull(calendars, "calendars");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.arming = Objects.requireNonNull(arming, "arming");
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.planner = Objects.requireNonNull(planner, "planner");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.window = Objects.requireNonNull(window, "window");
        this.pageSize = pageSize;
    }

    /**
     * Runs one pass over every due job of the shards this member holds and arms what it creates; returns the number of
     * instances created.
     */
    public int loadDue() {
        Collection<Integer> shards = ownership.heldShards();
        return shards.isEmpty() ? 0 : pass(shards, Set.of(), new HashMap<>());
    }

    /**
     * A pass over the jobs of {@code shards} that arms none of the instances it creates in those shards: recovery of
     * newly held shards runs it, then decides about every waiting instance of them at once (missed triggers of one
     * downtime), and arms them itself. Instances it creates in other shards (a job that spreads them) go to their
     * owners as a loader pass's do.
     *
     * @return the jobs the pass advanced by id, as read and stamped before their advance ({@link JobCatalog#stamp}):
     *         the recovery arms their instances with them
     */
    public Map<Long, JobCatalog.Stamped> createDue(Collection<Integer> shards) {
        Map<Long, JobCatalog.Stamped> advanced = new HashMap<>();
        if (!shards.isEmpty()) {
            pass(shards, Set.copyOf(shards), advanced);
        }
        return advanced;
    }

    /**
     * @param recovering shards whose new instances are left to their recovery, not armed
     * @param advanced   gets the jobs the pass advanced, stamped
     */
    private int pass(Collection<Integer> shards, Set<Integer> recovering, Map<Long, JobCatalog.Stamped> advanced) {
        Instant now = clock.instant();
        Instant windowEnd = now.plus(window);
        int createdThisPass = 0;
        DueJobCursor cursor = null;
        while (true) {
            List<Job> page = jobs.findDue(windowEnd, cursor, pageSize, shards);
            createdThisPass += loadPage(page, now, windowEnd, recovering, advanced);
            if (page.size() < pageSize) {
                break;
            }
            cursor = DueJobCursor.after(page.get(page.size() - 1));
        }
        if (createdThisPass > 0) {
            log.debug("loader pass created {} instances due before {}", createdThisPass, windowEnd);
        }
        return createdThisPass;
    }

    /**
     * Plans every job of a page and writes them all in one transaction (see
     * {@link InstanceStore#createInstancesAndAdvanceJobs}); each job still advances by its own compare-and-set, so a
     * job another loader moved first is skipped exactly as in {@link #loadJob}.
     */
    private int loadPage(List<Job> page, Instant now, Instant windowEnd, Set<Integer> recovering,
                         Map<Long, JobCatalog.Stamped> advanced) {
        List<Planned> planned = new ArrayList<>(page.size());
        for (Job job : page) {
            Planned one = plan(job, now, windowEnd);
            if (one != null) {
                planned.add(one);
            }
        }
        if (planned.isEmpty()) {
            return 0;
        }
        List<AdvanceResult> results = instances.createInstancesAndAdvanceJobs(
                planned.stream().map(Planned::advance).toList());
        int createdHere = 0;
        for (int i = 0; i < results.size(); i++) {
            createdHere += created(planned.get(i), results.get(i), recovering, advanced);
        }
        return createdHere;
    }

    /** Loads one job now, if it is due within the window and this member holds its shard. */
    public int loadJob(Job job) {
        if (!ownership.holds(ownership.shardOf(job.id()))) {
            return 0;
        }
        Instant now = clock.instant();
        Planned planned = plan(job, now, now.plus(window));
        if (planned == null) {
            return 0;
        }
        return created(planned, instances.createInstancesAndAdvanceJob(planned.advance()), Set.of(), new HashMap<>());
    }

    /**
     * A job's advance, and the missed triggers its misfire policy dropped: counted once the advance is written. {@code
     * loaded} is the job as read, stamped when planned: before the advance, which is a compare-and-set on the version
     * it was read at (see {@link JobCatalog} for why that makes it safe to fire the new instances with it).
     */
    private record Planned(JobAdvance advance, JobCatalog.Stamped loaded, int droppedMissed, int skippedByCalendar) {
        Job job() {
            return loaded.job();
        }
    }

    /** The instances to create and the advance to make for a due job; null if the job is not due or invalid. */
    private Planned plan(Job job, Instant now, Instant windowEnd) {
        if (!job.enabled() || job.nextTriggerTime() == null || job.nextTriggerTime().isAfter(windowEnd)) {
            return null;
        }
        TimeExpression expression;
        try {
            expression = parser.parse(job.schedule());
        } catch (InvalidTimeExpressionException e) {
            log.error("job {} has an invalid schedule and is not loaded: {}", job.id(), e.getMessage());
            return null;
        }
        JobCalendar calendar = null;
        String calendarName = job.schedule().calendar();
        if (calendarName != null) {
            calendar = calendars.get(calendarName).orElse(null);
            if (calendar == null) {
                // The store refuses to delete a calendar a job names; this is a calendar deleted and not yet
                // re-created between two reads. Nothing is skipped rather than the job stopped.
                log.error("job {} names calendar '{}', which does not exist; no day is excluded", job.id(),
                        calendarName);
            }
        }
        LoadPlan plan = planner.plan(job, expression, now, windowEnd, calendar);
        if (plan.droppedMissed() > 0) {
            log.warn("job {} missed {} trigger(s); misfire policy {} dropped them", job.id(), plan.droppedMissed(),
                    job.misfirePolicy());
        }
        List<NewInstance> toCreate = new ArrayList<>(plan.triggerTimes().size());
        for (Instant trigger : plan.triggerTimes()) {
            Instant due = trigger.plusMillis(ScheduleWindow.jitterMs(job.id(), job.schedule(), trigger));
            toCreate.add(NewInstance.scheduled(ids.nextId(), job.id(), trigger, due));
        }
        return new Planned(new JobAdvance(job.id(), job.version(), job.nextTriggerTime(), plan.nextTrigger(),
                toCreate, job.spreadsInstances(), job.delivery().pool()), catalog.stamp(job), plan.droppedMissed(),
                plan.skippedByCalendar());
    }

    private int created(Planned planned, AdvanceResult result, Set<Integer> recovering,
                        Map<Long, JobCatalog.Stamped> advanced) {
        long jobId = planned.advance().jobId();
        if (!result.advanced()) {
            log.debug("job {} was advanced concurrently; skipped", jobId);
            return 0;
        }
        advanced.put(jobId, planned.loaded());
        if (planned.droppedMissed() > 0) {
            // Counted here, not when planned: a plan whose advance lost to another loader dropped nothing.
            // The earliest missed trigger is the job's next trigger time this plan started from.
            listener.misfiresDropped(planned.job(), planned.droppedMissed(), planned.job().nextTriggerTime());
        }
        if (planned.skippedByCalendar() > 0) {
            listener.triggersSkippedByCalendar(planned.job(), planned.skippedByCalendar());
        }
        for (NewInstance instance : result.created()) {
            int shard = planned.advance().shardOf(instance, ownership.shardCount());
            if (!recovering.contains(shard)) {
                arming.arm(instance.id(), shard, instance.expectedTriggerTime(), instance.priority(),
                        planned.loaded());
            }
        }
        return result.created().size();
    }
}
