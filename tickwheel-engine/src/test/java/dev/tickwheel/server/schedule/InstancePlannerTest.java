package dev.tickwheel.server.schedule;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.CronSchedule;
import dev.tickwheel.time.FixedDelaySchedule;
import dev.tickwheel.time.FixedRateSchedule;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.OneShotSchedule;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.TimeExpression;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The loader's planning on fixed instants: windows, late and missed triggers, each misfire policy. */
class InstancePlannerTest {

    private static final Instant NOW = Instant.parse("2026-03-10T12:00:00Z");
    private final InstancePlanner planner = new InstancePlanner(Duration.ofSeconds(5), new MisfireResolver(3));

    /** A plan without a calendar. */
    private LoadPlan plan(Job job, TimeExpression expression, Instant now, Instant windowEnd) {
        return planner.plan(job, expression, now, windowEnd, null);
    }

    private static Job job(TimeExpression expression, Instant next, MisfirePolicy policy) {
        return new Job(1, "job", ScheduleSpec.of(expression), Target.handler("h"), null, true, policy,
                RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, next, NOW, NOW, 0);
    }

    private static Job windowed(TimeExpression expression, Instant next, MisfirePolicy policy, Instant startAt,
            Instant endAt, Integer maxRuns, long runsSoFar) {
        return new Job(1, "job", ScheduleSpec.of(expression).withWindow(null, null, startAt, endAt, maxRuns),
                Target.handler("h"), null, true, policy, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, next, runsSoFar, NOW, NOW, 0);
    }

    @Test
    void plan_triggersBeforeTheStart_getNoInstance_andAreNotMisses() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(60), Duration.ofSeconds(10));
        Job job = windowed(rate, NOW.minusSeconds(60), MisfirePolicy.FIRE_ALL, NOW.plusSeconds(5), null, null, 0);

        LoadPlan plan = plan(job, rate, NOW, NOW.plusSeconds(30));

        assertEquals(List.of(NOW.plusSeconds(10), NOW.plusSeconds(20), NOW.plusSeconds(30)), plan.triggerTimes());
        assertEquals(0, plan.droppedMissed(), "before the start is outside the schedule, not missed");
        assertEquals(NOW.plusSeconds(40), plan.nextTrigger());
    }

    @Test
    void plan_triggersAfterTheEnd_getNoInstance_andTheJobHasNoNextTrigger() {
        CronSchedule cron = CronSchedule.parse("*/10 * * * * ?", ZoneId.of("UTC"));
        Job job = windowed(cron, NOW, MisfirePolicy.SKIP, null, NOW.plusSeconds(20), null, 0);

        LoadPlan plan = plan(job, cron, NOW, NOW.plusSeconds(60));

        assertEquals(List.of(NOW, NOW.plusSeconds(10), NOW.plusSeconds(20)), plan.triggerTimes());
        assertNull(plan.nextTrigger());
        LoadPlan before = plan(job, cron, NOW, NOW.plusSeconds(10));
        assertEquals(NOW.plusSeconds(20), before.nextTrigger(), "the end not reached in this pass");
    }

    @Test
    void plan_maxRuns_countsWhatEarlierPassesCreated_andEndsTheScheduleWhenUsedUp() {
        CronSchedule cron = CronSchedule.parse("*/10 * * * * ?", ZoneId.of("UTC"));

        LoadPlan first = plan(windowed(cron, NOW, MisfirePolicy.SKIP, null, null, 5, 0), cron, NOW,
                NOW.plusSeconds(20));
        assertEquals(3, first.triggerTimes().size());
        assertEquals(NOW.plusSeconds(30), first.nextTrigger());

        LoadPlan second = plan(windowed(cron, NOW.plusSeconds(30), MisfirePolicy.SKIP, null, null, 5, 3), cron,
                NOW, NOW.plusSeconds(60));
        assertEquals(List.of(NOW.plusSeconds(30), NOW.plusSeconds(40)), second.triggerTimes());
        assertNull(second.nextTrigger(), "five runs: none left");

        LoadPlan exact = plan(windowed(cron, NOW, MisfirePolicy.SKIP, null, null, 2, 0), cron, NOW,
                NOW.plusSeconds(10));
        assertEquals(2, exact.triggerTimes().size());
        assertNull(exact.nextTrigger(), "the pass that uses the last run ends the schedule");

        LoadPlan usedUp = plan(windowed(cron, NOW, MisfirePolicy.SKIP, null, null, 2, 2), cron, NOW,
                NOW.plusSeconds(10));
        assertEquals(List.of(), usedUp.triggerTimes());
        assertNull(usedUp.nextTrigger());
    }

    @Test
    void plan_missedTriggersInsideTheWindow_followTheMisfirePolicy_andCountAsRuns() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(60), Duration.ofSeconds(10));
        Job job = windowed(rate, NOW.minusSeconds(60), MisfirePolicy.FIRE_ONCE_NOW, NOW.minusSeconds(35), null, 2, 0);

        LoadPlan plan = plan(job, rate, NOW, NOW.plusSeconds(30));

        // in the window: missed -30 -20 -10 (the latest kept), then 0: two runs
        assertEquals(List.of(NOW.minusSeconds(10), NOW), plan.triggerTimes());
        assertEquals(2, plan.droppedMissed());
        assertNull(plan.nextTrigger());
    }

    @Test
    void plan_cronEvery2sOver30sWindow_createsEveryTrigger() {
        CronSchedule cron = CronSchedule.parse("*/2 * * * * ?", ZoneId.of("UTC"));
        LoadPlan plan = plan(job(cron, NOW, MisfirePolicy.FIRE_ONCE_NOW), cron, NOW, NOW.plusSeconds(30));
        assertEquals(16, plan.triggerTimes().size(), "12:00:00, :02 ... :30 inclusive");
        assertEquals(NOW, plan.triggerTimes().get(0));
        assertEquals(NOW.plusSeconds(30), plan.triggerTimes().get(15));
        assertEquals(NOW.plusSeconds(32), plan.nextTrigger());
    }

    @Test
    void plan_lateWithinThreshold_firesWithoutMisfire() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(3), Duration.ofSeconds(10));
        LoadPlan plan = plan(job(rate, NOW.minusSeconds(3), MisfirePolicy.SKIP), rate, NOW,
                NOW.plusSeconds(30));
        assertEquals(List.of(NOW.minusSeconds(3), NOW.plusSeconds(7), NOW.plusSeconds(17), NOW.plusSeconds(27)),
                plan.triggerTimes());
        assertEquals(0, plan.droppedMissed());
        assertEquals(NOW.plusSeconds(37), plan.nextTrigger());
    }

    @Test
    void plan_missedFireOnceNow_keepsLatestMissedAndUpcoming() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(60), Duration.ofSeconds(10));
        LoadPlan plan = plan(job(rate, NOW.minusSeconds(60), MisfirePolicy.FIRE_ONCE_NOW), rate, NOW,
                NOW.plusSeconds(15));
        // missed: -60 -50 -40 -30 -20 -10 ; late: 0 ; upcoming: 10
        assertEquals(List.of(NOW.minusSeconds(10), NOW, NOW.plusSeconds(10)), plan.triggerTimes());
        assertEquals(5, plan.droppedMissed());
        assertEquals(NOW.plusSeconds(20), plan.nextTrigger());
    }

    @Test
    void plan_missedSkip_dropsAllMissed() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(60), Duration.ofSeconds(10));
        LoadPlan plan = plan(job(rate, NOW.minusSeconds(60), MisfirePolicy.SKIP), rate, NOW,
                NOW.plusSeconds(15));
        assertEquals(List.of(NOW, NOW.plusSeconds(10)), plan.triggerTimes());
        assertEquals(6, plan.droppedMissed());
    }

    @Test
    void plan_missedFireAll_keepsLatestUpToLimit() {
        FixedRateSchedule rate = new FixedRateSchedule(NOW.minusSeconds(60), Duration.ofSeconds(10));
        LoadPlan plan = plan(job(rate, NOW.minusSeconds(60), MisfirePolicy.FIRE_ALL), rate, NOW,
                NOW.plusSeconds(5));
        assertEquals(List.of(NOW.minusSeconds(30), NOW.minusSeconds(20), NOW.minusSeconds(10), NOW),
                plan.triggerTimes(), "limit 3 of the 6 missed, then the late one");
        assertEquals(3, plan.droppedMissed());
    }

    @Test
    void plan_oneShotDue_createsOneAndEnds() {
        OneShotSchedule once = new OneShotSchedule(NOW.plusSeconds(4));
        LoadPlan plan = plan(job(once, once.at(), MisfirePolicy.FIRE_ONCE_NOW), once, NOW, NOW.plusSeconds(30));
        assertEquals(List.of(NOW.plusSeconds(4)), plan.triggerTimes());
        assertNull(plan.nextTrigger());
    }

    @Test
    void plan_oneShotMissedSkip_createsNothingAndEnds() {
        OneShotSchedule once = new OneShotSchedule(NOW.minusSeconds(3600));
        LoadPlan plan = plan(job(once, once.at(), MisfirePolicy.SKIP), once, NOW, NOW.plusSeconds(30));
        assertEquals(List.of(), plan.triggerTimes());
        assertNull(plan.nextTrigger());
        assertEquals(1, plan.droppedMissed());
    }

    @Test
    void plan_fixedDelay_createsOneAndWaitsForCompletion() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofSeconds(2));
        LoadPlan plan = plan(job(delay, NOW.plusSeconds(2), MisfirePolicy.FIRE_ONCE_NOW), delay, NOW,
                NOW.plusSeconds(30));
        assertEquals(List.of(NOW.plusSeconds(2)), plan.triggerTimes());
        assertNull(plan.nextTrigger(), "the next instance follows the completion of this one");
    }

    @Test
    void plan_fixedDelayMissedSkip_restartsFromNow() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofSeconds(2));
        LoadPlan plan = plan(job(delay, NOW.minusSeconds(60), MisfirePolicy.SKIP), delay, NOW,
                NOW.plusSeconds(30));
        assertEquals(List.of(), plan.triggerTimes());
        assertEquals(NOW.plusSeconds(2), plan.nextTrigger(), "a skipped run counts as completed now");
    }

    @Test
    void plan_nextTriggerBeyondWindow_createsNothing() {
        CronSchedule cron = CronSchedule.parse("0 0 3 * * ?", ZoneId.of("Europe/Berlin"));
        Instant next = cron.nextAfter(NOW).orElseThrow();
        LoadPlan plan = plan(job(cron, next, MisfirePolicy.FIRE_ONCE_NOW), cron, NOW, NOW.plusSeconds(30));
        assertEquals(List.of(), plan.triggerTimes());
        assertEquals(next, plan.nextTrigger());
    }
}
