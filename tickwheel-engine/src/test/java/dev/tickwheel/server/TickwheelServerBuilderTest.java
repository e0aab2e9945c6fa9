package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link TickwheelServer.Builder}'s store timeout: its default, and the values it refuses, named with the value. */
class TickwheelServerBuilderTest {

    @Test
    void storeTimeout_default_isTwoSeconds() {
        assertEquals(Duration.ofSeconds(2), TickwheelServer.builder().build().config().storeTimeout());
    }

    @Test
    void storeTimeout_belowThePoolsMinimumOrNotPositive_refusedNamingTheValue() {
        for (Duration bad : new Duration[] {Duration.ofMillis(249), Duration.ZERO, Duration.ofMillis(-1)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TickwheelServer.builder().storeTimeout(bad));
            assertTrue(e.getMessage().startsWith("storeTimeout must be") && e.getMessage().contains(bad.toString()),
                    e.getMessage());
        }
        assertEquals(Duration.ofMillis(250),
                TickwheelServer.builder().storeTimeout(Duration.ofMillis(250)).build().config().storeTimeout());
    }
}
