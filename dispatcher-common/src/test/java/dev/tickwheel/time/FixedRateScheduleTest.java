package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FixedRateScheduleTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private final ManualClock clock = new ManualClock(START);

    @Test
    void nextAfter_beforeStart_returnsStart() {
        FixedRateSchedule rate = new FixedRateSchedule(START, Duration.ofSeconds(10));

        assertEquals(Optional.of(START), rate.nextAfter(START.minusMillis(1)));
        assertEquals(Optional.of(START), rate.nextAfter(Instant.MIN));
    }

    @Test
    void nextAfter_betweenTriggers_alignsOnStartPlusKPeriods() {
        FixedRateSchedule rate = new FixedRateSchedule(START.plusMillis(250), Duration.ofSeconds(10));
        clock.set(START.plusSeconds(3_600).plusMillis(7_001)); // a late loader, not on the grid

        assertEquals(Optional.of(START.plusSeconds(3_610).plusMillis(250)), rate.nextAfter(clock.instant()));
    }

    @Test
    void nextAfter_exactlyOnATrigger_returnsTheFollowingOne() {
        FixedRateSchedule rate = new FixedRateSchedule(START, Duration.ofSeconds(10));

        assertEquals(Optional.of(START.plusSeconds(20)), rate.nextAfter(START.plusSeconds(10)));
    }

    @Test
    void nextAfter_iteratedOverAYear_neverDrifts() {
        Duration period = Duration.ofMillis(7_777);
        FixedRateSchedule rate = new FixedRateSchedule(START, period);

        Instant trigger = START;
        for (long k = 1; k <= 4_000_000; k++) {
            trigger = rate.nextAfter(trigger).orElseThrow();
            if (k % 500_000 == 0) {
                assertEquals(START.plusMillis(k * 7_777), trigger, "trigger " + k);
            }
        }
    }

    @Test
    void triggersIn_period1sOver30s_returns30AlignedTriggers() {
        FixedRateSchedule rate = new FixedRateSchedule(START.plusMillis(500), Duration.ofSeconds(1));

        List<Instant> triggers = rate.triggersIn(START, START.plusSeconds(30), 100);

        assertEquals(30, triggers.size());
        assertEquals(START.plusMillis(500), triggers.get(0));
        assertEquals(START.plusMillis(29_500), triggers.get(29));
    }

    @Test
    void nextAfter_pastTheSupportedRange_isEmpty() {
        FixedRateSchedule rate = new FixedRateSchedule(START, Duration.ofDays(366));

        assertEquals(Optional.empty(), rate.nextAfter(Instant.MAX));
        assertEquals(Optional.empty(), rate.nextAfter(Instant.parse("2099-06-01T00:00:00Z")));
    }

    @Test
    void constructor_periodBelowOneSecond_throwsNamingPeriodMs() {
        InvalidTimeExpressionException failure = assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedRateSchedule(START, Duration.ofMillis(999)));

        assertEquals("periodMs", failure.field());
        assertEquals("periodMs must be between 1000 and 31622400000 ms (PT1S to PT8784H), got 999",
                failure.getMessage());
    }

    @Test
    void constructor_periodAboveOneLeapYear_throws() {
        InvalidTimeExpressionException failure = assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedRateSchedule(START, Duration.ofDays(366).plusMillis(1)));

        assertEquals("periodMs must be between 1000 and 31622400000 ms (PT1S to PT8784H), got 31622400001",
                failure.getMessage());
    }

    @Test
    void constructor_hugeOrNegativePeriod_throwsCleanly() {
        assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedRateSchedule(START, Duration.ofSeconds(Long.MAX_VALUE)));
        assertThrows(InvalidTimeExpressionException.class, () -> new FixedRateSchedule(START, Duration.ofSeconds(-5)));
    }

    @Test
    void constructor_startInstantMax_throwsNamingAt() {
        InvalidTimeExpressionException failure = assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedRateSchedule(Instant.MAX, Duration.ofSeconds(1)));

        assertEquals("at", failure.field());
        assertEquals("at must be in [1970-01-01T00:00:00Z, 2100-01-01T00:00:00Z), got +1000000000-12-31T23:59:59.999999999Z",
                failure.getMessage());
    }

    @Test
    void constructor_startBefore1970_throws() {
        assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedRateSchedule(Instant.parse("1969-12-31T23:59:59Z"), Duration.ofSeconds(1)));
    }
}
