package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TimeExpressionParserTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-02-03T04:05:06.789123Z"));
    private final TimeExpressionParser parser = new TimeExpressionParser(clock);

    private InvalidTimeExpressionException failure(ScheduleSpec spec) {
        return assertThrows(InvalidTimeExpressionException.class, () -> parser.parse(spec));
    }

    @Test
    void parse_cronWithZone_buildsCronInThatZone() {
        CronSchedule cron = assertInstanceOf(CronSchedule.class,
                parser.parse(ScheduleSpec.cron("0 30 2 * * ?", "Europe/Berlin")));

        assertEquals(ZoneId.of("Europe/Berlin"), cron.zone());
        assertEquals("0 30 2 * * ?", cron.expression());
    }

    @Test
    void parse_cronWithoutZone_usesUtc() {
        CronSchedule cron = assertInstanceOf(CronSchedule.class, parser.parse(ScheduleSpec.cron("* * * * * ?", " ")));

        assertEquals(ZoneOffset.UTC, cron.zone());
    }

    @Test
    void parse_cronUnknownZone_throwsNamingZoneId() {
        InvalidTimeExpressionException failure = failure(ScheduleSpec.cron("* * * * * ?", "Mars/Olympus_Mons"));

        assertEquals("zoneId", failure.field());
        assertEquals("zoneId 'Mars/Olympus_Mons' is not a known time zone (expected a region such as Europe/Berlin,"
                + " or an offset such as +02:00)", failure.getMessage());
    }

    @Test
    void parse_cronBadDayOfWeek_throwsNamingExpression() {
        InvalidTimeExpressionException failure = failure(ScheduleSpec.cron("0 0 0 ? * 8", "UTC"));

        assertEquals("expression", failure.field());
        assertEquals("cron field 'day-of-week': 8 is out of range 1-7", failure.getMessage());
    }

    @Test
    void parse_cronWithPeriod_throwsNamingPeriodMs() {
        ScheduleSpec spec = new ScheduleSpec(ScheduleType.CRON, "* * * * * ?", null, 5_000L, null, null);

        InvalidTimeExpressionException failure = failure(spec);

        assertEquals("periodMs", failure.field());
        assertEquals("periodMs does not apply to a CRON schedule and must be omitted, got 5000", failure.getMessage());
    }

    @Test
    void parse_fixedRateWithStart_keepsStartAndPeriod() {
        Instant start = Instant.parse("2026-02-03T00:00:00Z");

        TimeExpression rate = parser.parse(ScheduleSpec.fixedRate(60_000, start));

        assertEquals(new FixedRateSchedule(start, Duration.ofMinutes(1)), rate);
    }

    @Test
    void parse_fixedRateWithoutStart_anchorsAtTheClocksMillisecond() {
        TimeExpression rate = parser.parse(ScheduleSpec.fixedRate(1_000, null));

        assertEquals(new FixedRateSchedule(Instant.parse("2026-02-03T04:05:06.789Z"), Duration.ofSeconds(1)), rate);
    }

    @Test
    void parse_fixedRateAbsurdPeriods_throwNamingPeriodMs() {
        for (long periodMs : List.of(0L, -1L, 999L, Long.MAX_VALUE, Long.MIN_VALUE)) {
            InvalidTimeExpressionException failure = failure(ScheduleSpec.fixedRate(periodMs, null));

            assertEquals("periodMs", failure.field(), "periodMs " + periodMs);
            assertEquals("periodMs must be between 1000 and 31622400000 ms (PT1S to PT8784H), got " + periodMs,
                    failure.getMessage());
        }
    }

    @Test
    void parse_fixedRateMissingPeriod_throwsNamingPeriodMs() {
        ScheduleSpec spec = new ScheduleSpec(ScheduleType.FIXED_RATE, null, null, null, null, null);

        assertEquals("periodMs is required", failure(spec).getMessage());
    }

    @Test
    void parse_fixedDelay_buildsDelay() {
        assertEquals(new FixedDelaySchedule(Duration.ofMillis(250)), parser.parse(ScheduleSpec.fixedDelay(250)));
    }

    @Test
    void parse_fixedDelayNegative_throwsNamingDelayMs() {
        InvalidTimeExpressionException failure = failure(ScheduleSpec.fixedDelay(-10));

        assertEquals("delayMs", failure.field());
        assertEquals("delayMs must be between 1 and 31622400000 ms (PT0.001S to PT8784H), got -10", failure.getMessage());
    }

    @Test
    void parse_fixedDelayWithAt_throwsNamingAt() {
        ScheduleSpec spec = new ScheduleSpec(ScheduleType.FIXED_DELAY, null, null, null, 1_000L, clock.instant());

        assertEquals("at", failure(spec).field());
    }

    @Test
    void parse_oneShotWithoutAt_throwsNamingAt() {
        InvalidTimeExpressionException failure = failure(ScheduleSpec.oneShot(null));

        assertEquals("at", failure.field());
        assertEquals("at is required for a ONE_SHOT schedule", failure.getMessage());
    }

    @Test
    void parse_oneShotAtInstantMax_throwsNamingAt() {
        InvalidTimeExpressionException failure = failure(ScheduleSpec.oneShot(Instant.MAX));

        assertEquals("at", failure.field());
    }

    @Test
    void parse_oneShotWithExpression_throwsNamingExpression() {
        ScheduleSpec spec = new ScheduleSpec(ScheduleType.ONE_SHOT, "* * * * * ?", null, null, null, clock.instant());

        assertEquals("expression does not apply to a ONE_SHOT schedule and must be omitted, got * * * * * ?",
                failure(spec).getMessage());
    }

    @Test
    void parse_apiWithZone_throwsNamingZoneId() {
        ScheduleSpec spec = new ScheduleSpec(ScheduleType.API, null, "UTC", null, null, null);

        assertEquals("zoneId", failure(spec).field());
        assertEquals(new ApiSchedule(), parser.parse(ScheduleSpec.api()));
    }

    @Test
    void parse_missingType_throwsNamingType() {
        InvalidTimeExpressionException failure = failure(new ScheduleSpec(null, null, null, null, null, null));

        assertEquals("type", failure.field());
        assertEquals("type is required, one of [CRON, FIXED_RATE, FIXED_DELAY, ONE_SHOT, API]", failure.getMessage());
    }

    @Test
    void parseType_knownNameAnyCase_returnsType() {
        assertEquals(ScheduleType.FIXED_RATE, TimeExpressionParser.parseType(" fixed_rate "));
    }

    @Test
    void parseType_unknownName_throwsNamingType() {
        InvalidTimeExpressionException failure = assertThrows(InvalidTimeExpressionException.class,
                () -> TimeExpressionParser.parseType("HOURLY"));

        assertEquals("type", failure.field());
        assertEquals("type 'HOURLY' is unknown, expected one of [CRON, FIXED_RATE, FIXED_DELAY, ONE_SHOT, API]",
                failure.getMessage());
    }

    @Test
    void specOf_everyKind_parsesBackToAnEqualExpression() {
        List<TimeExpression> expressions = List.of(
                CronSchedule.parse("0 0/5 * * * ?", ZoneId.of("America/New_York")),
                new FixedRateSchedule(Instant.parse("2026-01-01T00:00:00.123Z"), Duration.ofSeconds(90)),
                new FixedDelaySchedule(Duration.ofMillis(42)),
                new OneShotSchedule(Instant.parse("2026-09-09T09:09:09Z")),
                new ApiSchedule());

        for (TimeExpression expression : expressions) {
            assertEquals(expression, parser.parse(ScheduleSpec.of(expression)));
        }
    }
}
