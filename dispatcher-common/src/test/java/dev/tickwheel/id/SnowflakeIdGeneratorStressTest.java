package dev.tickwheel.id;

import dev.tickwheel.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Many threads on one generator: every ID unique, each thread's IDs increasing. */
class SnowflakeIdGeneratorStressTest {

    private static final int THREADS = 8;
    private static final int IDS_PER_THREAD = 100_000;

    @Test
    void nextId_8ThreadsOnTheSystemClock_allUniqueAndIncreasingPerThread() throws Exception {
        assertUniqueAndMonotonic(new SnowflakeIdGenerator(5, Clock.systemUTC()));
    }

    @Test
    void nextId_8ThreadsOnAFrozenClock_allUniqueByBorrowingMilliseconds() throws Exception {
        ManualClock frozen = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

        long[] all = assertUniqueAndMonotonic(new SnowflakeIdGenerator(5, frozen));

        // 800 000 IDs at 4 096 per ms: the last one is 195 ms ahead of the frozen clock.
        assertEquals(frozen.instant().plusMillis((THREADS * IDS_PER_THREAD - 1) / 4_096),
                SnowflakeIdGenerator.timestampOf(all[all.length - 1]));
    }

    @Test
    void nextId_8ThreadsWhileTheClockJumpsBackAndForth_allUnique() throws Exception {
        ManualClock jumpy = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(9, jumpy);
        Thread jumper = new Thread(() -> {
            for (int i = 0; i < 20_000 && !Thread.currentThread().isInterrupted(); i++) {
                jumpy.advance(Duration.ofMillis(i % 2 == 0 ? 3 : -5));
            }
        }, "tickwheel-test-clock-jumper");
        jumper.start();
        try {
            assertUniqueAndMonotonic(generator);
        } finally {
            jumper.interrupt();
            jumper.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    private static long[] assertUniqueAndMonotonic(SnowflakeIdGenerator generator) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    long[] ids = new long[IDS_PER_THREAD];
                    for (int i = 0; i < IDS_PER_THREAD; i++) {
                        ids[i] = generator.nextId();
                    }
                    return ids;
                }));
            }
            start.countDown();
            long[] all = new long[THREADS * IDS_PER_THREAD];
            int offset = 0;
            for (Future<long[]> result : results) {
                long[] ids = result.get(60, TimeUnit.SECONDS);
                for (int i = 1; i < ids.length; i++) {
                    assertTrue(ids[i] > ids[i - 1], "not increasing within a thread at " + i);
                }
                System.arraycopy(ids, 0, all, offset, ids.length);
                offset += ids.length;
            }
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                assertTrue(all[i] != all[i - 1], "duplicate ID " + SnowflakeIdGenerator.describe(all[i]));
            }
            return all;
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }
}
