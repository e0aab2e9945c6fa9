package dev.tickwheel.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives {@link TimingWheel} with random adds, cancels, sweeps (whole, and cut into stretches of random budgets) and
 * clock moves, and checks it against a priority queue after every step: exactly the due live timeouts fire, none early,
 * no cancelled one fires, a cancelled one is dropped exactly once (when its bucket is expired or by a sweep), the size
 * counts the live and the cancelled still linked, and {@link TimingWheel#nextDeadline()} is never later than the true
 * earliest deadline. The seed is printed in every failure message.
 */
class TimingWheelOracleTest {

    private static final long TICK = 1_000_000; // 1 ms

    @ParameterizedTest(name = "origin={0}")
    @ValueSource(longs = {0, Long.MAX_VALUE - 5_000_000_000L, Long.MIN_VALUE, -123_456_789_012L})
    void expire_randomOperations_matchesPriorityQueueOracle(long origin) {
        for (int round = 0; round < 20; round++) {
            long seed = new Random().nextLong();
            try {
                runOracle(origin, seed);
            } catch (AssertionError e) {
                throw new AssertionError("seed=" + seed + " origin=" + origin + ": " + e.getMessage(), e);
            }
        }
    }

    private static void runOracle(long origin, long seed) {
        Random random = new Random(seed);
        int buckets = 1 << (1 + random.nextInt(6)); // 2..64 buckets: many rounds per bucket
        TimingWheel wheel = new TimingWheel(TICK, buckets, origin);
        PriorityQueue<Node> oracle = new PriorityQueue<>((a, b) -> Long.compare(a.rel, b.rel));
        List<Node> live = new ArrayList<>();
        Set<Node> cancelledLinked = new HashSet<>();
        long now = 0;
        for (int step = 0; step < 3_000; step++) {
            int op = random.nextInt(10);
            if (op < 5) {
                long delay = switch (random.nextInt(4)) {
                    case 0 -> 1 + random.nextInt((int) TICK);                  // inside the current tick or the next
                    case 1 -> 1 + (long) random.nextInt(buckets) * TICK;       // within one revolution
                    case 2 -> 1 + (long) (random.nextDouble() * buckets * TICK * 10); // several revolutions
                    default -> 1 + random.nextInt(1000);                        // nanoseconds away
                };
                Node node = new Node(now + delay);
                node.deadlineNanos = origin + node.rel;
                wheel.add(node);
                oracle.add(node);
                live.add(node);
            } else if (op < 6 && !live.isEmpty()) {
                Node node = live.remove(random.nextInt(live.size()));
                assertTrue(node.cancel());
                oracle.remove(node);
                cancelledLinked.add(node);
            } else if (op < 7) {
                // A stretch of a sweep (it ends at a bucket's end, never inside one), or all of it; a sweep under way
                // carries on across adds, cancels and expiries, as on the timer's worker.
                boolean fresh = !wheel.isSweeping();
                if (fresh) {
                    wheel.startSweep();
                }
                boolean whole = random.nextBoolean();
                int dropped = 0;
                do {
                    dropped += wheel.sweep(1 + random.nextInt(8));
                } while (whole && wheel.isSweeping());
                int unlinked = 0;
                for (Iterator<Node> it = cancelledLinked.iterator(); it.hasNext(); ) {
                    if (!it.next().isLinked()) {
                        it.remove();
                        unlinked++;
                    }
                }
                assertEquals(unlinked, dropped, "a sweep drops exactly the cancelled nodes it unlinks");
                if (fresh && whole) {
                    assertEquals(Set.of(), cancelledLinked, "a whole sweep drops every cancelled node");
                }
            } else {
                long step2 = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(1000);
                    case 1 -> random.nextInt((int) TICK);
                    case 2 -> (long) random.nextInt(buckets * 2) * TICK + random.nextInt(1000);
                    default -> (long) (random.nextDouble() * buckets * TICK * 12);
                };
                now += step2;
                Set<WheelTimeout> fired = new HashSet<>();
                long nowFinal = now;
                int dropped = wheel.expire(now, t -> {
                    if (((Node) t).rel > nowFinal) {
                        fail("fired early: deadline " + ((Node) t).rel + " at " + nowFinal);
                    }
                    if (t.isCancelled()) {
                        fail("a cancelled timeout fired");
                    }
                    fired.add(t);
                });
                Set<WheelTimeout> expected = new HashSet<>();
                while (!oracle.isEmpty() && oracle.peek().rel <= now) {
                    expected.add(oracle.poll());
                }
                assertEquals(expected, fired, "fired set at now=" + now);
                live.removeAll(fired);
                long dueCancelled = cancelledLinked.stream().filter(n -> n.rel <= nowFinal).count();
                assertEquals(dueCancelled, dropped, "cancelled timeouts dropped when their bucket is expired");
                cancelledLinked.removeIf(n -> n.rel <= nowFinal);
            }
            assertEquals(oracle.size() + cancelledLinked.size(), wheel.size(), "size: live plus cancelled linked");
            long next = wheel.nextDeadline();
            if (wheel.size() == 0) {
                assertEquals(Long.MAX_VALUE, next, "nextDeadline of an empty wheel");
            } else if (oracle.isEmpty()) {
                assertTrue(next > wheel.expiredUpTo(), "nextDeadline " + next + " not after expiredUpTo");
            } else {
                assertTrue(next <= oracle.peek().rel, "nextDeadline " + next + " later than earliest " + oracle.peek().rel);
                assertTrue(next > wheel.expiredUpTo(), "nextDeadline " + next + " not after expiredUpTo");
            }
        }
    }

    private static final class Node extends WheelTimeout {
        final long rel;

        Node(long rel) {
            super(() -> { });
            this.rel = rel;
        }
    }
}
