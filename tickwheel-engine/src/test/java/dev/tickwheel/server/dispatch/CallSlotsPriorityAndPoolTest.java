package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.dispatch.CallSlots.Admission;
import dev.tickwheel.server.dispatch.CallSlots.PoolLimits;
import dev.tickwheel.server.dispatch.CallSlots.Ticket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.tickwheel.server.dispatch.CallSlots.Admission.ADMITTED;
import static dev.tickwheel.server.dispatch.CallSlots.Admission.QUEUED;
import static dev.tickwheel.server.dispatch.CallSlots.Admission.SKIPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CallSlots}' priorities with ageing and its pools (shared concurrency and an even rate), on a settable ticker
 * and with wake-ups run by hand: admission order with one slot, no starvation under a steady high-priority stream,
 * a pool's limit across jobs, its rate's spacing and wake-ups, and skipping. The invariant checker runs after every
 * step.
 */
class CallSlotsPriorityAndPoolTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    /** Wake-ups asked for and not yet run, by due time on {@link #now}. */
    private final PriorityQueue<Wakeup> wakeups = new PriorityQueue<>(Comparator.comparingLong(Wakeup::dueNanos));
    private final List<Ticket> admittedLater = new ArrayList<>();
    private final Map<Ticket, Long> admittedAt = new HashMap<>();
    private final Map<Ticket, Integer> priorities = new HashMap<>();
    private CallSlots slots;

    private record Wakeup(long dueNanos, Runnable task) {
    }

    @AfterEach
    void invariantsHold() {
        if (slots != null) {
            slots.checkInvariants();
        }
    }

    // ---- priority ----

    @Test
    void oneSlot_1000WaitingOfThreePriorities_admittedHighestFirstThenOldest() {
        slots = slots(1, 1_000 * MS);
        Ticket holder = ticket(0, 5, 0, null);
        assertEquals(ADMITTED, acquire(holder));
        Random random = new Random(25);
        int[] priorities = {1, 5, 9};
        List<Ticket> waiting = new ArrayList<>();
        for (int i = 1; i <= 1_000; i++) {
            Ticket ticket = ticket(i, priorities[random.nextInt(3)], 0, null);
            assertEquals(QUEUED, acquire(ticket));
            waiting.add(ticket);
            now.addAndGet(1_000); // 1 µs apart: 1 ms in all, far below one ageing step
        }
        release(holder);
        for (int i = 0; i < 1_000; i++) {
            release(admittedLater.get(i)); // one slot: each release admits exactly the next
        }
        List<Ticket> expected = new ArrayList<>(waiting);
        expected.sort(Comparator.comparingInt((Ticket t) -> -priorityOf(t)).thenComparingLong(Ticket::instanceId));
        assertEquals(expected, admittedLater);
        assertEquals(0, slots.waiting());
    }

    /**
     * One slot, each call 10 ms; two priority-9 tickets arrive every 10 ms, so the high-priority backlog only grows.
     * A priority-0 ticket that arrived at the start ranks as if it had arrived 9 ageing steps (900 ms) before a
     * priority-9 one of the same time: it is admitted after the priority-9 tickets that arrived before 900 ms and
     * before every one that arrived later. Strict priority would never admit it while the stream lasts.
     */
    @Test
    void steadyHighPriorityStream_lowPriorityTicketIsAdmittedAfterAtMostNineAgeingSteps() {
        long aging = 100 * MS;
        slots = slots(1, aging);
        Ticket first = ticket(0, 9, 0, null);
        assertEquals(ADMITTED, acquire(first));
        long start = now.get();
        Ticket low = ticket(1, 0, 0, null);
        assertEquals(QUEUED, acquire(low));
        Map<Ticket, Long> arrivedAt = new HashMap<>();
        now.addAndGet(5 * MS); // off the 10 ms grid: no arrival ties with the low ticket's rank
        Ticket running = first;
        long id = 2;
        for (int step = 0; step < 500 && !admittedAt.containsKey(low); step++) { // 5 s at most
            for (int i = 0; i < 2; i++) {
                Ticket high = ticket(id++, 9, 0, null);
                arrivedAt.put(high, now.get());
                assertEquals(QUEUED, acquire(high));
            }
            now.addAndGet(10 * MS);
            int before = admittedLater.size();
            release(running);
            assertEquals(before + 1, admittedLater.size(), "one slot: a release admits one waiter");
            running = admittedLater.get(before);
        }
        Long lowAdmittedAt = admittedAt.get(low);
        assertNotNull(lowAdmittedAt, "the priority-0 ticket was never admitted: starved");
        long cutoff = start + 9 * aging;
        for (Ticket ticket : admittedLater) {
            if (ticket == low) {
                break;
            }
            assertTrue(arrivedAt.get(ticket) < cutoff, "a priority-9 ticket that arrived "
                    + (arrivedAt.get(ticket) - start) / MS + " ms after the low one passed it");
        }
        assertTrue(arrivedAt.values().stream().anyMatch(t -> t >= cutoff),
                "the stream went on past the cutoff, so the low ticket did pass later arrivals");
        assertTrue(lowAdmittedAt - start <= 2_000 * MS, "admitted after " + (lowAdmittedAt - start) / MS + " ms");
    }

    // ---- pools ----

    @Test
    void pool_maxConcurrentAcrossJobs_holdsTheirCallsTogetherAndAdmitsInPriorityOrder() {
        slots = slots(100, 1_000 * MS);
        PoolLimits pool = new PoolLimits("p", 2, 0);
        Ticket a = ticket(1, 5, 0, pool, 10);
        Ticket b = ticket(2, 5, 0, pool, 11);
        Ticket c = ticket(3, 1, 0, pool, 12);
        Ticket d = ticket(4, 8, 0, pool, 13);
        assertEquals(ADMITTED, acquire(a));
        assertEquals(ADMITTED, acquire(b));
        assertEquals(QUEUED, acquire(c));
        assertEquals(QUEUED, acquire(d));
        assertEquals(ADMITTED, acquire(ticket(5, 5, 0, null, 10)), "a job without the pool is not held back");
        assertEquals(new CallSlots.PoolUsage(2, 2), slots.poolUsage("p"));

        slots.callEnded(a); // the pool counts calls: its slot comes back when the call ends
        slots.checkInvariants();
        assertEquals(List.of(d), admittedLater, "the higher priority first");
        release(b);
        assertEquals(List.of(d, c), admittedLater);
        release(a);
        release(c);
        release(d);
        assertEquals(new CallSlots.PoolUsage(0, 0), slots.poolUsage("p"), "kept, idle");
    }

    @Test
    void poolRate_50PerSecond_admitsOneEvery20MsThroughWakeups() {
        slots = slots(1_000, 1_000 * MS);
        PoolLimits pool = new PoolLimits("rated", 0, TimeUnit.SECONDS.toNanos(1) / 50);
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 1; i <= 120; i++) {
            Ticket ticket = ticket(i, 5, 0, pool, i);
            tickets.add(ticket);
            Admission admission = acquire(ticket);
            assertEquals(i == 1 ? ADMITTED : QUEUED, admission, "ticket " + i);
        }
        assertEquals(1, wakeups.size(), "one wake-up per pool, not one per waiter");
        assertEquals(now.get() + 20 * MS, wakeups.peek().dueNanos());
        runWakeupsUntil(now.get() + 5_000 * MS);
        assertEquals(119, admittedLater.size());
        assertTrue(wakeups.isEmpty(), "nobody waits, no wake-up is left");
        List<Long> times = new ArrayList<>();
        for (Ticket ticket : tickets) {
            times.add(admittedAt.get(ticket));
        }
        for (int i = 1; i < times.size(); i++) {
            assertEquals(20 * MS, times.get(i) - times.get(i - 1), "admission " + i);
        }
        // No window of one second (half-open) holds more than 50 admissions.
        for (int i = 0; i + 50 < times.size(); i++) {
            assertTrue(times.get(i + 50) - times.get(i) >= 1_000 * MS, "51 admissions within a second from " + i);
        }
        tickets.forEach(this::release);
    }

    @Test
    void poolRate_idleForLong_doesNotSaveUpABurst() {
        slots = slots(100, 1_000 * MS);
        PoolLimits pool = new PoolLimits("rated", 0, 100 * MS);
        Ticket a = ticket(1, 5, 0, pool, 1);
        assertEquals(ADMITTED, acquire(a));
        release(a);
        now.addAndGet(60_000 * MS);
        assertEquals(ADMITTED, acquire(ticket(2, 5, 0, pool, 2)));
        assertEquals(QUEUED, acquire(ticket(3, 5, 0, pool, 3)), "a minute idle gives one permit, not 600");
        assertEquals(now.get() + 100 * MS, wakeups.peek().dueNanos());
    }

    @Test
    void poolRateAndConcurrency_aWakeupFindingThePoolFull_waitsForARelease() {
        slots = slots(100, 1_000 * MS);
        PoolLimits pool = new PoolLimits("both", 1, 10 * MS);
        Ticket a = ticket(1, 5, 0, pool, 1);
        Ticket b = ticket(2, 5, 0, pool, 2);
        assertEquals(ADMITTED, acquire(a));
        assertEquals(QUEUED, acquire(b));
        assertTrue(wakeups.isEmpty(), "the pool is full: a release, not the clock, admits b");
        now.addAndGet(50 * MS);
        release(a);
        assertEquals(List.of(b), admittedLater, "the permit is long due: b goes at once");
        release(b);
    }

    @Test
    void skippingJob_poolFullOrRateNotDue_isSkippedAndTakesNothing() {
        slots = slots(100, 1_000 * MS);
        PoolLimits full = new PoolLimits("full", 1, 0);
        Ticket holder = ticket(1, 5, 0, full, 1);
        assertEquals(ADMITTED, acquire(holder));
        Ticket skipped = new Ticket(2, 2, 5, 3, true, full, "h", 100, this::admittedLater);
        assertEquals(SKIPPED, acquire(skipped));
        assertEquals(0, slots.trackedJobs(), "the skipped ticket's job entry is not left behind");

        PoolLimits rated = new PoolLimits("rated", 0, 1_000 * MS);
        assertEquals(ADMITTED, acquire(ticket(3, 5, 0, rated, 3)));
        assertEquals(SKIPPED, acquire(new Ticket(4, 4, 5, 0, true, rated, "h", 100, this::admittedLater)));
        now.addAndGet(1_000 * MS);
        assertEquals(ADMITTED, acquire(new Ticket(5, 4, 5, 0, true, rated, "h", 100, this::admittedLater)));
        assertTrue(wakeups.isEmpty());
        assertFalse(admittedLater.contains(skipped));
    }

    @Test
    void drainWaiting_emptiesPoolQueuesToo() {
        slots = slots(100, 1_000 * MS);
        PoolLimits pool = new PoolLimits("p", 1, 0);
        acquire(ticket(1, 5, 0, pool, 1));
        Ticket waiting = ticket(2, 5, 0, pool, 2);
        acquire(waiting);
        assertEquals(List.of(waiting), slots.drainWaiting());
        assertEquals(new CallSlots.PoolUsage(1, 0), slots.poolUsage("p"));
    }

    // ---- helpers ----

    private CallSlots slots(int serverLimit, long agingNanos) {
        return new CallSlots(serverLimit, agingNanos, now::get,
                (delayNanos, task) -> wakeups.add(new Wakeup(now.get() + delayNanos, task)));
    }

    /** Runs due wake-ups in time order, moving the ticker to each, until none is due by {@code until}. */
    private void runWakeupsUntil(long until) {
        while (!wakeups.isEmpty() && wakeups.peek().dueNanos() <= until) {
            Wakeup next = wakeups.poll();
            now.set(Math.max(now.get(), next.dueNanos()));
            next.task().run();
            slots.checkInvariants();
        }
    }

    private Ticket ticket(long instanceId, int priority, int jobLimit, PoolLimits pool) {
        return ticket(instanceId, priority, jobLimit, pool, instanceId);
    }

    private Ticket ticket(long instanceId, int priority, int jobLimit, PoolLimits pool, long jobId) {
        Ticket ticket = new Ticket(instanceId, jobId, priority, jobLimit, false, pool, "h", 10_000,
                this::admittedLater);
        priorities.put(ticket, priority);
        return ticket;
    }

    private int priorityOf(Ticket ticket) {
        return priorities.get(ticket);
    }

    private void admittedLater(Ticket ticket) {
        admittedLater.add(ticket);
        admittedAt.put(ticket, now.get());
    }

    private Admission acquire(Ticket ticket) {
        Admission admission = slots.acquire(ticket);
        if (admission == ADMITTED) {
            admittedAt.put(ticket, now.get());
        }
        slots.checkInvariants();
        return admission;
    }

    private void release(Ticket ticket) {
        slots.release(ticket);
        slots.checkInvariants();
    }
}
