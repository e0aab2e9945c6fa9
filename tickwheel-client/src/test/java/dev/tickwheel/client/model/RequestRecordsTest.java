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

    @Test
    void tokenRequest_refusesABlankNameAndAnUnknownRole() {
        assertEquals("name must not be blank: ''", assertThrows(IllegalArgumentException.class,
                () -> TokenRequest.of("", Role.READ)).getMessage());
        assertThrows(NullPointerException.class, () -> TokenRequest.of("ci", null));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenRequest.of("ci", Role.UNKNOWN))
                .getMessage().contains("role"));
        TokenRequest request = TokenRequest.of("ci", Role.OPERATE).inNamespace("payments").expiresAt(Instant.EPOCH);
        assertEquals(new TokenRequest("ci", "payments", Role.OPERATE, Instant.EPOCH), request);
    }

    @Test
    void token_toString_masksTheSecret() {
        Token token = new Token(1, "ci", null, Role.READ, Instant.EPOCH, null, null, null, true, "tw_secret-value");

        assertFalse(token.toString().contains("tw_secret-value"), token.toString());
        assertTrue(token.toString().contains("secret=***"), token.toString());
        assertTrue(new Token(1, "ci", null, Role.READ, Instant.EPOCH, null, null, null, true, null).toString()
                .contains("secret=null"));
    }

    @Test
    void auditQuery_refusesANonPositiveLimit() {
        assertEquals("limit must be positive: 0", assertThrows(IllegalArgumentException.class,
                () -> AuditQuery.all().limit(0)).getMessage());
        assertEquals(AuditQuery.all().actor("ci").after("c").limit(5),
                new AuditQuery("ci", null, null, null, null, null, 5, "c"));
    }
}
