package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private static final double JUST_BELOW_ONE = Math.nextDown(1.0);

    @Test
    void backoff_doublesFromTheInitialCap_upToTheMax_withHalfOfItJittered() {
        RetryPolicy policy = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofMillis(300));

        assertEquals(50, policy.backoffMs(1, 0));
        assertEquals(99, policy.backoffMs(1, JUST_BELOW_ONE));
        assertEquals(100, policy.backoffMs(2, 0));
        assertEquals(199, policy.backoffMs(2, JUST_BELOW_ONE));
        assertEquals(150, policy.backoffMs(3, 0), "capped at 300");
        assertEquals(299, policy.backoffMs(4, JUST_BELOW_ONE));
    }

    @Test
    void backoff_atHugeRetryNumbers_staysAtTheMax_withoutOverflow() {
        RetryPolicy policy = new RetryPolicy(10, RetryPolicy.MAX_BACKOFF_LIMIT, RetryPolicy.MAX_BACKOFF_LIMIT);

        for (int retry : new int[] {1, 31, 63, 64, 1_000, Integer.MAX_VALUE}) {
            long ms = policy.backoffMs(retry, JUST_BELOW_ONE);
            assertTrue(ms >= 30_000 && ms < 60_000, "retry " + retry + ": " + ms);
        }
    }

    @Test
    void backoff_random_alwaysWithinHalfCapAndCap() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        RetryPolicy policy = RetryPolicy.DEFAULTS;
        for (int i = 0; i < 10_000; i++) {
            int retry = 1 + random.nextInt(12);
            long capMs = Math.min(2_000, 100L << Math.min(retry - 1, 30));
            long ms = policy.backoffMs(retry, random.nextDouble());
            assertTrue(ms >= capMs / 2 && ms < Math.max(capMs, 1), "seed " + seed + ", retry " + retry + ": " + ms);
        }
    }

    @Test
    void none_andZeroBackoffs_areZero() {
        assertEquals(0, RetryPolicy.NONE.backoffMs(1, 0.5));
        assertEquals(1, RetryPolicy.NONE.maxAttempts());
    }

    @Test
    void constructor_refusesBadValues_namingThem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RetryPolicy.attempts(0)).getMessage()
                .contains("maxAttempts must be in 1..10: 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RetryPolicy.attempts(11)).getMessage()
                .contains(": 11"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(3, Duration.ofSeconds(3),
                Duration.ofSeconds(2))).getMessage().contains("initialBackoff must be in 0..maxBackoff (PT2S): PT3S"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(3, Duration.ZERO,
                Duration.ofMinutes(2))).getMessage().contains("PT2M"));
        assertThrows(IllegalArgumentException.class, () -> RetryPolicy.DEFAULTS.backoffMs(0, 0));
    }
}
