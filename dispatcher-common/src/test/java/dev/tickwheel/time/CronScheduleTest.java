package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CronScheduleTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.500Z"));

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @Test
    void next_cronEvery2s_returnsEachSlot() {
        CronSchedule cron = CronSchedule.parse("0/2 * * * * ?", ZoneOffset.UTC);

        Instant first = cron.nextAfter(clock.instant()).orElseThrow();
        Instant second = cron.nextAfter(first).orElseThrow();
        Instant third = cron.nextAfter(second).orElseThrow();

        assertEquals(at("2026-01-01T00:00:02Z"), first);
        assertEquals(at("2026-01-01T00:00:04Z"), second);
        assertEquals(at("2026-01-01T00:00:06Z"), third);
    }

    @Test
    void nextAfter_exactlyOnATrigger_returnsTheFollowingOne() {
        CronSchedule cron = CronSchedule.parse("0/2 * * * * ?", ZoneOffset.UTC);

        assertEquals(Optional.of(at("2026-01-01T00:00:04Z")), cron.nextAfter(at("2026-01-01T00:00:02Z")));
    }

    @Test
    void triggersIn_cronEvery2sOver30s_returns15Triggers() {
        CronSchedule cron = CronSchedule.parse("*/2 * * * * ?", ZoneOffset.UTC);
        Instant now = at("2026-01-01T00:00:00Z");

        List<Instant> triggers = cron.triggersIn(now, now.plusSeconds(30), 1_000);

        assertEquals(15, triggers.size());
        for (int k = 0; k < 15; k++) {
            assertEquals(now.plusSeconds(2L * (k + 1)), triggers.get(k));
        }
    }

    @Test
    void triggersIn_capBelowWindow_stopsAtCap() {
        CronSchedule cron = CronSchedule.parse("* * * * * ?", ZoneOffset.UTC);
        Instant now = at("2026-01-01T00:00:00Z");

        List<Instant> triggers = cron.triggersIn(now, now.plusSeconds(30), 7);

        assertEquals(7, triggers.size());
        assertEquals(now.plusSeconds(7), triggers.get(6));
    }

    @Test
    void triggersIn_reversedWindowOrZeroCap_throws() {
        CronSchedule cron = CronSchedule.parse("* * * * * ?", ZoneOffset.UTC);
        Instant now = at("2026-01-01T00:00:00Z");

        IllegalArgumentException reversed = assertThrows(IllegalArgumentException.class,
                () -> cron.triggersIn(now, now.minusSeconds(1), 5));
        IllegalArgumentException zeroCap = assertThrows(IllegalArgumentException.class,
                () -> cron.triggersIn(now, now.plusSeconds(1), 0));

        assertTrue(reversed.getMessage().contains("before fromExclusive"), reversed.getMessage());
        assertEquals("maxCount must be at least 1, got 0", zeroCap.getMessage());
    }

    @Test
    void nextAfter_zoneBerlinInWinter_isOneHourBeforeUtc() {
        CronSchedule berlin = CronSchedule.parse("0 0 9 * * ?", BERLIN);
        CronSchedule utc = CronSchedule.parse("0 0 9 * * ?", ZoneOffset.UTC);

        assertEquals(at("2026-01-01T08:00:00Z"), berlin.nextAfter(clock.instant()).orElseThrow());
        assertEquals(at("2026-01-01T09:00:00Z"), utc.nextAfter(clock.instant()).orElseThrow());
    }

    @Test
    void nextAfter_feb29Cron_firesOnlyInLeapYears() {
        CronSchedule cron = CronSchedule.parse("0 0 12 29 2 ?", ZoneOffset.UTC);

        List<Instant> triggers = cron.triggersIn(at("2025-01-01T00:00:00Z"), at("2036-12-31T00:00:00Z"), 10);

        assertEquals(List.of(at("2028-02-29T12:00:00Z"), at("2032-02-29T12:00:00Z"), at("2036-02-29T12:00:00Z")),
                triggers);
    }

    @Test
    void nextAfter_lastDayOfMonthInLeapFebruary_isThe29th() {
        CronSchedule cron = CronSchedule.parse("0 0 0 L * ?", ZoneOffset.UTC);

        assertEquals(Optional.of(at("2028-02-29T00:00:00Z")), cron.nextAfter(at("2028-02-01T00:00:00Z")));
    }

    @Test
    void nextAfter_springForwardDaily0230_skipsTheMissingDay() {
        CronSchedule cron = CronSchedule.parse("0 30 2 * * ?", BERLIN);

        List<Instant> triggers = cron.triggersIn(at("2026-03-27T12:00:00Z"), at("2026-03-31T12:00:00Z"), 10);

        // 03-29 02:30 does not exist in Berlin; cron-utils does not fire that day.
        assertEquals(List.of(
                at("2026-03-28T01:30:00Z"),   // 02:30+01:00
                at("2026-03-30T00:30:00Z"),   // 02:30+02:00
                at("2026-03-31T00:30:00Z")), triggers);
    }

    @Test
    void nextAfter_springForwardEvery15Min_jumpsFrom0145To0300() {
        CronSchedule cron = CronSchedule.parse("0 0/15 * * * ?", BERLIN);

        assertEquals(Optional.of(at("2026-03-29T01:00:00Z")), cron.nextAfter(at("2026-03-29T00:45:00Z")));
    }

    @Test
    void triggersIn_fallBackDaily0230_firesOnceAtTheFirstPass() {
        CronSchedule cron = CronSchedule.parse("0 30 2 * * ?", BERLIN);

        List<Instant> triggers = cron.triggersIn(at("2026-10-24T12:00:00Z"), at("2026-10-26T12:00:00Z"), 10);

        assertEquals(List.of(at("2026-10-25T00:30:00Z"), at("2026-10-26T01:30:00Z")), triggers);
    }

    @Test
    void nextAfter_fallBackQueriedInsideRepeatedHour_neverFiresDaily0230Twice() {
        CronSchedule cron = CronSchedule.parse("0 30 2 * * ?", BERLIN);

        // Between the two 02:30s: cron-utils alone would answer with the second 02:30 (01:30Z).
        assertEquals(Optional.of(at("2026-10-26T01:30:00Z")), cron.nextAfter(at("2026-10-25T00:45:00Z")));
        assertEquals(Optional.of(at("2026-10-26T01:30:00Z")), cron.nextAfter(at("2026-10-25T01:29:59Z")));
        // Before the first 02:30, the first one.
        assertEquals(Optional.of(at("2026-10-25T00:30:00Z")), cron.nextAfter(at("2026-10-25T00:10:00Z")));
    }

    @Test
    void triggersIn_fallBackLoaderWindowsOf30s_createDaily0230Once() {
        CronSchedule cron = CronSchedule.parse("0 30 2 * * ?", BERLIN);
        List<Instant> planned = new ArrayList<>();

        for (Instant from = at("2026-10-24T23:00:00Z"); from.isBefore(at("2026-10-25T03:00:00Z"));
             from = from.plusSeconds(30)) {
            planned.addAll(cron.triggersIn(from, from.plusSeconds(30), 100));
        }

        assertEquals(List.of(at("2026-10-25T00:30:00Z")), planned);
    }

    @Test
    void triggersIn_fallBackEvery15Min_firesInBothPassesStrictlyIncreasing() {
        CronSchedule cron = CronSchedule.parse("0 0/15 * * * ?", BERLIN);

        List<Instant> triggers = cron.triggersIn(at("2026-10-24T23:50:00Z"), at("2026-10-25T02:00:00Z"), 100);

        List<Instant> expected = new ArrayList<>();
        for (Instant t = at("2026-10-25T00:00:00Z"); !t.isAfter(at("2026-10-25T02:00:00Z")); t = t.plusSeconds(900)) {
            expected.add(t);
        }
        assertEquals(expected, triggers);
    }

    @Test
    void nextAfter_everyMinuteAcrossFallBack_agreesWithTheSteppedSeries() {
        for (String expression : List.of("0 30 2 * * ?", "0 0/15 * * * ?", "0 30 * * * ?", "0 0 2 * * ?",
                "0 59 2 * * ?")) {
            CronSchedule cron = CronSchedule.parse(expression, BERLIN);
            Instant windowStart = at("2026-10-24T23:00:00Z");
            Instant windowEnd = at("2026-10-25T03:00:00Z");
            List<Instant> series = cron.triggersIn(windowStart, windowEnd.plusSeconds(86_400), 1_000);
            assertStrictlyIncreasing(series);

            for (Instant query = windowStart; query.isBefore(windowEnd); query = query.plusSeconds(60)) {
                Instant q = query;
                Instant expected = series.stream().filter(t -> t.isAfter(q)).findFirst().orElseThrow();
                assertEquals(Optional.of(expected), cron.nextAfter(q), expression + " queried at " + q);
            }
        }
    }

    @Test
    void nextAfter_instantMaxOrPastYear2099_isEmpty() {
        CronSchedule cron = CronSchedule.parse("* * * * * ?", ZoneOffset.UTC);

        assertEquals(Optional.empty(), cron.nextAfter(Instant.MAX));
        assertEquals(Optional.empty(), cron.nextAfter(at("2099-12-31T23:59:59Z")));
        assertEquals(Optional.empty(), cron.nextAfter(TimeExpression.LATEST_SUPPORTED));
    }

    @Test
    void nextAfter_instantMin_returnsTheFirstTriggerOf1970() {
        CronSchedule cron = CronSchedule.parse("0 0 0 * * ?", ZoneOffset.UTC);

        assertEquals(Optional.of(at("1970-01-01T00:00:00Z")), cron.nextAfter(Instant.MIN));
    }

    @Test
    void nextAfter_yearAlreadyPast_isEmpty() {
        CronSchedule cron = CronSchedule.parse("0 0 0 1 1 ? 2020", ZoneOffset.UTC);

        assertEquals(Optional.empty(), cron.nextAfter(clock.instant()));
    }

    @Test
    void parse_extraWhitespace_normalizesExpression() {
        CronSchedule cron = CronSchedule.parse("  0  0/2   * * * ?  ", ZoneOffset.UTC);

        assertEquals("0 0/2 * * * ?", cron.expression());
        assertEquals(CronSchedule.parse("0 0/2 * * * ?", ZoneOffset.UTC), cron);
        assertNotEquals(CronSchedule.parse("0 0/2 * * * ?", BERLIN), cron);
    }

    @Test
    void parse_dayNamesInLowerCase_areAccepted() {
        CronSchedule cron = CronSchedule.parse("0 0 9 ? * mon-fri", ZoneOffset.UTC);

        // 2026-01-03 is a Saturday: the next weekday 09:00 is Monday the 5th.
        assertEquals(Optional.of(at("2026-01-05T09:00:00Z")), cron.nextAfter(at("2026-01-03T00:00:00Z")));
    }

    @Test
    void type_cron_isCron() {
        assertEquals(ScheduleType.CRON, CronSchedule.parse("* * * * * ?", ZoneOffset.UTC).type());
    }

    private static void assertStrictlyIncreasing(List<Instant> series) {
        for (int i = 1; i < series.size(); i++) {
            assertTrue(series.get(i).isAfter(series.get(i - 1)), "not increasing at " + i + ": " + series);
        }
    }
}
