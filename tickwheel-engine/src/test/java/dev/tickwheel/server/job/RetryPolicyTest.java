package dev.tickwheel.server.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.job.RetryPolicy.Jitter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The waits each retry policy gives over the attempts, and what it refuses. */
class RetryPolicyTest {

    private static List<Long> waits(RetryPolicy policy, long instanceId, int attempts) {
        return IntStream.rangeClosed(1, attempts).mapToObj(n -> policy.delayAfterAttempt(instanceId, n)).toList();
    }

    @Test
    void fixed_everyAttemptWaitsTheSame() {
        assertEquals(List.of(60_000L, 60_000L, 60_000L), waits(new RetryPolicy(4, 60_000), 7, 3));
    }

    @Test
    void curve_multipliesAfterEachFailedAttempt_upToTheCap() {
        RetryPolicy policy = RetryPolicy.exponential(8, 1_000, 2, 10_000, Jitter.NONE);

        assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 10_000L, 10_000L, 10_000L), waits(policy, 7, 7));
        assertEquals(List.of(100L, 150L, 225L), waits(RetryPolicy.exponential(4, 100, 1.5, 1_000, Jitter.NONE), 7, 3));
    }

    @Test
    void curve_farAttemptsOfALargeMultiplier_stayAtTheCapWithoutOverflow() {
        RetryPolicy policy = RetryPolicy.exponential(RetryPolicy.MAX_ATTEMPTS, RetryPolicy.MAX_BACKOFF_MS,
                RetryPolicy.MAX_MULTIPLIER, RetryPolicy.MAX_BACKOFF_MS, Jitter.NONE);

        assertEquals(RetryPolicy.MAX_BACKOFF_MS, policy.delayAfterAttempt(1, RetryPolicy.MAX_ATTEMPTS - 1));
        assertEquals(1_000_000L, RetryPolicy.exponential(100, 1, 100, 86_400_000, Jitter.NONE).delayAfterAttempt(1, 4));
        assertEquals(86_400_000L, RetryPolicy.exponential(100, 1, 100, 86_400_000, Jitter.NONE).delayAfterAttempt(1, 60));
    }

    @Test
    void delays_eachFailedAttemptTakesItsOwn_theLastRepeats() {
        RetryPolicy policy = RetryPolicy.delays(10, List.of(1_000L, 60_000L, 600_000L), Jitter.NONE);

        assertEquals(List.of(1_000L, 60_000L, 600_000L, 600_000L, 600_000L), waits(policy, 7, 5));
        assertTrue(policy.hasDelayList());
    }

    @Test
    void fullJitter_staysWithinZeroAndTheWait_andSpreadsEvenly() {
        RetryPolicy policy = RetryPolicy.exponential(5, 10_000, 1, 10_000, Jitter.FULL);
        List<Long> waits = new ArrayList<>();
        for (long id = 1; id <= 20_000; id++) {
            long wait = policy.delayAfterAttempt(id, 1);
            assertTrue(wait >= 0 && wait <= 10_000, "instance " + id + ": " + wait);
            waits.add(wait);
        }
        double mean = waits.stream().mapToLong(Long::longValue).average().orElseThrow();
        assertTrue(Math.abs(mean - 5_000) < 100, "mean " + mean);
        long[] tenths = new long[10];
        waits.forEach(w -> tenths[(int) Math.min(9, w / 1_000)]++);
        for (long count : tenths) {
            assertTrue(count > 1_700 && count < 2_300, "tenths " + java.util.Arrays.toString(tenths));
        }
    }

    @Test
    void equalJitter_staysWithinHalfTheWaitAndTheWait() {
        RetryPolicy policy = RetryPolicy.delays(5, List.of(9_001L), Jitter.EQUAL);
        long least = Long.MAX_VALUE;
        long most = Long.MIN_VALUE;
        for (long id = 1; id <= 20_000; id++) {
            long wait = policy.delayAfterAttempt(id, 2);
            least = Math.min(least, wait);
            most = Math.max(most, wait);
        }
        assertTrue(least >= 4_500 && least < 4_600, "least " + least);
        assertTrue(most <= 9_001 && most > 8_900, "most " + most);
    }

    @Test
    void jitter_isTheSameForTheSameInstanceAndAttempt_andDiffersBetweenAttempts() {
        RetryPolicy policy = RetryPolicy.exponential(10, 60_000, 1, 60_000, Jitter.FULL);
        RetryPolicy sameOnAnotherMember = RetryPolicy.exponential(10, 60_000, 1, 60_000, Jitter.FULL);

        assertEquals(waits(policy, 42, 9), waits(sameOnAnotherMember, 42, 9));
        assertNotEquals(waits(policy, 42, 9), waits(policy, 43, 9));
        assertEquals(9, waits(policy, 42, 9).stream().distinct().count(), "each attempt draws its own");
    }

    @Test
    void jitterOfAZeroWait_isZero() {
        assertEquals(0, RetryPolicy.exponential(3, 0, 2, 0, Jitter.FULL).delayAfterAttempt(5, 2));
        assertEquals(0, RetryPolicy.exponential(3, 0, 2, 0, Jitter.EQUAL).delayAfterAttempt(5, 2));
    }

    @Test
    void invalidPolicies_areRefusedNamingTheField() {
        assertMessageContains(() -> RetryPolicy.exponential(3, 1_000, 0.5, 10_000, Jitter.NONE), "multiplier");
        assertMessageContains(() -> RetryPolicy.exponential(3, 1_000, Double.NaN, 10_000, Jitter.NONE), "multiplier");
        assertMessageContains(() -> RetryPolicy.exponential(3, 1_000, 101, 10_000, Jitter.NONE), "multiplier");
        assertMessageContains(() -> RetryPolicy.exponential(3, 1_000, 2, 999, Jitter.NONE), "maxBackoffMs");
        assertMessageContains(() -> RetryPolicy.exponential(3, 1_000, 2, 86_400_001L, Jitter.NONE), "maxBackoffMs");
        assertMessageContains(() -> RetryPolicy.delays(3, List.of(), Jitter.NONE), "at least one");
        assertMessageContains(() -> RetryPolicy.delays(3, List.of(1L, -1L), Jitter.NONE), "-1");
        assertMessageContains(() -> RetryPolicy.delays(3, List.of(86_400_001L), Jitter.NONE), "86400001");
        List<Long> tooMany = IntStream.range(0, RetryPolicy.MAX_ATTEMPTS).mapToObj(i -> 1L).toList();
        assertMessageContains(() -> RetryPolicy.delays(100, tooMany, Jitter.NONE), "at most 99");
        assertMessageContains(() -> new RetryPolicy(3, 5, 1, 86_400_000L, Jitter.NONE, List.of(1L)), "list of delays");
        assertThrows(NullPointerException.class, () -> RetryPolicy.exponential(3, 1, 1, 1, null));
        assertMessageContains(() -> new RetryPolicy(3, 0).delayAfterAttempt(1, 0), "attemptsMade");
    }

    @Test
    void equality_twoWaysToWriteAFixedBackoff_areTheSamePolicy() {
        assertEquals(new RetryPolicy(3, 500), RetryPolicy.exponential(3, 500, 1, RetryPolicy.MAX_BACKOFF_MS,
                Jitter.NONE));
        assertFalse(new RetryPolicy(3, 500).hasDelayList());
    }

    private static void assertMessageContains(org.junit.jupiter.api.function.Executable call, String part) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
