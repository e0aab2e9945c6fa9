package dev.tickwheel.server.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The slab and CARGO without the wheels: slots taken and released, the ID index against a {@link HashMap} oracle,
 * cancels by ID and by handle, and the lock-free cancel racing writers that grow, shrink and reuse slots.
 */
class InstanceSlabTest {

    private static final Runnable NOOP = () -> { };

    private final Set<Long> cancelledIds = ConcurrentHashMap.newKeySet();

    /** What a dispatch thread does with a due slot: starts it if it is still waiting, then releases it. */
    private static boolean start(InstanceSlab slab, int slot) {
        long ctl = slab.ctl(slot);
        boolean won = InstanceSlab.state(ctl) == InstanceSlab.WAITING
                && slab.casCtl(slot, ctl, InstanceSlab.withState(ctl, InstanceSlab.STARTED));
        slab.release(slot);
        return won;
    }

    /** Empties every transfer list, as the wheels' workers would (the test plays the wheel). */
    private static void takeAllTransfers(InstanceSlab slab) {
        for (int s = 0; s < slab.stripeCount(); s++) {
            slab.takeTransfers(s, InstanceSlab.PRECISE);
            slab.takeTransfers(s, InstanceSlab.COARSE);
        }
    }

    @Test
    void operations_randomAgainstHashMap_agree() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        InstanceSlab slab = new InstanceSlab(4, 0, 0);
        Map<Long, Integer> oracle = new HashMap<>();
        List<Long> keys = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            // Few distinct keys collide often; sequential keys look like Snowflake IDs.
            long key = random.nextBoolean() ? random.nextInt(5_000) : 1_000_000L + step;
            if (op < 5 || oracle.isEmpty()) {
                int slot = slab.schedule(key, step, NOOP, InstanceSlab.PRECISE);
                if (oracle.containsKey(key)) {
                    assertEquals(InstanceSlab.NIL, slot, "seed=" + seed);
                } else {
                    assertNotEquals(InstanceSlab.NIL, slot, "seed=" + seed);
                    assertEquals(key, slab.id(slot));
                    assertEquals(step, slab.deadlineNanos(slot));
                    oracle.put(key, slot);
                    keys.add(key);
                }
            } else if (op < 8) {
                long victim = keys.remove(random.nextInt(keys.size()));
                assertTrue(start(slab, oracle.remove(victim)), "seed=" + seed);
            } else if (op < 9) {
                long victim = keys.remove(random.nextInt(keys.size()));
                int slot = oracle.remove(victim);
                assertTrue(slab.cancel(victim) >= 0, "seed=" + seed);
                assertTrue(slab.cancel(victim) < 0, "seed=" + seed + ": a second cancel");
                assertFalse(start(slab, slot), "seed=" + seed + ": a cancelled slot does not start");
            } else {
                assertEquals(oracle.containsKey(key), slab.isPending(key), "seed=" + seed + " key=" + key);
            }
            if (step % 1000 == 0) {
                takeAllTransfers(slab);
                for (Long id : oracle.keySet()) {
                    assertTrue(slab.isPending(id), "seed=" + seed + " key=" + id);
                }
            }
            assertEquals(oracle.size(), slab.size(), "seed=" + seed);
            assertEquals(oracle.size(), slab.entries(), "seed=" + seed);
        }
        assertTrue(slab.slotsAllocated() < 20_000, "released slots are reused: " + slab.slotsAllocated());
    }

    @Test
    void schedule_idNoLongerPending_takesItsPlace_andTheOldReleaseLeavesTheNewEntry() {
        InstanceSlab slab = new InstanceSlab(2, 0, 0);
        int first = slab.schedule(7, 1, NOOP, InstanceSlab.PRECISE);
        long ctl = slab.ctl(first);
        assertTrue(slab.casCtl(first, ctl, InstanceSlab.withState(ctl, InstanceSlab.STARTED)));
        // Started, not released yet: the ID is free again.
        int second = slab.schedule(7, 2, NOOP, InstanceSlab.PRECISE);
        assertNotEquals(first, second);
        assertEquals(InstanceSlab.NIL, slab.schedule(7, 3, NOOP, InstanceSlab.PRECISE), "the new one is pending");
        slab.release(first);
        assertTrue(slab.isPending(7), "releasing the old slot must not remove the new entry");
        assertEquals(1, slab.entries());
        assertTrue(slab.cancel(7) >= 0);
    }

    @Test
    void cancel_leavesTheEntryUntilRelease_handlesKeepTheirAnswerAfterTheSlotIsReused() {
        InstanceSlab slab = new InstanceSlab(2, 0, 0);
        List<Long> told = new ArrayList<>();
        InstanceSlab.CancelListener owner = told::add;
        {
            int pending = slab.schedule(11, 5, NOOP, InstanceSlab.COARSE);
            int started = slab.schedule(12, 5, NOOP, InstanceSlab.PRECISE);
            InstanceHandle handle = slab.handle(11, owner);
            assertSame(handle, slab.handle(11, owner), "one handle while pending");
            assertTrue(start(slab, started));
            long replaced = slab.cancel(11);
            assertEquals(InstanceSlab.COARSE, InstanceSlab.tier(replaced), "the cancel says which wheel held it");
            assertEquals(0, slab.size(), "a cancelled entry no longer counts");
            assertEquals(1, slab.entries(), "but stays until the wheel releases the slot");
            assertTrue(slab.cancel(11) < 0, "second cancel");
            assertTrue(slab.cancel(12) < 0, "started");
            assertTrue(slab.cancel(99) < 0, "unknown");
            assertNull(slab.handle(11, owner), "no handle for an instance that is not pending");
            takeAllTransfers(slab);
            slab.release(pending);
            assertEquals(0, slab.entries());
            // Both slots are free now; new instances take them, in later generations.
            int again = slab.schedule(13, 5, NOOP, InstanceSlab.PRECISE);
            int more = slab.schedule(14, 5, NOOP, InstanceSlab.PRECISE);
            assertTrue(again == pending || more == pending, "the released slot is reused");
            assertTrue(handle.isCancelled(), "the handle still knows how its instance ended");
            assertFalse(handle.isStarted());
            assertFalse(handle.cancel(), "and cannot cancel the slot's new instance");
            assertTrue(slab.isPending(13) && slab.isPending(14));
            assertEquals(List.of(), told, "the cancel by ID was not the handle's: nobody told it");
        }
    }

    @Test
    void handleCancel_tellsTheListenerWhichWheelHeldTheSlot() {
        InstanceSlab slab = new InstanceSlab(2, 0, 0);
        List<Long> told = new ArrayList<>();
        slab.schedule(21, 5, NOOP, InstanceSlab.COARSE);
        InstanceHandle handle = slab.handle(21, told::add);
        assertTrue(handle.cancel());
        assertFalse(handle.cancel());
        assertEquals(1, told.size());
        assertEquals(InstanceSlab.COARSE, InstanceSlab.tier(told.get(0)));
        assertTrue(handle.isCancelled() && !handle.isPending());
        assertFalse(slab.isPending(21));
    }

    @Test
    void expectedInstances_sizesCargoUpFront_andReleasesDoNotShrinkItBelow() {
        InstanceSlab slab = new InstanceSlab(2, 0, 100_000);
        for (long id = 0; id < 100_000; id++) {
            slab.schedule(id, 1, NOOP, InstanceSlab.PRECISE);
        }
        takeAllTransfers(slab);
        for (long id = 0; id < 100_000; id++) {
            assertTrue(slab.cancel(id) >= 0);
        }
        assertEquals(0, slab.size());
        assertEquals(100_000, slab.entries());
    }

    /**
     * The lock-free cancel never misses a pending instance and never hits another, while writers change its stripe
     * and reuse slots. 1 000 instances stay pending while two threads schedule and start 10 000 other IDs over and over
     * in the same two stripes (so every stripe grows and shrinks, and released slots are taken again by new IDs), and
     * a third reads the pending ones; two cancellers then cancel the 1 000 in random order, each its own half, during
     * the churn. Every cancel must return true, every read before its cancel must find the instance pending, and every
     * churned instance must start: a cancel that followed a stale link into a reused slot and won would make one fail.
     */
    @Test
    void cancel_racingGrowthShrinkingAndSlotReuseOfItsStripe_neverMissesAndNeverHitsAnother() throws Exception {
        for (int round = 0; round < 20; round++) {
            InstanceSlab slab = new InstanceSlab(2, 0, 0);
            int stable = 1_000;
            for (long id = 0; id < stable; id++) {
                assertNotEquals(InstanceSlab.NIL, slab.schedule(id, 1, NOOP, InstanceSlab.PRECISE));
            }
            AtomicBoolean churning = new AtomicBoolean(true);
            AtomicBoolean cancelling = new AtomicBoolean(true);
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                long base = 1_000_000L * (c + 1);
                threads.add(new Thread(() -> {
                    List<Integer> mine = new ArrayList<>();
                    while (churning.get()) {
                        for (long id = base; id < base + 10_000; id++) {
                            mine.add(slab.schedule(id, 1, NOOP, InstanceSlab.PRECISE));
                        }
                        takeAllTransfers(slab);
                        for (int slot : mine) {
                            if (!start(slab, slot)) {
                                wrong.add("churned slot " + slot + " was cancelled by someone");
                            }
                        }
                        mine.clear();
                    }
                }));
            }
            threads.add(new Thread(() -> {
                while (cancelling.get()) {
                    for (long id = 0; id < stable; id++) {
                        // Read, then whether a cancel of it had finished before: a miss must come after that cancel.
                        boolean pending = slab.isPending(id);
                        if (!pending && !cancelledIds.contains(id)) {
                            wrong.add("read of " + id + " found it not pending");
                        }
                    }
                }
            }));
            cancelledIds.clear();
            threads.forEach(Thread::start);
            List<Long> order = new ArrayList<>();
            for (long id = 0; id < stable; id++) {
                order.add(id);
            }
            Collections.shuffle(order);
            List<Thread> cancellers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                int first = c;
                cancellers.add(new Thread(() -> {
                    for (int i = first; i < order.size(); i += 2) {
                        long id = order.get(i);
                        cancelledIds.add(id); // before: a reader that misses it afterwards sees it here
                        if (slab.cancel(id) < 0) {
                            wrong.add("cancel of pending " + id + " returned false");
                        }
                    }
                }));
            }
            cancellers.forEach(Thread::start);
            for (Thread canceller : cancellers) {
                canceller.join();
            }
            cancelling.set(false);
            churning.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(List.of(), List.copyOf(wrong), "round " + round);
            assertEquals(0, slab.size(), "round " + round + ": all cancelled, the churn's own started");
            assertEquals(stable, slab.entries(), "round " + round + ": the cancelled wait for their release");
        }
    }

    @Test
    void cancelAll_cancelsEveryWaitingInstance() {
        InstanceSlab slab = new InstanceSlab(8, 0, 0);
        for (long id = 0; id < 1000; id++) {
            slab.schedule(id, 1, NOOP, id % 2 == 0 ? InstanceSlab.PRECISE : InstanceSlab.COARSE);
        }
        assertTrue(slab.cancel(5) >= 0);
        assertEquals(999, slab.cancelAll());
        assertEquals(0, slab.size());
        assertFalse(slab.isPending(6));
    }

    @Test
    void chunkArithmetic_slotsMapToConsecutiveOffsetsOfGrowingChunks() {
        int slot = 0;
        for (int chunk = 0; chunk < 12; chunk++) {
            int slots = InstanceSlab.chunkSlots(chunk);
            assertEquals(chunk < 9 ? 4096 << chunk : 1 << 20, slots);
            for (int offset : new int[] {0, 1, slots - 1}) {
                assertEquals(chunk, InstanceSlab.chunkIndex(slot + offset), "slot " + (slot + offset));
                assertEquals(offset, InstanceSlab.offset(slot + offset), "slot " + (slot + offset));
            }
            slot += slots;
        }
    }
}
