package dev.tickwheel.server.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.schedule.InstancePlanner;
import dev.tickwheel.server.schedule.LoadPlan;
import dev.tickwheel.time.CronSchedule;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.MisfireResolver;
import dev.tickwheel.time.ScheduleSpec;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Excluded days in a calendar's zone, across daylight-saving changes, and what the planner makes of them. */
class JobCalendarTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
    private final InstancePlanner planner = new InstancePlanner(Duration.ofSeconds(5), new MisfireResolver(3));

    private static JobCalendar calendar(Set<LocalDate> dates, Set<DayOfWeek> weekdays) {
        return new JobCalendar("holidays", BERLIN, new TreeSet<>(dates), weekdays, CREATED);
    }

    @Test
    void excludes_theWholeLocalDay_ofTwentyThreeHoursWhenTheClocksGoForward() {
        // 2026-03-29, Berlin: 00:00 CET is 2026-03-28T23:00Z, 00:00 CEST on the 30th is 2026-03-29T22:00Z.
        JobCalendar calendar = calendar(Set.of(LocalDate.parse("2026-03-29")), Set.of());

        assertFalse(calendar.excludes(Instant.parse("2026-03-28T22:59:59Z")));
        assertTrue(calendar.excludes(Instant.parse("2026-03-28T23:00:00Z")));
        assertTrue(calendar.excludes(Instant.parse("2026-03-29T21:59:59Z")));
        assertFalse(calendar.excludes(Instant.parse("2026-03-29T22:00:00Z")));
    }

    @Test
    void plannerOverAClocksForwardSunday_skipsItsTwentyThreeHourlyTriggers_andCountsThem() {
        assertSkippedHours(calendar(Set.of(), Set.of(DayOfWeek.SUNDAY)), "2026-03-28T12:00:00Z", 23,
                "2026-03-28T22:00:00Z", "2026-03-29T22:00:00Z");
        assertSkippedHours(calendar(Set.of(LocalDate.parse("2026-03-29")), Set.of()), "2026-03-28T12:00:00Z", 23,
                "2026-03-28T22:00:00Z", "2026-03-29T22:00:00Z");
    }

    @Test
    void plannerOverAClocksBackSunday_skipsItsTwentyFiveHourlyTriggers() {
        // 2026-10-25, Berlin: 00:00 CEST is 2026-10-24T22:00Z, 00:00 CET on the 26th is 2026-10-25T23:00Z.
        assertSkippedHours(calendar(Set.of(LocalDate.parse("2026-10-25")), Set.of()), "2026-10-24T12:00:00Z", 25,
                "2026-10-24T21:00:00Z", "2026-10-25T23:00:00Z");
    }

    /**
     * Plans an hourly cron over the 48 hours from {@code from} with {@code calendar}; checks how many were skipped and
     * that the kept trigger times jump from {@code lastBefore} straight to {@code firstAfter}.
     */
    private void assertSkippedHours(JobCalendar calendar, String from, int skipped, String lastBefore,
            String firstAfter) {
        CronSchedule hourly = CronSchedule.parse("0 0 * * * ?", BERLIN);
        Instant start = Instant.parse(from);
        Job job = new Job(1, "job", ScheduleSpec.of(hourly).withCalendar("holidays"), Target.handler("h"), null,
                true, MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, start,
                CREATED, CREATED, 0);

        LoadPlan plan = planner.plan(job, hourly, start, start.plus(Duration.ofHours(47)), calendar);

        assertEquals(skipped, plan.skippedByCalendar());
        assertEquals(48 - skipped, plan.triggerTimes().size());
        int before = plan.triggerTimes().indexOf(Instant.parse(lastBefore));
        assertTrue(before >= 0, plan.triggerTimes().toString());
        assertEquals(Instant.parse(firstAfter), plan.triggerTimes().get(before + 1));
        assertEquals(0, plan.droppedMissed(), "skipped days are not misfires");
        assertEquals(start.plus(Duration.ofHours(48)), plan.nextTrigger());
    }

    @Test
    void invalidCalendars_areRefused() {
        assertThrows(IllegalArgumentException.class, () -> new JobCalendar("a b", BERLIN, new TreeSet<>(), Set.of(),
                CREATED));
        assertThrows(IllegalArgumentException.class, () -> new JobCalendar("x".repeat(101), BERLIN, new TreeSet<>(),
                Set.of(), CREATED));
        assertThrows(IllegalArgumentException.class, () -> new JobCalendar("all", BERLIN, new TreeSet<>(),
                Set.of(DayOfWeek.values()), CREATED));
        TreeSet<LocalDate> tooMany = new TreeSet<>();
        for (int i = 0; i <= JobCalendar.MAX_DATES; i++) {
            tooMany.add(LocalDate.parse("2026-01-01").plusDays(i));
        }
        assertThrows(IllegalArgumentException.class, () -> new JobCalendar("many", BERLIN, tooMany, Set.of(),
                CREATED));
    }
}
