package dev.tickwheel.server.schedule;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.DueJobCursor;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.InvalidTimeExpressionException;
import dev.tickwheel.time.TimeExpression;
import dev.tickwheel.time.TimeExpressionParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loader pass: walks the enabled jobs whose next trigger time falls within the load window, in pages, and for each
 * creates its instances and advances its next trigger time in one transaction, then arms the created instances on the
 * wheel.
 *
 * <p>The advance is a compare-and-set on the job's next trigger time, and (job, expected trigger time) is unique, so a
 * pass that runs twice, or on two servers at once, creates each instance once: the loser's advance fails and writes
 * nothing.
 *
 * <p>Thread-safe; passes normally run on the single loader thread, and {@link #loadJob} may also be called by whoever
 * creates or changes a job so that a trigger due sooner than the next pass is not missed.
 */
public final class InstanceLoader {

    public static final int DEFAULT_PAGE_SIZE = 500;

    private static final Logger log = LoggerFactory.getLogger(InstanceLoader.class);

    private final JobStore jobs;
    private final InstanceStore instances;
    private final InstanceDispatcher dispatcher;
    private final InstancePlanner planner;
    private final TimeExpressionParser parser;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    private final Duration window;
    private final int pageSize;
    private final LongAdder created = new LongAdder();

    public InstanceLoader(JobStore jobs, InstanceStore instances, InstanceDispatcher dispatcher, InstancePlanner planner,
                          TimeExpressionParser parser, SnowflakeIdGenerator ids, Clock clock, Duration window,
                          int pageSize) {
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.planner = Objects.requireNonNull(planner, "planner");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.window = Objects.requireNonNull(window, "window");
        this.pageSize = pageSize;
    }

    /** Runs one pass over every due job; returns the number of instances created. */
    public int loadDue() {
        Instant now = clock.instant();
        Instant windowEnd = now.plus(window);
        int createdThisPass = 0;
        DueJobCursor cursor = null;
        while (true) {
            List<Job> page = jobs.findDue(windowEnd, cursor, pageSize);
            for (Job job : page) {
                createdThisPass += loadJob(job, now, windowEnd);
            }
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

    /** Loads one job now, if it is due within the window. */
    public int loadJob(Job job) {
        Instant now = clock.instant();
        return loadJob(job, now, now.plus(window));
    }

    private int loadJob(Job job, Instant now, Instant windowEnd) {
        if (!job.enabled() || job.nextTriggerTime() == null || job.nextTriggerTime().isAfter(windowEnd)) {
            return 0;
        }
        TimeExpression expression;
        try {
            expression = parser.parse(job.schedule());
        } catch (InvalidTimeExpressionException e) {
            log.error("job {} has an invalid schedule and is not loaded: {}", job.id(), e.getMessage());
            return 0;
        }
        LoadPlan plan = planner.plan(job, expression, now, windowEnd);
        if (plan.droppedMissed() > 0) {
            log.warn("job {} missed {} trigger(s); misfire policy {} dropped them", job.id(), plan.droppedMissed(),
                    job.misfirePolicy());
        }
        List<NewInstance> toCreate = new ArrayList<>(plan.triggerTimes().size());
        for (Instant trigger : plan.triggerTimes()) {
            toCreate.add(new NewInstance(ids.nextId(), job.id(), trigger, null));
        }
        AdvanceResult result = instances.createInstancesAndAdvanceJob(
                job.id(), job.nextTriggerTime(), plan.nextTrigger(), toCreate);
        if (!result.advanced()) {
            log.debug("job {} was advanced concurrently; skipped", job.id());
            return 0;
        }
        for (NewInstance instance : result.created()) {
            dispatcher.arm(instance.id(), instance.expectedTriggerTime());
        }
        created.add(result.created().size());
        return result.created().size();
    }

    /** Instances created since start. */
    public long createdCount() {
        return created.sum();
    }
}
