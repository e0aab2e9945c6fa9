package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.dispatch.CallSlots.Admission;
import dev.tickwheel.server.dispatch.CallSlots.Ticket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static dev.tickwheel.server.dispatch.CallSlots.Admission.ADMITTED;
import static dev.tickwheel.server.dispatch.CallSlots.Admission.QUEUED;
import static dev.tickwheel.server.dispatch.CallSlots.Admission.SKIPPED;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link CallSlots}, single-threaded and deterministic: what each limit admits, queue order, release of waiting
 * tickets, forgetting idle entries, the slow-target claims and changing limits. The invariant checker runs after
 * every acquire and release.
 */
class CallSlotsTest {

    private CallSlots slots;
    /** Tickets whose callback ran, in order: the queued tickets admitted later. */
    private final List<Ticket> admittedLater = new ArrayList<>();
    private boolean callbackRanUnderTheLock;

    @AfterEach
    void callbacksRanOutsideTheLockAndTheInvariantsHold() {
        assertFalse(callbackRanUnderTheLock, "a callback ran while the CallSlots lock was held");
        if (slots != null) {
            slots.checkInvariants();
        }
    }

    // ---- each limit alone ----

    @Test
    void acquire_jobLimitAlone_boundsThatJobsAdmissionsOnly() {
        slots = slots(100);
        Ticket a = ticket(1, 7, 2, "h", 100);
        Ticket b = ticket(2, 7, 2, "h", 100);
        Ticket c = ticket(3, 7, 2, "h", 100);
        Ticket d = ticket(4, 7, 2, "h", 100);

        assertEquals(ADMITTED, acquire(a));
        assertEquals(ADMITTED, acquire(b));
        assertEquals(QUEUED, acquire(c));
        assertEquals(QUEUED, acquire(d));
        assertEquals(ADMITTED, acquire(ticket(5, 8, 2, "h", 100)), "another job is not held back");
        assertEquals(3, slots.inFlight());
        assertEquals(2, slots.waiting());

        release(a);
        assertEquals(List.of(c), admittedLater);
        release(b);
        assertEquals(List.of(c, d), admittedLater);
        assertEquals(3, slots.inFlight());
        assertEquals(0, slots.waiting());
    }

    @Test
    void callEnded_givesJobAndTargetSlotsBackAtOnce_theServerSlotOnlyOnRelease() {
        slots = slots(2);
        Ticket a = ticket(1, 7, 1, "h", 1);
        Ticket b = ticket(2, 7, 1, "h", 1);
        Ticket c = ticket(3, 8, 0, "other", 1);
        Ticket d = ticket(4, 9, 0, "third", 1);
        assertEquals(ADMITTED, acquire(a));
        assertEquals(QUEUED, acquire(b), "job 7 and host h are full");
        assertEquals(ADMITTED, acquire(c));
        assertEquals(QUEUED, acquire(d), "the server is full");

        slots.callEnded(a);
        slots.checkInvariants();
        assertEquals(List.of(), admittedLater, "b has its job and target slots but waits for the server");
        assertEquals(0, slots.inFlight("h"), "a's call is over: not in flight at its target");
        assertEquals(2, slots.inFlight(), "a keeps its server slot until its outcome is written");

        release(a);
        assertEquals(List.of(d), admittedLater, "the server queue's head was d, queued before b reached it");
        release(c);
        assertEquals(List.of(d, b), admittedLater);
        slots.callEnded(a); // after release: nothing
        release(b);
        release(d);
        assertEquals(0, slots.inFlight());
    }

    @Test
    void callEnded_beforeAdmissionOrTwice_doesNothing() {
        slots = slots(1);
        Ticket a = ticket(1, 7, 0, "h", 1);
        Ticket waiting = ticket(2, 7, 0, "h", 1);
        acquire(a);
        acquire(waiting);

        slots.callEnded(waiting);
        slots.callEnded(a);
        slots.callEnded(a);

        slots.checkInvariants();
        assertEquals(1, slots.inFlight());
        release(a);
        assertEquals(List.of(waiting), admittedLater);
    }

    @Test
    void acquire_targetLimitAlone_boundsThatTargetsAdmissionsOnly() {
        slots = slots(100);
        Ticket a = ticket(1, 1, 0, "h", 2);
        Ticket b = ticket(2, 2, 0, "h", 2);
        Ticket c = ticket(3, 3, 0, "h", 2);

        assertEquals(ADMITTED, acquire(a));
        assertEquals(ADMITTED, acquire(b));
        assertEquals(QUEUED, acquire(c));
        assertEquals(ADMITTED, acquire(ticket(4, 3, 0, "g", 2)), "another target is not held back");
        assertEquals(2, slots.inFlight("h"));
        assertEquals(1, slots.inFlight("g"));

        release(b);
        assertEquals(List.of(c), admittedLater);
        assertEquals(2, slots.inFlight("h"));
    }

    @Test
    void acquire_serverLimitAlone_boundsAllAdmissions() {
        slots = slots(2);
        Ticket a = ticket(1, 1, 0, "h1", 10);
        Ticket b = ticket(2, 2, 0, "h2", 10);
        Ticket c = ticket(3, 3, 0, "h3", 10);

        assertEquals(ADMITTED, acquire(a));
        assertEquals(ADMITTED, acquire(b));
        assertEquals(QUEUED, acquire(c));
        assertEquals(2, slots.inFlight());
        assertEquals(0, slots.inFlight("h3"));

        release(a);
        assertEquals(List.of(c), admittedLater);
        assertEquals(1, slots.inFlight("h3"));
    }

    // ---- order ----

    @Test
    void release_waitersAtTheJobLevel_areAdmittedFirstInFirstOut() {
        assertFirstInFirstOut(slots(100), i -> ticket(i, 7, 1, "h" + i, 100));
    }

    @Test
    void release_waitersAtTheTargetLevel_areAdmittedFirstInFirstOut() {
        assertFirstInFirstOut(slots(100), i -> ticket(i, i, 0, "h", 1));
    }

    @Test
    void release_waitersAtTheServerLevel_areAdmittedFirstInFirstOut() {
        assertFirstInFirstOut(slots(1), i -> ticket(i, i, 0, "h" + i, 1));
    }

    private void assertFirstInFirstOut(CallSlots fresh, IntFunction<Ticket> ticketNumbered) {
        slots = fresh;
        Ticket holder = ticketNumbered.apply(0);
        assertEquals(ADMITTED, acquire(holder));
        List<Ticket> waiters = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            waiters.add(ticketNumbered.apply(i));
            assertEquals(QUEUED, acquire(waiters.get(i - 1)));
        }

        release(holder);
        for (int i = 0; i < waiters.size(); i++) {
            assertEquals(waiters.subList(0, i + 1), admittedLater);
            release(waiters.get(i));
        }
        assertEquals(0, slots.inFlight());
        assertEquals(0, slots.waiting());
    }

    // ---- SKIP ----

    @Test
    void acquire_skipPolicyAndTheJobFull_returnsSkippedAndTakesNothing() {
        slots = slots(10);
        Ticket a = skipping(1, 7, 1, "h", 5);
        Ticket b = skipping(2, 7, 1, "h", 5);

        assertEquals(ADMITTED, acquire(a));
        assertEquals(SKIPPED, acquire(b));
        assertEquals(1, slots.inFlight());
        assertEquals(1, slots.inFlight("h"));
        assertEquals(0, slots.waiting());

        release(a);
        assertEquals(List.of(), admittedLater, "a skipped ticket is never admitted");
        assertEquals(0, slots.inFlight());
        assertEquals(ADMITTED, acquire(skipping(3, 7, 1, "h", 5)), "the job has room again");
    }

    @Test
    void release_ticketSkippedOrNeverAcquired_holdsNothingAndLeavesNoEntry() {
        slots = slots(10);
        Ticket a = skipping(1, 7, 1, "h", 5);
        Ticket skipped = skipping(2, 7, 1, "h", 5);
        assertEquals(ADMITTED, acquire(a));
        assertEquals(SKIPPED, acquire(skipped));
        release(a);
        Ticket neverAcquired = ticket(3, 8, 2, "g", 5);

        release(skipped);
        release(neverAcquired);

        assertEquals(0, slots.trackedJobs());
        assertEquals(0, slots.trackedTargets());
        assertThrows(IllegalStateException.class, () -> slots.acquire(neverAcquired));
    }

    // ---- release of a waiting ticket (cancel), twice, acquire twice ----

    @Test
    void release_ticketWaitingForTheServer_leavesItsQueueAndGivesBackItsJobAndTargetSlots() {
        slots = slots(1);
        Ticket blocker = ticket(1, 100, 0, "other", 10);
        Ticket b = ticket(2, 7, 1, "h", 1); // will wait for the server, holding job 7's and h's slots
        Ticket c = ticket(3, 7, 1, "h", 1); // will wait for job 7
        Ticket d = ticket(4, 8, 0, "h", 1); // will wait for target h
        assertEquals(ADMITTED, acquire(blocker));
        assertEquals(QUEUED, acquire(b));
        assertEquals(QUEUED, acquire(c));
        assertEquals(QUEUED, acquire(d));
        assertEquals(3, slots.waiting());

        release(b);

        // h's slot went to d (now waiting for the server), job 7's to c (now waiting for h).
        assertEquals(2, slots.waiting());
        assertEquals(List.of(), admittedLater);
        release(blocker);
        assertEquals(List.of(d), admittedLater);
        release(d);
        assertEquals(List.of(d, c), admittedLater, "b was cancelled and must never be admitted");
        release(c);
        assertEquals(0, slots.inFlight());
        assertEquals(0, slots.waiting());
        assertEquals(0, slots.trackedJobs());
        assertEquals(0, slots.trackedTargets());
    }

    @Test
    void release_ticketWaitingForItsJob_leavesTheQueueAndTheNextWaiterTakesItsTurn() {
        slots = slots(10);
        Ticket a = ticket(1, 7, 1, "h", 5);
        Ticket b = ticket(2, 7, 1, "h", 5);
        Ticket c = ticket(3, 7, 1, "h", 5);
        acquireAll(a, b, c);

        release(b);
        assertEquals(1, slots.waiting());
        release(a);

        assertEquals(List.of(c), admittedLater);
        assertEquals(0, slots.waiting());
    }

    @Test
    void release_twice_theSecondIsANoOp() {
        slots = slots(10);
        Ticket a = ticket(1, 1, 0, "h", 1);
        Ticket b = ticket(2, 2, 0, "h", 1);
        Ticket c = ticket(3, 3, 0, "h", 1);
        acquireAll(a, b, c);

        release(a);
        release(a);

        assertEquals(List.of(b), admittedLater, "the second release must not free another slot");
        assertEquals(1, slots.inFlight());
        assertEquals(1, slots.waiting());
    }

    @Test
    void acquire_twiceOnATicketAdmittedOrWaitingForTheServer_throws() {
        slots = slots(1);
        Ticket admitted = ticket(1, 1, 0, "h", 5);
        Ticket waitingForServer = ticket(2, 2, 0, "g", 5);
        acquireAll(admitted, waitingForServer);

        assertThrows(IllegalStateException.class, () -> slots.acquire(admitted));
        assertThrows(IllegalStateException.class, () -> slots.acquire(waitingForServer));
        assertEquals(1, slots.inFlight());
        assertEquals(1, slots.waiting());
    }

    @Test
    void acquire_twiceOnATicketWaitingForItsJobOrSkipped_throws() {
        slots = slots(10);
        Ticket admitted = ticket(1, 7, 1, "h", 5);
        Ticket waitingForJob = ticket(2, 7, 1, "h", 5);
        Ticket skipped = skipping(3, 7, 1, "h", 5);
        acquire(admitted);
        assertEquals(QUEUED, acquire(waitingForJob));
        assertEquals(SKIPPED, acquire(skipped));

        assertThrows(IllegalStateException.class, () -> slots.acquire(waitingForJob));
        assertThrows(IllegalStateException.class, () -> slots.acquire(skipped));
        slots.checkInvariants();
        assertEquals(1, slots.waiting(), "a second acquire must not queue the ticket twice");
    }

    // ---- entries are forgotten when idle ----

    @Test
    void release_lastTicketsOfAJobAndATarget_forgetsBothEntries() {
        slots = slots(10);
        Ticket a = ticket(1, 7, 1, "h", 5);
        Ticket b = ticket(2, 7, 1, "h", 5);
        acquireAll(a, b);
        assertEquals(1, slots.trackedJobs());
        assertEquals(1, slots.trackedTargets());

        release(b);
        assertEquals(1, slots.trackedJobs(), "a's slots are still taken");
        release(a);

        assertEquals(0, slots.trackedJobs());
        assertEquals(0, slots.trackedTargets());
    }

    @Test
    void release_ticketWaitingForItsJobWithATargetNobodyUses_leavesNoTargetEntry() {
        slots = slots(10);
        Ticket a = ticket(1, 7, 1, "h", 5);
        Ticket b = ticket(2, 7, 1, "g", 5); // the job's target changed: g is used by no one else
        acquire(a);
        assertEquals(QUEUED, acquire(b));

        release(b);
        release(a);

        assertEquals(0, slots.trackedJobs());
        assertEquals(0, slots.trackedTargets());
    }

    @Test
    void drainWaiting_returnsEveryWaiterAndGivesBackTheSlotsTheyHeld() {
        slots = slots(1);
        Ticket blocker = ticket(1, 100, 0, "other", 10);
        Ticket b = ticket(2, 7, 1, "h", 1);
        Ticket c = ticket(3, 7, 1, "h", 1);
        Ticket d = ticket(4, 8, 0, "h", 1);
        acquireAll(blocker, b, c, d);

        List<Ticket> drained = slots.drainWaiting();

        assertEquals(Set.of(b, c, d), new HashSet<>(drained));
        assertEquals(3, drained.size());
        assertEquals(0, slots.waiting());
        assertEquals(1, slots.inFlight());
        release(blocker);
        assertEquals(List.of(), admittedLater);
        // b had taken job 7's and h's only slots: they are free again.
        assertEquals(ADMITTED, acquire(ticket(5, 7, 1, "h", 1)));
        release(b); // a no-op: drained tickets are released
        assertEquals(1, slots.inFlight());
    }

    // ---- one slow target cannot hold back another ----

    @Test
    void acquire_slowTargetFullWithALongQueue_neverDelaysAnotherTargetWhileTheServerHasRoom() {
        slots = slots(10);
        for (int i = 0; i < 3; i++) {
            assertEquals(ADMITTED, acquire(ticket(i, i, 0, "slow", 3))); // calls that never end
        }
        for (int i = 3; i < 1_003; i++) {
            assertEquals(QUEUED, acquire(ticket(i, i % 10, i % 2 == 0 ? 0 : 5, "slow", 3)));
        }
        ArrayDeque<Ticket> fastCalls = new ArrayDeque<>();

        for (int i = 0; i < 1_000; i++) {
            Ticket fast = ticket(10_000 + i, 99, 0, "fast", 7);
            assertEquals(ADMITTED, acquire(fast), "fast ticket " + i + " was held back");
            fastCalls.add(fast);
            if (fastCalls.size() == 7) {
                release(fastCalls.poll());
            }
        }

        assertEquals(List.of(), admittedLater, "no slow waiter got in");
        assertEquals(3, slots.inFlight("slow"));
        assertEquals(1_000, slots.waiting());
    }

    /**
     * Server limit 4 is the bottleneck; the slow target's calls take long (they end in turn with the others) and 100
     * of its tickets wait. A fast ticket that reaches the server queue finds ahead of it at most the slow target's
     * limit (2) of slow tickets, because those hold the slow target's slots: so at most 2 slow calls start while any
     * fast ticket waits, however long the slow target's own queue.
     */
    @Test
    void release_serverIsTheBottleneck_aSlowTargetsShareOfTheServerQueueIsBoundedByItsLimit() {
        slots = slots(4);
        int slowLimit = 2;
        ArrayDeque<Ticket> inFlight = new ArrayDeque<>();
        int[] slowAdmissions = {0};
        Map<Ticket, Integer> slowAdmissionsAtArrival = new HashMap<>();
        List<Integer> slowAdmissionsWhileWaiting = new ArrayList<>();
        IntFunction<Ticket> slowTicket = i -> new Ticket(i, 1, 5, 0, false, null, "slow", slowLimit, t -> {
            slowAdmissions[0]++;
            inFlight.add(t);
        });
        IntFunction<Ticket> fastTicket = i -> new Ticket(i, 2, 5, 0, false, null, "fast", 100, t -> {
            slowAdmissionsWhileWaiting.add(slowAdmissions[0] - slowAdmissionsAtArrival.get(t));
            inFlight.add(t);
        });
        for (int i = 0; i < 2; i++) {
            Ticket slow = slowTicket.apply(i);
            assertEquals(ADMITTED, acquire(slow));
            inFlight.add(slow);
            Ticket fast = fastTicket.apply(100 + i);
            assertEquals(ADMITTED, acquire(fast));
            inFlight.add(fast);
        }
        for (int i = 2; i < 102; i++) {
            assertEquals(QUEUED, acquire(slowTicket.apply(i)));
        }

        // Each step a fast ticket arrives and the oldest call in flight ends.
        for (int step = 0; step < 400; step++) {
            Ticket fast = fastTicket.apply(1_000 + step);
            slowAdmissionsAtArrival.put(fast, slowAdmissions[0]);
            assertEquals(QUEUED, acquire(fast));
            release(inFlight.poll());
        }

        assertTrue(slowAdmissions[0] > 10, "the slow target gets its turns too: " + slowAdmissions[0]);
        assertTrue(slowAdmissionsWhileWaiting.size() > 300);
        int worst = slowAdmissionsWhileWaiting.stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(worst <= slowLimit, "a fast ticket waited behind " + worst + " slow calls");
    }

    // ---- limits that change between tickets of a job or target ----

    @Test
    void acquire_jobLimitRaised_admitsTheWaitersAtOnceInOrder() {
        slots = slots(100);
        Ticket a = ticket(1, 7, 1, "h", 100);
        Ticket b = ticket(2, 7, 1, "h", 100);
        Ticket c = ticket(3, 7, 1, "h", 100);
        acquireAll(a, b, c);

        Admission d = acquire(ticket(4, 7, 3, "h", 100));

        assertEquals(List.of(b, c), admittedLater);
        assertEquals(QUEUED, d, "a, b and c fill the new limit of 3");
        assertEquals(3, slots.inFlight());
    }

    @Test
    void release_jobLimitLowered_admitsNoWaiterUntilTheJobIsBelowTheNewLimit() {
        slots = slots(100);
        Ticket a = ticket(1, 7, 3, "h", 100);
        Ticket b = ticket(2, 7, 3, "h", 100);
        Ticket c = ticket(3, 7, 3, "h", 100);
        Ticket d = ticket(4, 7, 3, "h", 100);
        acquireAll(a, b, c);
        assertEquals(QUEUED, acquire(d));
        assertEquals(QUEUED, acquire(ticket(5, 7, 1, "h", 100)), "the limit is now 1");

        release(a);
        release(b);
        assertEquals(List.of(), admittedLater, "c alone already fills the new limit");
        release(c);

        assertEquals(List.of(d), admittedLater);
        assertEquals(1, slots.inFlight());
    }

    @Test
    void acquire_targetLimitRaised_admitsTheWaitersAtOnceInOrder() {
        slots = slots(100);
        Ticket a = ticket(1, 1, 0, "h", 1);
        Ticket b = ticket(2, 2, 0, "h", 1);
        Ticket c = ticket(3, 3, 0, "h", 1);
        acquireAll(a, b, c);

        Admission d = acquire(ticket(4, 4, 0, "h", 4));

        assertEquals(List.of(b, c), admittedLater);
        assertEquals(ADMITTED, d);
        assertEquals(4, slots.inFlight("h"));
    }

    @Test
    void release_targetLimitLowered_admitsNoWaiterUntilTheTargetIsBelowTheNewLimit() {
        slots = slots(100);
        Ticket a = ticket(1, 1, 0, "h", 2);
        Ticket b = ticket(2, 2, 0, "h", 2);
        Ticket c = ticket(3, 3, 0, "h", 2);
        acquireAll(a, b);
        assertEquals(QUEUED, acquire(c));
        assertEquals(QUEUED, acquire(ticket(4, 4, 0, "h", 1)));

        release(a);
        assertEquals(List.of(), admittedLater);
        release(b);

        assertEquals(List.of(c), admittedLater);
        assertEquals(1, slots.inFlight("h"));
    }

    @Test
    void acquire_jobLimitDroppedToNone_newTicketsPassTheJobWhileItsOldTicketsStillWait() {
        slots = slots(100);
        Ticket a = ticket(1, 7, 1, "h", 100);
        Ticket b = ticket(2, 7, 1, "h", 100);
        acquire(a);
        assertEquals(QUEUED, acquire(b));

        assertEquals(ADMITTED, acquire(ticket(3, 7, 0, "h", 100)));

        assertEquals(1, slots.waiting(), "b keeps the limit it was made with");
        release(a);
        assertEquals(List.of(b), admittedLater);
    }

    // ---- callbacks, counts, complexity, validation ----

    @Test
    void release_aCallbackThrows_theOtherTicketsThatReleaseAdmitsStillGetTheirs() {
        slots = slots(10);
        Ticket a = ticket(1, 7, 1, "h", 1);
        Ticket c = ticket(3, 7, 1, "g", 1); // waits for job 7; g is free
        Ticket d = new Ticket(4, 8, 5, 0, false, null, "h", 1, t -> {
            admittedLater.add(t);
            throw new IllegalStateException("callback failed");
        }); // waits for target h
        acquireAll(a, c, d);

        assertDoesNotThrow(() -> slots.release(a));

        assertEquals(List.of(d, c), admittedLater);
        assertEquals(2, slots.inFlight());
    }

    @Test
    void inFlightOfATarget_countsItsCallsNotItsTicketsWaitingForTheServer() {
        slots = slots(1);
        Ticket a = ticket(1, 1, 0, "h", 5);
        Ticket b = ticket(2, 2, 0, "h", 5);
        acquire(a);
        assertEquals(QUEUED, acquire(b));

        assertEquals(1, slots.inFlight("h"));
        assertEquals(0, slots.inFlight("unknown"));
        release(a);
        assertEquals(1, slots.inFlight("h"));
    }

    /**
     * A waiting ticket leaves its queue in O(1): 300 000 waiters released newest first (the worst order for a queue
     * scanned from its head, about 4.5 * 10^10 steps there) take well under the bound.
     */
    @Test
    void release_300000WaitersNewestFirst_eachLeavesItsQueueInConstantTime() {
        slots = slots(1);
        acquire(ticket(0, 0, 0, "h", Integer.MAX_VALUE));
        int waiters = 300_000;
        Ticket[] tickets = new Ticket[waiters];
        for (int i = 0; i < waiters; i++) {
            tickets[i] = ticket(i + 1, i + 1, 0, "h", Integer.MAX_VALUE);
            assertEquals(QUEUED, slots.acquire(tickets[i]));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);

        for (int i = waiters - 1; i >= 0; i--) {
            slots.release(tickets[i]);
            if (i % 1_024 == 0 && System.nanoTime() - deadline > 0) {
                fail("releasing " + waiters + " waiting tickets took over 10 s, " + i + " still to go: not O(1)");
            }
        }

        assertEquals(0, slots.waiting());
        assertEquals(List.of(), admittedLater);
    }

    @Test
    void constructors_badLimits_throwNamingTheValue() {
        IllegalArgumentException server = assertThrows(IllegalArgumentException.class,
                () -> new CallSlots(0, 1, System::nanoTime, (delay, task) -> { }));
        assertTrue(server.getMessage().contains("0"), server.getMessage());
        IllegalArgumentException job = assertThrows(IllegalArgumentException.class,
                () -> ticket(1, 1, -1, "h", 1));
        assertTrue(job.getMessage().contains("-1"), job.getMessage());
        IllegalArgumentException target = assertThrows(IllegalArgumentException.class,
                () -> ticket(1, 1, 0, "h", 0));
        assertTrue(target.getMessage().contains("target 0"), target.getMessage());
    }

    // ---- helpers ----

    /**
     * Slots of the real ticker and a one-second ageing step, which no test here waits out, so queues are first in,
     * first out among equal priorities; no pool here has a rate, so a wake-up is a bug.
     */
    static CallSlots slots(int serverLimit) {
        return new CallSlots(serverLimit, TimeUnit.SECONDS.toNanos(1), System::nanoTime, (delay, task) -> {
            throw new AssertionError("a wake-up without a pool rate");
        });
    }

    private Ticket ticket(long instanceId, long jobId, int jobLimit, String target, int targetLimit) {
        return new Ticket(instanceId, jobId, 5, jobLimit, false, null, target, targetLimit, this::admittedLater);
    }

    private Ticket skipping(long instanceId, long jobId, int jobLimit, String target, int targetLimit) {
        return new Ticket(instanceId, jobId, 5, jobLimit, true, null, target, targetLimit, this::admittedLater);
    }

    private void admittedLater(Ticket ticket) {
        callbackRanUnderTheLock |= Thread.holdsLock(slots);
        admittedLater.add(ticket);
    }

    private void acquireAll(Ticket... tickets) {
        for (Ticket ticket : tickets) {
            acquire(ticket);
        }
    }

    private Admission acquire(Ticket ticket) {
        Admission admission = slots.acquire(ticket);
        slots.checkInvariants();
        return admission;
    }

    private void release(Ticket ticket) {
        slots.release(ticket);
        slots.checkInvariants();
    }
}
