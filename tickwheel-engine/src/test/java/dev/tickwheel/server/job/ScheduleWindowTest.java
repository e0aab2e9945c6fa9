package dev.tickwheel.server.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.time.ScheduleSpec;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Jitter, window bounds and the checks of a schedule's window fields. */
class ScheduleWindowTest {

    private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");
    private static final ScheduleSpec HOURLY = ScheduleSpec.cron("0 0 * * * ?", "UTC");

    @Test
    void jitter_perTrigger_staysWithinTheWindow_isStable_andDiffersBetweenTriggersAndJobs() {
        ScheduleSpec jittered = HOURLY.withWindow(60_000L, null, null, null, null);
        Set<Long> seen = new HashSet<>();
        for (int hour = 0; hour < 1_000; hour++) {
            Instant trigger = T.plusSeconds(3_600L * hour);
            long jitter = ScheduleWindow.jitterMs(42, jittered, trigger);
            assertTrue(jitter >= 0 && jitter <= 60_000, "hour " + hour + ": " + jitter);
            assertEquals(jitter, ScheduleWindow.jitterMs(42, HOURLY.withWindow(60_000L, null, null, null, null),
                    trigger), "the same on another member, or after a restart");
            seen.add(jitter);
        }
        // 1 000 draws of 60 001 values: about 8 collisions are expected; a jitter per job would give 1 value.
        assertTrue(seen.size() > 970, "one draw per trigger: " + seen.size() + " distinct of 1000");
        assertFalse(ScheduleWindow.jitterMs(42, jittered, T) == ScheduleWindow.jitterMs(43, jittered, T)
                && ScheduleWindow.jitterMs(42, jittered, T.plusSeconds(3_600))
                        == ScheduleWindow.jitterMs(43, jittered, T.plusSeconds(3_600)), "jobs differ");
    }

    @Test
    void jitter_spread_isOneOffsetPerJob_andFansJobsOutOverTheWindow() {
        ScheduleSpec spread = HOURLY.withWindow(600_000L, true, null, null, null);
        long[] tenths = new long[10];
        for (long job = 1; job <= 10_000; job++) {
            long offset = ScheduleWindow.jitterMs(job, spread, T);
            assertEquals(offset, ScheduleWindow.jitterMs(job, spread, T.plusSeconds(3_600)), "every trigger alike");
            tenths[(int) Math.min(9, offset / 60_000)]++;
        }
        for (long count : tenths) {
            assertTrue(count > 850 && count < 1_150, java.util.Arrays.toString(tenths));
        }
    }

    @Test
    void noJitter_isZero() {
        assertEquals(0, ScheduleWindow.jitterMs(1, HOURLY, T));
        assertEquals(0, ScheduleWindow.jitterMs(1, HOURLY.withWindow(0L, null, null, null, null), T));
    }

    @Test
    void admits_theStartAndTheEndThemselves_andNothingOutside() {
        ScheduleSpec window = HOURLY.withWindow(null, null, T, T.plusSeconds(60), null);
        assertTrue(ScheduleWindow.admits(window, T));
        assertTrue(ScheduleWindow.admits(window, T.plusSeconds(60)));
        assertFalse(ScheduleWindow.admits(window, T.minusMillis(1)));
        assertFalse(ScheduleWindow.admits(window, T.plusSeconds(60).plusMillis(1)));
        assertEquals(Long.MAX_VALUE, ScheduleWindow.runsLeft(HOURLY, 1_000));
        assertEquals(2, ScheduleWindow.runsLeft(HOURLY.withWindow(null, null, null, null, 5), 3));
        assertEquals(0, ScheduleWindow.runsLeft(HOURLY.withWindow(null, null, null, null, 5), 7));
    }

    @Test
    void check_namesTheFieldAtFault() {
        assertField("jitterMs", ScheduleSpec.api().withWindow(1_000L, null, null, null, null));
        assertField("maxRuns", ScheduleSpec.fixedDelay(1_000).withWindow(null, null, null, null, 3));
        assertField("startAt", ScheduleSpec.oneShot(T).withWindow(null, null, T, null, null));
        assertField("jitterMs", HOURLY.withWindow(-1L, null, null, null, null));
        assertField("jitterMs", HOURLY.withWindow(ScheduleWindow.MAX_JITTER_MS + 1, null, null, null, null));
        assertField("spread", HOURLY.withWindow(null, true, null, null, null));
        assertField("spread", HOURLY.withWindow(0L, true, null, null, null));
        assertField("endAt", HOURLY.withWindow(null, null, T, T, null));
        assertField("maxRuns", HOURLY.withWindow(null, null, null, null, 0));
        ScheduleWindow.check(ScheduleSpec.fixedRate(1_000, T).withWindow(500L, true, T, T.plusSeconds(1), 1));
    }

    private static void assertField(String field, ScheduleSpec spec) {
        ScheduleWindow.InvalidWindowException e = assertThrows(ScheduleWindow.InvalidWindowException.class,
                () -> ScheduleWindow.check(spec));
        assertEquals(field, e.field(), e.getMessage());
    }
}
