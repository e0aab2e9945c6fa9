package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A year of triggers in zones with DST (one with a 30-minute shift) against random query instants: every
 * {@code nextAfter(q)} must be the first element of the stepped series after q, the series must increase, and
 * a daily cron must fire at most once per local date. The seed is printed so a failure can be replayed.
 */
class CronScheduleOracleTest {

    private static final Instant YEAR_START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant YEAR_END = Instant.parse("2027-01-01T00:00:00Z");
    private static final List<ZoneId> ZONES = List.of(ZoneId.of("Europe/Berlin"), ZoneId.of("America/New_York"),
            ZoneId.of("Australia/Sydney"), ZoneId.of("Australia/Lord_Howe"));

    @Test
    void nextAfter_randomInstantsInADstYear_agreeWithTheSteppedSeries() {
        long seed = System.nanoTime();
        System.out.println("CronScheduleOracleTest seed " + seed);
        Random random = new Random(seed);
        for (ZoneId zone : ZONES) {
            for (String expression : List.of("0 30 2 * * ?", "0 15,45 * * * ?", "0 0 1-3 * * ?")) {
                CronSchedule cron = CronSchedule.parse(expression, zone);
                List<Instant> series = cron.triggersIn(YEAR_START, YEAR_END, 100_000);
                assertStrictlyIncreasing(series, expression + " in " + zone);

                for (int i = 0; i < 300; i++) {
                    Instant query = randomInstant(random, series);
                    int index = Collections.binarySearch(series, query);
                    int firstAfter = index >= 0 ? index + 1 : -index - 1;
                    if (firstAfter < series.size()) {
                        assertEquals(series.get(firstAfter), cron.nextAfter(query).orElseThrow(),
                                expression + " in " + zone + " queried at " + query + " (seed " + seed + ")");
                    }
                }
            }
        }
    }

    @Test
    void triggersIn_dailyCronOverADstYear_firesOncePerLocalDate() {
        for (ZoneId zone : ZONES) {
            CronSchedule daily = CronSchedule.parse("0 30 2 * * ?", zone);
            List<Instant> series = daily.triggersIn(YEAR_START, YEAR_END, 1_000);

            Set<LocalDate> dates = new HashSet<>();
            for (Instant trigger : series) {
                assertTrue(dates.add(trigger.atZone(zone).toLocalDate()), "second trigger on a date: " + trigger
                        + " in " + zone);
            }
            // 365 days, less the spring-forward day on which 02:30 does not exist (Lord Howe shifts 02:00 -> 02:30,
            // so 02:30 exists there on every day; cron-utils alone skips it, CronSchedule does not).
            int expected = zone.getId().equals("Australia/Lord_Howe") ? 365 : 364;
            assertEquals(expected, series.size(), zone.getId());
        }
    }

    /** Mostly within an hour of a trigger, where DST trouble lives; sometimes anywhere in the year. */
    private static Instant randomInstant(Random random, List<Instant> series) {
        if (random.nextInt(4) == 0) {
            return YEAR_START.plusMillis((long) (random.nextDouble() * (YEAR_END.toEpochMilli() - YEAR_START.toEpochMilli())));
        }
        Instant near = series.get(random.nextInt(series.size()));
        Instant query = near.plusSeconds(random.nextInt(7_200) - 3_600);
        // The series knows only the triggers from YEAR_START on: a query before it (an hour before the year's first
        // trigger) would expect the first of the series where the cron rightly answers an earlier one.
        return query.isBefore(YEAR_START) ? YEAR_START : query;
    }

    private static void assertStrictlyIncreasing(List<Instant> series, String what) {
        for (int i = 1; i < series.size(); i++) {
            assertTrue(series.get(i).isAfter(series.get(i - 1)), what + " not increasing at " + series.get(i));
        }
    }
}
