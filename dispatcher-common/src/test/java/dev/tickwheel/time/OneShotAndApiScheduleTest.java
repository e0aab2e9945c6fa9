package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class OneShotAndApiScheduleTest {

    private static final Instant AT = Instant.parse("2026-07-01T12:00:00Z");

    @Test
    void nextAfter_beforeAt_returnsAtThenEmpty() {
        OneShotSchedule oneShot = new OneShotSchedule(AT);

        Instant first = oneShot.nextAfter(AT.minusSeconds(1)).orElseThrow();

        assertEquals(AT, first);
        assertEquals(Optional.empty(), oneShot.nextAfter(first));
        assertEquals(Optional.empty(), oneShot.nextAfter(Instant.MAX));
    }

    @Test
    void triggersIn_windowContainingAt_returnsItOnce() {
        OneShotSchedule oneShot = new OneShotSchedule(AT);

        assertEquals(List.of(AT), oneShot.triggersIn(AT.minusSeconds(30), AT, 10));
        assertEquals(List.of(), oneShot.triggersIn(AT, AT.plusSeconds(30), 10));
    }

    @Test
    void constructor_missingOrAbsurdAt_throwsNamingAt() {
        InvalidTimeExpressionException missing = assertThrows(InvalidTimeExpressionException.class,
                () -> new OneShotSchedule(null));
        InvalidTimeExpressionException absurd = assertThrows(InvalidTimeExpressionException.class,
                () -> new OneShotSchedule(Instant.MIN));

        assertEquals("at is required", missing.getMessage());
        assertEquals("at", absurd.field());
    }

    @Test
    void nextAfter_api_isAlwaysEmpty() {
        ApiSchedule api = new ApiSchedule();

        assertEquals(Optional.empty(), api.nextAfter(Instant.EPOCH));
        assertEquals(Optional.empty(), api.nextAfter(AT));
        assertEquals(ScheduleType.API, api.type());
    }
}
