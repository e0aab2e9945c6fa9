package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.time.MisfirePolicy;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobValuesTest {

    private static void assertMessageNames(IllegalArgumentException e, String field, String value) {
        assertTrue(e.getMessage().contains(field) && e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void retryPolicy_zeroAttempts_throwsNamingFieldAndValue() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, 10)),
                "maxAttempts", "0");
    }

    @Test
    void retryPolicy_negativeBackoff_throwsNamingFieldAndValue() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(1, -5)),
                "backoffMs", "-5");
    }

    @Test
    void retryPolicy_beyondTheDomainLimits_throwsNamingFieldAndValue() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(101, 0)),
                "maxAttempts", "101");
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(3, 86_400_001L)),
                "backoffMs", "86400001");
        assertEquals(100, new RetryPolicy(RetryPolicy.MAX_ATTEMPTS, RetryPolicy.MAX_BACKOFF_MS).maxAttempts());
    }

    @Test
    void params_longerThanTheDomainLimit_refusedForJobsAndInstances() {
        String tooLong = "x".repeat(Job.MAX_PARAMS_LENGTH + 1);
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new NewJob(1, "n", ScheduleSpec.api(),
                Target.handler("h"), tooLong, true, MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT,
                null)), "params", Integer.toString(tooLong.length()));
        assertMessageNames(assertThrows(IllegalArgumentException.class,
                () -> new dev.tickwheel.server.instance.NewInstance(1, 2, Instant.EPOCH, tooLong)), "params",
                Integer.toString(tooLong.length()));
        new NewJob(1, "n", ScheduleSpec.api(), Target.handler("h"), "x".repeat(Job.MAX_PARAMS_LENGTH), true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null);
    }

    @Test
    void retryPolicy_allowsAnotherAttempt_untilMaxAttempts() {
        RetryPolicy policy = new RetryPolicy(3, 0);

        assertTrue(policy.allowsAnotherAttempt(2));
        assertEquals(false, policy.allowsAnotherAttempt(3));
    }

    @Test
    void target_webhookWithoutHttpScheme_throwsNamingUrl() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> Target.webhook("ftp://x/y")),
                "webhook url", "ftp://x/y");
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> Target.webhook("/relative")),
                "webhook url", "/relative");
    }

    @Test
    void target_blankHandlerName_throws() {
        assertThrows(IllegalArgumentException.class, () -> Target.handler(" "));
    }

    @Test
    void target_valid_keepsTypeAndValue() {
        assertEquals(TargetType.WEBHOOK, Target.webhook("https://h.example/x").type());
        assertEquals("billing", Target.handler("billing").value());
    }

    @Test
    void newJob_nonPositiveId_throwsNamingIdAndValue() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new NewJob(0, "n",
                ScheduleSpec.api(), Target.handler("h"), null, true, MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, null)),
                "id", "0");
    }

    @Test
    void newJob_nameTooLong_throwsNamingLength() {
        String name = "n".repeat(201);

        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new NewJob(1, name,
                ScheduleSpec.api(), Target.handler("h"), null, true, MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT, null)),
                "name", "201");
    }

    @Test
    void newJobToJob_stampsTimesAndVersionZero() {
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        NewJob job = new NewJob(7, "n", ScheduleSpec.oneShot(now), Target.handler("h"), null, true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, now);

        Job stored = job.toJob(now);

        assertEquals(now, stored.createdAt());
        assertEquals(now, stored.updatedAt());
        assertEquals(0, stored.version());
    }

    @Test
    void jobOperations_outOfRange_areRefusedNamingTheField() {
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new JobOperations(0, null, null)),
                "retentionDays", "0");
        assertMessageNames(assertThrows(IllegalArgumentException.class,
                () -> new JobOperations(JobOperations.MAX_RETENTION_DAYS + 1, null, null)), "retentionDays", "3651");
        assertMessageNames(assertThrows(IllegalArgumentException.class, () -> new JobOperations(null, " ", null)),
                "alertUrl", "NUL");
        assertMessageNames(assertThrows(IllegalArgumentException.class,
                () -> new JobOperations(null, null, "short")), "signingSecret", "5");
        assertMessageNames(assertThrows(IllegalArgumentException.class,
                () -> new JobOperations(null, null, "0123456789abcdef\n")), "signingSecret", "control");
        new JobOperations(1, "http://a", "x".repeat(JobOperations.MAX_SECRET_LENGTH));
    }

    @Test
    void jobOperations_toString_neverShowsTheSecret() {
        JobOperations operations = new JobOperations(7, "http://a", "whsec_0123456789abcdef");

        assertFalse(operations.toString().contains("whsec_0123456789abcdef"), operations.toString());
        assertTrue(operations.signed());
        assertFalse(operations.withSigningSecret(null).signed());
    }
}
