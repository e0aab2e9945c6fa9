package dev.tickwheel.client.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RequestRecordsTest {

    @Test
    void runRequest_refusesADelayAndAnInstantTogether_andANegativeDelay() {
        assertThrows(IllegalArgumentException.class, () -> new RunRequest(null, 5L, Instant.EPOCH, null, null));
        assertEquals("delayMs must not be negative: -1", assertThrows(IllegalArgumentException.class,
                () -> RunRequest.after(Duration.ofMillis(-1))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RunRequest.now().withKey(""));
        assertTrue(RunRequest.now().withKey("k").keyed());
        assertFalse(RunRequest.now().keyed());
    }

    @Test
    void rescheduleRequest_needsExactlyOneOfDelayAndInstant() {
        assertThrows(IllegalArgumentException.class, () -> new RescheduleRequest(null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RescheduleRequest(1L, Instant.EPOCH, null));
        assertTrue(RescheduleRequest.at(Instant.EPOCH).absolute());
        assertFalse(RescheduleRequest.after(Duration.ofSeconds(1)).absolute());
    }

    @Test
    void jobRequest_refusesABlankName_andUnknownEnumValues() {
        assertEquals("name must not be blank: ' '", assertThrows(IllegalArgumentException.class,
                () -> JobRequest.builder(" ", Schedule.api(), Target.handler("h")).build()).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> JobRequest.builder("n", Schedule.api(),
                Target.handler("h")).delivery(Delivery.UNKNOWN).build()).getMessage().contains("delivery"));
    }

    @Test
    void instanceQuery_keyNeedsAJob() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> InstanceQuery.all().key("k")).getMessage()
                .contains("jobId"));
        assertEquals("k", InstanceQuery.all().job(1).key("k").key());
    }
}
