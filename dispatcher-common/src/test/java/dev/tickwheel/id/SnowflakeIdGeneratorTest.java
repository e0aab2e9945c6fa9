package dev.tickwheel.id;

import dev.tickwheel.time.SettableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnowflakeIdGeneratorTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00.001Z");
    private final SettableClock clock = new SettableClock(NOW);

    @Test
    void nextId_firstCall_encodesClockNodeAndSequenceZero() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(7, clock);

        long id = generator.nextId();

        assertEquals(NOW, SnowflakeIdGenerator.timestampOf(id));
        assertEquals(7, SnowflakeIdGenerator.nodeIdOf(id));
        assertEquals(0, SnowflakeIdGenerator.sequenceOf(id));
        assertEquals("2026-01-01T00:00:00.001Z/node 7/seq 0", SnowflakeIdGenerator.describe(id));
        long expectedMs = NOW.toEpochMilli() - SnowflakeIdGenerator.EPOCH.toEpochMilli();
        assertEquals((expectedMs << 22) | (7L << 12), id);
    }

    @Test
    void nextId_sameMillisecond_incrementsSequence() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(1, clock);

        long first = generator.nextId();
        long second = generator.nextId();

        assertEquals(first + 1, second);
        assertEquals(1, SnowflakeIdGenerator.sequenceOf(second));
    }

    @Test
    void nextId_clockAdvances_restartsSequenceAtZero() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(1, clock);
        generator.nextId();
        generator.nextId();
        clock.advance(Duration.ofMillis(5));

        long id = generator.nextId();

        assertEquals(NOW.plusMillis(5), SnowflakeIdGenerator.timestampOf(id));
        assertEquals(0, SnowflakeIdGenerator.sequenceOf(id));
    }

    @Test
    void nextId_sequenceExhausted_movesToNextMillisecondLogically() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(3, clock);
        long last = -1;
        for (int i = 0; i <= SnowflakeIdGenerator.MAX_SEQUENCE; i++) {
            last = generator.nextId();
        }
        assertEquals(4095, SnowflakeIdGenerator.sequenceOf(last));

        long overflow = generator.nextId();

        assertTrue(overflow > last);
        assertEquals(NOW.plusMillis(1), SnowflakeIdGenerator.timestampOf(overflow));
        assertEquals(0, SnowflakeIdGenerator.sequenceOf(overflow));
        assertEquals(3, SnowflakeIdGenerator.nodeIdOf(overflow));
    }

    @Test
    void nextId_clockGoesBackwards_keepsIncreasingFromTheLastTimestamp() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(2, clock);
        clock.advance(Duration.ofMillis(100));
        long beforeJump = generator.nextId();
        clock.advance(Duration.ofSeconds(-10)); // NTP step back

        Set<Long> ids = new HashSet<>();
        long previous = beforeJump;
        for (int i = 0; i < 10_000; i++) {
            long id = generator.nextId();
            assertTrue(id > previous, "not increasing after the clock went back: " + SnowflakeIdGenerator.describe(id));
            assertTrue(ids.add(id), "duplicate " + id);
            previous = id;
        }
        // 10 000 IDs borrowed from the future: 10 001 IDs starting at beforeJump's ms span 3 ms.
        assertEquals(NOW.plusMillis(102), SnowflakeIdGenerator.timestampOf(previous));
    }

    @Test
    void nextId_clockCatchesUpAfterGoingBack_resumesWallClockTime() {
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(2, clock);
        clock.advance(Duration.ofMillis(100));
        generator.nextId();
        clock.advance(Duration.ofMillis(-50));
        generator.nextId();
        clock.advance(Duration.ofMillis(60)); // now 10 ms past the last timestamp

        long id = generator.nextId();

        assertEquals(NOW.plusMillis(110), SnowflakeIdGenerator.timestampOf(id));
        assertEquals(0, SnowflakeIdGenerator.sequenceOf(id));
    }

    @Test
    void nextId_twoNodesOnTheSameClock_neverCollide() {
        SnowflakeIdGenerator nodeA = new SnowflakeIdGenerator(0, clock);
        SnowflakeIdGenerator nodeB = new SnowflakeIdGenerator(SnowflakeIdGenerator.MAX_NODE_ID, clock);
        Set<Long> ids = new HashSet<>();

        for (int i = 0; i < 20_000; i++) {
            if (i % 1_000 == 0) {
                clock.advance(Duration.ofMillis(1));
            }
            assertTrue(ids.add(nodeA.nextId()));
            assertTrue(ids.add(nodeB.nextId()));
        }

        assertEquals(40_000, ids.size());
    }

    @Test
    void constructor_nodeIdOutOfRange_throwsNamingValue() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> new SnowflakeIdGenerator(-1, clock));
        IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> new SnowflakeIdGenerator(1024, clock));

        assertEquals("nodeId must be in 0..1023, got -1", negative.getMessage());
        assertEquals("nodeId must be in 0..1023, got 1024", tooLarge.getMessage());
    }

    @Test
    void constructor_clockBeforeEpoch_throwsNamingTheReading() {
        clock.set(Instant.parse("2023-12-31T23:59:59Z"));

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> new SnowflakeIdGenerator(0, clock));

        assertEquals("clock reads 2023-12-31T23:59:59Z, before the ID epoch 2024-01-01T00:00:00Z", failure.getMessage());
    }

    @Test
    void nextId_atTheEpoch_isZeroForNodeZero() {
        clock.set(SnowflakeIdGenerator.EPOCH);

        assertEquals(0L, new SnowflakeIdGenerator(0, clock).nextId());
    }

    @Test
    void nextId_lastRepresentableMillisecond_isPositiveThenExhausted() {
        Instant lastMs = SnowflakeIdGenerator.EPOCH.plusMillis((1L << 41) - 1);
        clock.set(lastMs);
        SnowflakeIdGenerator generator = new SnowflakeIdGenerator(SnowflakeIdGenerator.MAX_NODE_ID, clock);

        long id = generator.nextId();
        clock.advance(Duration.ofMillis(1));

        assertTrue(id > 0, "sign bit must stay clear");
        assertEquals(lastMs, SnowflakeIdGenerator.timestampOf(id));
        IllegalStateException exhausted = assertThrows(IllegalStateException.class, generator::nextId);
        assertTrue(exhausted.getMessage().startsWith("ID timestamp exhausted"), exhausted.getMessage());
    }

    @Test
    void lowestIdAt_oneMillisecondAfterEpoch_isOneShiftedPastNodeAndSequence() {
        assertEquals(1L << 22, SnowflakeIdGenerator.lowestIdAt(SnowflakeIdGenerator.EPOCH.plusMillis(1)));
        assertEquals(0L, SnowflakeIdGenerator.lowestIdAt(SnowflakeIdGenerator.EPOCH));
    }

    @Test
    void lowestIdAt_boundsEveryIdOfItsMillisecondOnEveryNode() {
        Instant t = NOW.plusMillis(250);
        long lowest = SnowflakeIdGenerator.lowestIdAt(t);
        long nextLowest = SnowflakeIdGenerator.lowestIdAt(t.plusMillis(1));
        for (int node : new int[] {0, 1, 512, SnowflakeIdGenerator.MAX_NODE_ID}) {
            clock.set(t.minusMillis(1));
            SnowflakeIdGenerator generator = new SnowflakeIdGenerator(node, clock);
            long before = generator.nextId();
            clock.set(t);
            long first = generator.nextId();
            long last = first;
            for (int i = 0; i < SnowflakeIdGenerator.MAX_SEQUENCE; i++) {
                last = generator.nextId(); // fills the millisecond: sequence 0..4095
            }
            assertTrue(before < lowest, "node " + node + ": an id of the previous millisecond is below the bound");
            assertTrue(first >= lowest && last < nextLowest,
                    "node " + node + ": ids of the millisecond are in [lowestIdAt(t), lowestIdAt(t + 1 ms))");
            assertEquals(t, SnowflakeIdGenerator.timestampOf(last));
        }
    }

    @Test
    void lowestIdAt_subMillisecondInstant_isTruncatedToItsMillisecond() {
        Instant t = Instant.parse("2026-11-25T10:00:00.123Z");

        assertEquals(SnowflakeIdGenerator.lowestIdAt(t), SnowflakeIdGenerator.lowestIdAt(t.plusNanos(999_999)));
        assertTrue(SnowflakeIdGenerator.lowestIdAt(t.plusNanos(1_000_000)) > SnowflakeIdGenerator.lowestIdAt(t));
    }

    @Test
    void lowestIdAt_outsideTheIdRange_clampsWithoutOverflow() {
        Instant lastMs = SnowflakeIdGenerator.EPOCH.plusMillis((1L << 41) - 1);

        assertEquals(0L, SnowflakeIdGenerator.lowestIdAt(SnowflakeIdGenerator.EPOCH.minusNanos(1)));
        assertEquals(0L, SnowflakeIdGenerator.lowestIdAt(Instant.EPOCH));
        assertEquals(0L, SnowflakeIdGenerator.lowestIdAt(Instant.MIN));
        assertEquals(((1L << 41) - 1) << 22, SnowflakeIdGenerator.lowestIdAt(lastMs));
        assertEquals(Long.MAX_VALUE, SnowflakeIdGenerator.lowestIdAt(lastMs.plusMillis(1)));
        assertEquals(Long.MAX_VALUE, SnowflakeIdGenerator.lowestIdAt(Instant.parse("3000-01-01T00:00:00Z")));
        assertEquals(Long.MAX_VALUE, SnowflakeIdGenerator.lowestIdAt(Instant.MAX));
    }

    @Test
    void lowestIdAt_randomInstantsAndNodes_agreesWithTimestampOf() {
        long seed = System.nanoTime();
        java.util.Random random = new java.util.Random(seed);
        long rangeMs = (1L << 41) - 2;
        for (int i = 0; i < 10_000; i++) {
            Instant t = SnowflakeIdGenerator.EPOCH.plusMillis(1 + (random.nextLong() & Long.MAX_VALUE) % rangeMs);
            clock.set(t);
            long id = new SnowflakeIdGenerator(random.nextInt(SnowflakeIdGenerator.MAX_NODE_ID + 1), clock).nextId();
            String why = "seed " + seed + ", instant " + t + ", id " + id;
            assertTrue(SnowflakeIdGenerator.lowestIdAt(t) <= id, why);
            assertTrue(id < SnowflakeIdGenerator.lowestIdAt(t.plusMillis(1)), why);
            assertTrue(SnowflakeIdGenerator.lowestIdAt(t.minusMillis(1)) < SnowflakeIdGenerator.lowestIdAt(t), why);
        }
    }
}
