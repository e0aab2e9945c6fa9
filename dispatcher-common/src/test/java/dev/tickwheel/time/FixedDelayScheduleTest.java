package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FixedDelayScheduleTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-05-01T10:00:00Z"));

    @Test
    void nextAfter_previousCompletion_addsTheDelay() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofMillis(1_500));

        assertEquals(Optional.of(clock.instant().plusMillis(1_500)), delay.nextAfter(clock.instant()));
    }

    @Test
    void nextAfter_completionsOfDifferentLength_followEachCompletion() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofSeconds(5));
        Instant first = delay.nextAfter(clock.instant()).orElseThrow();
        clock.set(first.plusMillis(2_345)); // the run took 2.345 s

        Instant second = delay.nextAfter(clock.instant()).orElseThrow();

        assertEquals(first.plusMillis(7_345), second);
    }

    @Test
    void nextAfter_instantMaxCompletion_isEmptyWithoutOverflow() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofDays(366));

        assertEquals(Optional.empty(), delay.nextAfter(Instant.MAX));
        assertEquals(Optional.empty(), delay.nextAfter(Instant.parse("2099-12-01T00:00:00Z")));
    }

    @Test
    void constructor_negativeDelay_throwsNamingDelayMs() {
        InvalidTimeExpressionException failure = assertThrows(InvalidTimeExpressionException.class,
                () -> new FixedDelaySchedule(Duration.ofMillis(-1)));

        assertEquals("delayMs", failure.field());
        assertEquals("delayMs must be between 1 and 31622400000 ms (PT0.001S to PT8784H), got -1", failure.getMessage());
    }

    @Test
    void constructor_zeroDelay_throws() {
        assertThrows(InvalidTimeExpressionException.class, () -> new FixedDelaySchedule(Duration.ZERO));
    }

    @Test
    void type_fixedDelay_isFixedDelay() {
        assertEquals(ScheduleType.FIXED_DELAY, new FixedDelaySchedule(Duration.ofSeconds(1)).type());
    }
}
