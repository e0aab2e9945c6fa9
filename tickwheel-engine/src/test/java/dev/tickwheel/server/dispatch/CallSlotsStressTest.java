package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.dispatch.CallSlots.Ticket;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link CallSlots} under the dispatcher's threading: 8 threads fire 320 000 tickets of random priorities over 6 jobs
 * (three of them in 2 pools) and 4 targets with random limits (one job skips over-limit instances); every admitted
 * ticket is handed to one of 4 other threads that
 * end its call and release it (as the HTTP client's I/O threads do); one ticket in 10 that has to wait is cancelled by
 * its firing thread, racing its admission. Checked continuously: independent per-job, per-pool, per-target and server
 * counters,
 * incremented when a ticket is admitted and decremented before it is released, never exceed their limits, and a
 * monitor thread runs {@link CallSlots#checkInvariants()}. Checked at the end: every ticket that was neither cancelled
 * nor skipped was admitted exactly once, a cancelled one at most once, nothing is in flight, waiting or remembered. A
 * run that does not settle within the bound fails as a deadlock or a lost wake-up. The seed is printed; rerun one with
 * {@code -Dtickwheel.seed=<seed>} (the limits and choices repeat; the thread interleaving does not).
 *
 * <h2>Why the design is safe</h2>
 *
 * <ol>
 *   <li><b>Bounds.</b> Every count and queue changes under the one monitor, so each acquire and release is atomic.
 *       A slot is taken only by {@code used++} on a level that is below its limit (in {@code advance}, or when a
 *       release hands its own freed slot to the head of that level's queue, which leaves {@code used} unchanged).
 *       With limits fixed, {@code used <= limit} at every level at every moment; the counters here can only lag the
 *       real holders (they rise after admission and fall before release), so they are bounded too.</li>
 *   <li><b>No lost wake-up.</b> A level's queue is non-empty only while the level is full: a ticket queues only when
 *       the level is full or others already queue, and a release that frees a slot of a level with waiters hands it
 *       to the head at once, as does a raised limit. So every waiter has holders ahead of it whose release hands it a
 *       slot.</li>
 *   <li><b>No deadlock.</b> Every ticket takes its levels in one order, job, pool, target, then server, and a
 *       waiting ticket holds only levels below the one it waits for. Server slots are held only by admitted calls,
 *       which end without needing another slot; so server waiters progress, hence target waiters (whose holders are
 *       admitted or server waiters), hence pool waiters, hence job waiters: the resource-ordering argument (Havender,
 *       1968). Priorities change only which waiter of a queue a freed slot goes to, never whether it goes to one. Callbacks run after
 *       the monitor is let go, so a callback that calls back into CallSlots or takes other locks (the claim batcher's
 *       queue) cannot form a cycle with it.</li>
 *   <li><b>Exactly once.</b> A ticket is admitted by the one acquire or hand-over that gives it its last slot, under
 *       the monitor, and is in no queue from then on; release is idempotent and takes a waiting ticket out of its
 *       queue under the same monitor, so a cancel and an admission that race are ordered: either the ticket is
 *       admitted first (its callback runs, and the cancel then gives its slots back) or it is removed first (and is
 *       never admitted).</li>
 * </ol>
 */
class CallSlotsStressTest {

    private static final int FIRERS = 8;
    private static final int COMPLETERS = 4;
    private static final int TICKETS_PER_FIRER = 40_000;
    private static final int JOBS = 6;
    private static final int TARGETS = 4;
    private static final int POOLS = 2;
    /** The pool of each job, -1 for none: jobs 3 and 5 share pool 1, job 4 has pool 0. */
    private static final int[] POOL_OF_JOB = {-1, -1, -1, 1, 0, 1};
    /** How long a run may take to settle before it counts as a deadlock; a passing run takes about a second. */
    private static final long BOUND_SECONDS = 60;

    private static final int WAITING = 0;
    private static final int ADMITTED = 1;
    private static final int CANCELLED = 2;
    private static final int SKIPPED = 3;
    private static final int DONE = 4;

    @Test
    void acquireAndRelease_8FirersAnd4CompletersWithCancels_limitsHoldAndEveryTicketSettlesOnce() throws Exception {
        new Run(seed("fixed limits"), false).go();
    }

    /**
     * Every ticket carries one of two limits for its job and for its target, so the limits change all the time: a
     * count may then reach the larger of the two, never more, and every ticket still settles.
     */
    @Test
    void acquireAndRelease_limitsChangingBetweenTicketsOfAJob_noCountPassesTheLargestAndEveryTicketSettles()
            throws Exception {
        new Run(seed("changing limits"), true).go();
    }

    private static long seed(String what) {
        long seed = Long.getLong("tickwheel.seed", new Random().nextLong());
        System.out.println("CallSlotsStressTest (" + what + ") seed " + seed + "; rerun with -Dtickwheel.seed=" + seed);
        return seed;
    }

    /** One ticket and what happened to it. */
    private static final class Call {
        final int id;
        final int job;
        final int target;
        /** WAITING until admitted, cancelled or skipped; the admission callback and a cancel race for it. */
        final AtomicInteger state = new AtomicInteger(WAITING);
        Ticket ticket;

        Call(int id, int job, int target) {
            this.id = id;
            this.job = job;
            this.target = target;
        }
    }

    private static final class Run {
        private final long seed;
        private final boolean changingLimits;
        private final int serverLimit;
        /** Per job and target: the one or two limits its tickets carry; 0 for a job without a limit. */
        private final int[][] jobLimits = new int[JOBS][];
        private final int[][] targetLimits = new int[TARGETS][];
        private final int[][] poolLimits = new int[POOLS][];
        private final boolean[] skips = new boolean[JOBS];
        private final CallSlots slots;
        private final int tickets = FIRERS * TICKETS_PER_FIRER;
        private final Call[] calls = new Call[tickets];
        private final AtomicIntegerArray admissions = new AtomicIntegerArray(tickets);
        private final AtomicInteger serverCalls = new AtomicInteger();
        private final AtomicIntegerArray jobCalls = new AtomicIntegerArray(JOBS);
        private final AtomicIntegerArray targetCalls = new AtomicIntegerArray(TARGETS);
        private final AtomicIntegerArray poolCalls = new AtomicIntegerArray(POOLS);
        private final AtomicInteger highestServerCalls = new AtomicInteger();
        private final LinkedBlockingQueue<Call> ending = new LinkedBlockingQueue<>();
        private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        private final CountDownLatch settled = new CountDownLatch(tickets);
        private final AtomicLong queued = new AtomicLong();
        private final AtomicLong cancelled = new AtomicLong();
        private final AtomicLong skipped = new AtomicLong();
        private final AtomicLong admittedAfterCancel = new AtomicLong();
        private volatile boolean stopMonitor;

        Run(long seed, boolean changingLimits) {
            this.seed = seed;
            this.changingLimits = changingLimits;
            Random random = new Random(seed);
            serverLimit = 4 + random.nextInt(29);
            for (int j = 0; j < JOBS; j++) {
                int limit = j % 3 == 0 ? 0 : 1 + random.nextInt(8); // a third of the jobs have no limit
                jobLimits[j] = limit == 0 ? new int[] {0} : limitsAround(limit, random);
                skips[j] = j == 1; // job 1 has a limit and skips over-limit instances
            }
            for (int t = 0; t < TARGETS; t++) {
                targetLimits[t] = limitsAround(1 + random.nextInt(16), random);
            }
            for (int p = 0; p < POOLS; p++) {
                poolLimits[p] = limitsAround(1 + random.nextInt(6), random);
            }
            slots = CallSlotsTest.slots(serverLimit);
        }

        private int[] limitsAround(int limit, Random random) {
            return changingLimits ? new int[] {limit, 1 + random.nextInt(2 * limit)} : new int[] {limit};
        }

        private String describe() {
            return "seed " + seed + ", server limit " + serverLimit + ", job limits "
                    + Arrays.deepToString(jobLimits) + ", pool limits " + Arrays.deepToString(poolLimits)
                + ", target limits " + Arrays.deepToString(targetLimits);
        }

        void go() throws Exception {
            System.out.println("  " + describe());
            long startNanos = System.nanoTime();
            List<Thread> completers = new ArrayList<>();
            for (int c = 0; c < COMPLETERS; c++) {
                completers.add(start("tickwheel-test-io-" + c, this::endCalls));
            }
            Thread monitor = start("tickwheel-test-monitor", this::monitor);
            CyclicBarrier together = new CyclicBarrier(FIRERS);
            List<CompletableFuture<Void>> firers = new ArrayList<>();
            for (int f = 0; f < FIRERS; f++) {
                int firer = f;
                CompletableFuture<Void> done = new CompletableFuture<>();
                firers.add(done);
                start("tickwheel-test-fire-" + f, () -> {
                    try {
                        together.await(BOUND_SECONDS, TimeUnit.SECONDS);
                        fire(firer);
                        done.complete(null);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                    }
                });
            }
            try {
                CompletableFuture.allOf(firers.toArray(CompletableFuture[]::new)).get(BOUND_SECONDS, TimeUnit.SECONDS);
                if (!settled.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
                    fail("deadlock or lost wake-up: " + settled.getCount() + " of " + tickets + " tickets never"
                            + " settled; in flight " + slots.inFlight() + ", waiting " + slots.waiting() + "; "
                            + describe());
                }
            } finally {
                stopMonitor = true;
                for (int c = 0; c < COMPLETERS; c++) {
                    ending.add(new Call(-1, -1, -1)); // one end-of-run marker per completer
                }
                for (Thread thread : completers) {
                    thread.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                }
                monitor.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            System.out.println("  " + tickets + " tickets in " + elapsedMs + " ms: queued " + queued + ", cancelled "
                    + cancelled + " (" + admittedAfterCancel + " of them admitted as they were cancelled), skipped "
                    + skipped + ", most calls at once " + highestServerCalls + " of " + serverLimit);

            assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: " + violations.peek()
                    + "; " + describe());
            for (Call call : calls) {
                int times = admissions.get(call.id);
                switch (call.state.get()) {
                    case DONE -> assertEquals(1, times, () -> "ticket " + call.id + " admitted " + times + " times; "
                            + describe());
                    case CANCELLED -> assertTrue(times <= 1, () -> "cancelled ticket " + call.id + " admitted "
                            + times + " times; " + describe());
                    case SKIPPED -> assertEquals(0, times, () -> "skipped ticket " + call.id + " admitted; "
                            + describe());
                    default -> fail("ticket " + call.id + " never settled: state " + call.state.get() + "; "
                            + describe());
                }
            }
            assertEquals(0, slots.inFlight(), this::describe);
            assertEquals(0, slots.waiting(), this::describe);
            assertEquals(0, slots.trackedJobs(), this::describe);
            assertEquals(0, slots.trackedTargets(), this::describe);
            for (int p = 0; p < POOLS; p++) {
                assertEquals(new CallSlots.PoolUsage(0, 0), slots.poolUsage("pool-" + p), this::describe);
            }
            slots.checkInvariants();
            // The run exercised what it claims to: tickets had to wait, and some were cancelled while waiting.
            assertTrue(queued.get() > 1_000, () -> "only " + queued + " tickets waited; " + describe());
            assertTrue(cancelled.get() > 100, () -> "only " + cancelled + " tickets cancelled; " + describe());
        }

        private void fire(int firer) {
            Random random = new Random(seed * 31 + firer);
            ArrayDeque<Call> cancelLater = new ArrayDeque<>();
            for (int i = 0; i < TICKETS_PER_FIRER; i++) {
                int id = firer * TICKETS_PER_FIRER + i;
                int job = random.nextInt(JOBS);
                int target = random.nextInt(TARGETS);
                Call call = new Call(id, job, target);
                int jobLimit = pick(jobLimits[job], random);
                int pool = POOL_OF_JOB[job];
                CallSlots.PoolLimits poolLimit = pool < 0 ? null
                        : new CallSlots.PoolLimits("pool-" + pool, pick(poolLimits[pool], random), 0);
                call.ticket = new Ticket(id, job, random.nextInt(10), jobLimit, skips[job], poolLimit,
                        "target-" + target, pick(targetLimits[target], random), ticket -> admitted(call));
                calls[id] = call;
                switch (slots.acquire(call.ticket)) {
                    case ADMITTED -> admitted(call);
                    case QUEUED -> {
                        queued.incrementAndGet();
                        if (random.nextInt(10) == 0) {
                            cancelLater.add(call);
                        }
                    }
                    case SKIPPED -> {
                        if (!call.state.compareAndSet(WAITING, SKIPPED)) {
                            violations.add("skipped ticket " + id + " was admitted");
                        }
                        skipped.incrementAndGet();
                        settled.countDown();
                    }
                }
                if (cancelLater.size() > random.nextInt(8)) {
                    cancel(cancelLater.poll());
                }
            }
            cancelLater.forEach(this::cancel);
        }

        private static int pick(int[] limits, Random random) {
            return limits[random.nextInt(limits.length)];
        }

        /** The callback, or the firer itself on ADMITTED: count the call and hand it to an I/O thread. */
        private void admitted(Call call) {
            if (admissions.incrementAndGet(call.id) > 1) {
                violations.add("ticket " + call.id + " admitted twice");
            }
            if (!call.state.compareAndSet(WAITING, ADMITTED)) {
                // Cancelled while it was being admitted: the canceller's release gives its slots back.
                admittedAfterCancel.incrementAndGet();
                return;
            }
            int server = serverCalls.incrementAndGet();
            highestServerCalls.accumulateAndGet(server, Math::max);
            check("server", server, serverLimit);
            check("target " + call.target, targetCalls.incrementAndGet(call.target), max(targetLimits[call.target]));
            if (jobLimits[call.job][0] > 0) {
                check("job " + call.job, jobCalls.incrementAndGet(call.job), max(jobLimits[call.job]));
            }
            int pool = POOL_OF_JOB[call.job];
            if (pool >= 0) {
                check("pool " + pool, poolCalls.incrementAndGet(pool), max(poolLimits[pool]));
            }
            ending.add(call);
        }

        private void check(String what, int calls, int limit) {
            if (calls > limit) {
                violations.add(what + ": " + calls + " calls in flight, limit " + limit);
            }
        }

        private static int max(int[] limits) {
            return Arrays.stream(limits).max().orElseThrow();
        }

        /** A firing thread gives up on a ticket still waiting for its slots (the instance was cancelled). */
        private void cancel(Call call) {
            if (call.state.compareAndSet(WAITING, CANCELLED)) {
                slots.release(call.ticket);
                cancelled.incrementAndGet();
                settled.countDown();
            } // else it was admitted meanwhile: its call ends and is released like any other
        }

        /** An I/O thread: each call ends, its counts drop, then its ticket is released. */
        private void endCalls() {
            while (true) {
                Call call;
                try {
                    call = ending.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (call.id < 0) {
                    return;
                }
                targetCalls.decrementAndGet(call.target);
                if (jobLimits[call.job][0] > 0) {
                    jobCalls.decrementAndGet(call.job);
                }
                if (POOL_OF_JOB[call.job] >= 0) {
                    poolCalls.decrementAndGet(POOL_OF_JOB[call.job]);
                }
                if ((call.id & 1) == 0) {
                    // Half the calls end in two steps, as the dispatcher's do: job and target slots back when the
                    // call ends, the server slot once the outcome is written.
                    slots.callEnded(call.ticket);
                }
                serverCalls.decrementAndGet();
                call.state.set(DONE);
                slots.release(call.ticket);
                settled.countDown();
            }
        }

        /** Checks the public counts and the internal invariants while the run goes on. */
        private void monitor() {
            while (!stopMonitor) {
                try {
                    slots.checkInvariants();
                } catch (IllegalStateException e) {
                    violations.add("invariant: " + e.getMessage());
                }
                check("server (CallSlots.inFlight)", slots.inFlight(), serverLimit);
                for (int t = 0; t < TARGETS; t++) {
                    check("target " + t + " (CallSlots.inFlight)", slots.inFlight("target-" + t),
                            max(targetLimits[t]));
                }
                LockSupport.parkNanos(200_000); // pacing only: leave the lock to the threads under test
            }
        }

        private static Thread start(String name, Runnable body) {
            Thread thread = new Thread(body, name);
            thread.setDaemon(true); // a deadlocked run must not keep the test JVM alive
            thread.start();
            return thread;
        }
    }
}
