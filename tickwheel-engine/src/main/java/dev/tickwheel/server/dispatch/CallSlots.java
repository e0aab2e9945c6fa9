package dev.tickwheel.server.dispatch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bulkheads in front of every call: a call may start only while it holds a slot of its job (when the job limits
 * its concurrency), of its pool (when the job names one), of its target (a webhook's host and port, or the in-process
 * handler pool) and of the server as a whole. An instance asks for its slots when its timer fires, and is claimed in
 * the store only once it holds all of them; so the instances DISPATCHING in the store are the calls in flight, never
 * a queue of claimed work.
 *
 * <h2>How it works</h2>
 *
 * <p>The four limits are four levels of asynchronous semaphores, taken in the order job, pool, target, server. A
 * request takes a slot at each level while there is one and waits in that level's queue (no thread waits) when there
 * is none. It keeps the slots it already has while it waits for the next: a request waiting for a server slot holds
 * its target's slot. {@link #release} gives each slot back and hands each one to the first of that level's queue
 * (unless a lowered limit still leaves the level full), which then goes on to its next level; a request that holds
 * every slot is admitted and its callback runs (on the releasing thread, after the lock is let go). A call may also
 * end in two steps: {@link #callEnded} gives back the job, pool and target slots as soon as the call is over, and
 * {@link #release} the server slot once its outcome is written; so job, pool and target limits count calls, and the
 * server limit counts calls and the outcomes still to be written (the rows a crash would leave DISPATCHING).
 *
 * <p>A pool may also have a rate: its slot is then taken at most once per {@code intervalNanos} (at most
 * {@code permits} per {@code perMs}, spread evenly, no burst). A request that finds the pool's concurrency free but its
 * next permit not yet due waits in the pool's queue, and a wake-up at the permit's time ({@link Wakeups}) hands the
 * slot to the first waiter. A pool's entry, and so its rate's memory, is kept while the server runs.
 *
 * <p>Order within a queue: by priority with ageing. A ticket queued at time {@code t} with priority {@code p} ranks
 * by {@code t - p * agingNanos}, lowest first, ties to the higher priority and then to the earlier ticket. So when
 * slots are short the highest priority goes first, then the oldest; and a ticket is passed by a higher one only if
 * that one arrived less than {@code agingNanos} per priority step after it: a priority-0 ticket waits at most
 * {@code 9 * agingNanos} longer than it would among equals, however steady a stream of priority-9 tickets comes. With
 * one priority the queues are first in, first out.
 *
 * <p>Why one slow target cannot hold back another: a target's calls and waiters together never hold more than its
 * target limit of target slots, so at most that many of the server queue's entries can be for one target; the
 * others' requests reach the server queue past it. A target whose calls stall fills its own queue, not the server's.
 * A job at its limit waits in its own queue (or is refused at once, when it skips such instances), and so does a pool.
 *
 * <pre>
 *   request ──► job J ──► pool P ──► target H ──► server ──► admitted (claim, then call)
 *               │ full    │ full or   │ full       │ full
 *               ▼         ▼ no permit ▼            ▼
 *           J's queue  P's queue   H's queue   server queue   (by priority with ageing; a release, or the pool's
 *                                                              wake-up, hands the freed slot to that queue's first)
 * </pre>
 *
 * <p>Each queue is one intrusive doubly linked list per priority through the tickets (a ticket waits in at most one
 * queue at a time), so a waiting ticket leaves it in O(1) when it is released, and the first of a queue is the best of
 * at most ten list heads. A job's or target's entry is forgotten as soon as it has neither slots taken nor waiters.
 *
 * <p>Complexity: O(1) per {@link #acquire} and per {@link #release}, a release of a waiting ticket included (a release
 * moves at most one waiter per level); an acquire that raises a limit also admits up to that many more waiters.
 *
 * <p>Thread-safe: guarded by this object's monitor; callbacks run outside it. A callback that throws is logged and
 * does not keep the other admitted tickets from theirs.
 *
 * <p>Caveats: a job's, pool's and target's limit is the one its latest request brought: raising it admits waiters at
 * once; lowering it cuts no call, and the level admits again once its calls drop below the new limit. A ticket queued
 * at its job keeps the job limit it was made with, so a job that drops its limit still has those tickets wait for a
 * slot of its job. A cancelled instance still waiting for a slot is admitted in its turn and then loses its claim,
 * unless the caller releases its ticket.
 */
public final class CallSlots {

    private static final Logger log = LoggerFactory.getLogger(CallSlots.class);

    /** Level indexes, in the order a ticket takes them; a ticket with {@code levels == ADMITTED} holds them all. */
    private static final int JOB = 0;
    private static final int POOL = 1;
    private static final int TARGET = 2;
    private static final int SERVER = 3;
    private static final int ADMITTED = 4;
    private static final int PRIORITIES = 10;
    /** The target named by {@link #adoptAccepted}'s tickets, which hold no target slot. */
    private static final String ADOPTED_TARGET = "(awaiting a callback)";

    /** What {@link #acquire} did with a request. */
    public enum Admission {
        /** The request holds its slots: start the call now. */
        ADMITTED,
        /** The request waits; its callback runs when it holds its slots. */
        QUEUED,
        /** The job or its pool is at its limit and the job skips over-limit instances: the request took nothing. */
        SKIPPED
    }

    /** Runs a task after a delay: the wake-ups of pools whose next permit is not due yet. */
    @FunctionalInterface
    public interface Wakeups {
        void schedule(long delayNanos, Runnable task);
    }

    /**
     * A pool's limits as one request brings them.
     *
     * @param name          the pool's name
     * @param maxConcurrent calls in flight of the pool at once, at most; 0 for no limit
     * @param intervalNanos least time between two of the pool's admissions; 0 for no rate
     */
    public record PoolLimits(String name, int maxConcurrent, long intervalNanos) {
        public PoolLimits {
            Objects.requireNonNull(name, "name");
            if (maxConcurrent < 0 || intervalNanos < 0 || (maxConcurrent == 0 && intervalNanos == 0)) {
                throw new IllegalArgumentException("pool " + name + ": maxConcurrent " + maxConcurrent
                        + " (0 = none), intervalNanos " + intervalNanos + " (0 = none), not both none");
            }
        }
    }

    /**
     * One call's claim on slots, from {@link #acquire} to {@link #release}.
     *
     * <p>Mutable, guarded by the owning {@link CallSlots}'s monitor; immutable fields may be read by anyone.
     */
    public static final class Ticket {
        private final long instanceId;
        private final long jobId;
        private final int priority;
        private final int jobLimit;
        private final boolean skipWhenFull;
        private final PoolLimits pool;
        private final String target;
        private final int targetLimit;
        private final Consumer<Ticket> onAdmitted;
        /** Levels taken so far, 0 to {@link #ADMITTED}. Guarded by the owner's monitor. */
        private int levels;
        /** Set by the first acquire, whatever its outcome; guarded by the owner's monitor. */
        private boolean acquired;
        /** Set once released; guarded by the owner's monitor. */
        private boolean released;
        /** Set when the call ended: job, pool and target slots given back, the server slot kept. Guarded likewise. */
        private boolean callEnded;
        /**
         * Set when the call was accepted for a later callback ({@link #callAccepted}) and until {@link #callbackEnded}:
         * the job's slot is still taken. Guarded likewise.
         */
        private boolean jobKept;
        /** The level whose queue this ticket waits in, null when it waits nowhere. Guarded by the owner's monitor. */
        private Level waitingIn;
        /** Its rank in {@link #waitingIn}'s queue: queued time minus priority times the ageing step. Guarded likewise. */
        private long rank;
        /** Neighbours in its priority's list of {@link #waitingIn} (toward its head, toward its tail). Guarded likewise. */
        private Ticket ahead;
        private Ticket behind;

        /**
         * @param priority     0..9, higher first when slots are short
         * @param jobLimit     the job's limit; 0 for none
         * @param skipWhenFull refuse rather than wait when the job or the pool is at its limit
         * @param pool         the pool's limits, or null for a job without a pool
         * @param target       the target's key (host:port, or the handler pool's name)
         * @param targetLimit  calls in flight to that target, at most
         * @param onAdmitted   runs when a queued request gets its slots
         */
        public Ticket(long instanceId, long jobId, int priority, int jobLimit, boolean skipWhenFull, PoolLimits pool,
                      String target, int targetLimit, Consumer<Ticket> onAdmitted) {
            if (jobLimit < 0 || targetLimit < 1) {
                throw new IllegalArgumentException("limits: job " + jobLimit + " (0 = none), target " + targetLimit);
            }
            if (priority < 0 || priority >= PRIORITIES) {
                throw new IllegalArgumentException("priority must be in 0.." + (PRIORITIES - 1) + ": " + priority);
            }
            this.instanceId = instanceId;
            this.jobId = jobId;
            this.priority = priority;
            this.jobLimit = jobLimit;
            this.skipWhenFull = skipWhenFull;
            this.pool = pool;
            this.target = Objects.requireNonNull(target, "target");
            this.targetLimit = targetLimit;
            this.onAdmitted = Objects.requireNonNull(onAdmitted, "onAdmitted");
        }

        public long instanceId() {
            return instanceId;
        }

        public long jobId() {
            return jobId;
        }

        public String target() {
            return target;
        }

        @Override
        public String toString() {
            return "Ticket[instance " + instanceId + ", job " + jobId + ", priority " + priority
                    + (pool == null ? "" : ", pool " + pool.name()) + ", target " + target + "]";
        }
    }

    /**
     * One semaphore with its queue of tickets: a FIFO list per priority, linked through the tickets themselves. A pool's
     * level may also have a rate. Guarded by the owner's monitor.
     */
    private static final class Level {
        int limit;
        int used;
        /** Target levels only: how many of its slot holders are admitted (the others wait for the server). */
        int admitted;
        int queued;
        final Ticket[] heads = new Ticket[PRIORITIES];
        final Ticket[] tails = new Ticket[PRIORITIES];
        /** Pool levels with a rate: the least time between two takes, and when the next take may be (ticker time). */
        long intervalNanos;
        long nextPermitNanos;
        /** Pool levels: a wake-up is scheduled for the next permit. */
        boolean wakeScheduled;

        Level(int limit) {
            this.limit = limit;
        }

        boolean hasWaiters() {
            return queued > 0;
        }

        boolean idle() {
            return used == 0 && queued == 0;
        }

        /** True if the level's rate lets a ticket take a slot at {@code now}. */
        boolean permits(long now) {
            return intervalNanos == 0 || now - nextPermitNanos >= 0;
        }

        void take(long now) {
            used++;
            if (intervalNanos > 0) {
                nextPermitNanos = (now - nextPermitNanos >= 0 ? now : nextPermitNanos) + intervalNanos;
            }
        }

        void enqueue(Ticket ticket, long rank) {
            ticket.waitingIn = this;
            ticket.rank = rank;
            int p = ticket.priority;
            ticket.ahead = tails[p];
            if (tails[p] == null) {
                heads[p] = ticket;
            } else {
                tails[p].behind = ticket;
            }
            tails[p] = ticket;
            queued++;
        }

        /** The ticket ranked first: the lowest rank among the lists' heads, ties to the higher priority. */
        Ticket first() {
            Ticket best = null;
            for (int p = PRIORITIES - 1; p >= 0; p--) {
                Ticket head = heads[p];
                if (head != null && (best == null || head.rank - best.rank < 0)) {
                    best = head;
                }
            }
            return best;
        }

        Ticket poll() {
            Ticket first = first();
            if (first != null) {
                remove(first);
            }
            return first;
        }

        void remove(Ticket ticket) {
            int p = ticket.priority;
            if (ticket.ahead == null) {
                heads[p] = ticket.behind;
            } else {
                ticket.ahead.behind = ticket.behind;
            }
            if (ticket.behind == null) {
                tails[p] = ticket.ahead;
            } else {
                ticket.behind.ahead = ticket.ahead;
            }
            ticket.waitingIn = null;
            ticket.ahead = null;
            ticket.behind = null;
            queued--;
        }
    }

    private final Level server;
    private final Map<Long, Level> jobs = new HashMap<>();
    private final Map<String, Level> pools = new HashMap<>();
    private final Map<String, Level> targets = new HashMap<>();
    private final long agingNanos;
    private final LongSupplier ticker;
    private final Wakeups wakeups;
    private int waitingCount;
    /** Tickets whose call ended and which hold only their server slot, until their outcome is written. */
    private int ended;

    /**
     * @param serverLimit calls in flight on this server, at most
     * @param agingNanos  how long a queued ticket waits to rank as one priority step higher; positive
     * @param ticker      monotonic nanoseconds ({@link System#nanoTime} outside tests)
     * @param wakeups     runs the wake-ups of pools with a rate
     */
    public CallSlots(int serverLimit, long agingNanos, LongSupplier ticker, Wakeups wakeups) {
        if (serverLimit < 1) {
            throw new IllegalArgumentException("serverLimit must be at least 1: " + serverLimit);
        }
        if (agingNanos < 1) {
            throw new IllegalArgumentException("agingNanos must be positive: " + agingNanos);
        }
        this.server = new Level(serverLimit);
        this.agingNanos = agingNanos;
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.wakeups = Objects.requireNonNull(wakeups, "wakeups");
    }

    /**
     * Asks for a ticket's slots. {@link Admission#ADMITTED}: the caller starts the call itself (the callback does not
     * run). {@link Admission#QUEUED}: the callback runs later, on whichever thread releases the last slot it needs.
     * A ticket that raises its job's, pool's or target's limit admits waiters: their callbacks run here, before this
     * returns.
     *
     * @throws IllegalStateException if the ticket was acquired or released before
     */
    public Admission acquire(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(0);
        Admission admission;
        synchronized (this) {
            if (ticket.acquired || ticket.released) {
                throw new IllegalStateException("a ticket is acquired once: " + ticket);
            }
            ticket.acquired = true;
            admission = take(ticket, ticker.getAsLong(), admitted);
        }
        runCallbacks(admitted);
        return admission;
    }

    /** The body of {@link #acquire}; adds to {@code admitted} the waiters a raised limit lets through. */
    private Admission take(Ticket ticket, long now, List<Ticket> admitted) {
        Level job = null;
        if (ticket.jobLimit > 0) {
            job = jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit));
            setLimit(job, ticket.jobLimit, now, admitted);
        }
        Level pool = null;
        if (ticket.pool != null) {
            pool = pools.computeIfAbsent(ticket.pool.name(), name -> new Level(0));
            pool.intervalNanos = ticket.pool.intervalNanos();
            setLimit(pool, poolLimit(ticket), now, admitted);
        }
        if (ticket.skipWhenFull && (full(job, now) || full(pool, now))) {
            if (job != null && job.idle()) {
                jobs.remove(ticket.jobId); // made just now for a ticket that takes nothing: its pool is full
            }
            return Admission.SKIPPED;
        }
        // A target's entry is made when a ticket reaches it (in advance), so a ticket that waits for its job, and is
        // released there, leaves no idle entry behind.
        Level target = targets.get(ticket.target);
        if (target != null) {
            setLimit(target, ticket.targetLimit, now, admitted);
        }
        return advance(ticket, now) ? Admission.ADMITTED : Admission.QUEUED;
    }

    /** True if a ticket arriving now could not take a slot of {@code level} at once. */
    private static boolean full(Level level, long now) {
        return level != null && (level.used >= level.limit || level.hasWaiters() || !level.permits(now));
    }

    private static int poolLimit(Ticket ticket) {
        return ticket.pool.maxConcurrent() == 0 ? Integer.MAX_VALUE : ticket.pool.maxConcurrent();
    }

    /**
     * Gives back every slot the ticket holds (all of them once admitted; the ones taken so far if it still waits, in
     * which case it leaves its queue) and admits whoever those slots complete. Idempotent; a ticket never acquired,
     * or skipped, holds nothing.
     */
    public void release(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(3);
        synchronized (this) {
            giveBack(ticket, ticker.getAsLong(), admitted);
        }
        runCallbacks(admitted);
    }

    /**
     * Gives back the job, pool and target slots of an admitted ticket whose call has ended, so the next call to that
     * job, pool or target can start while this one's outcome is still being written; the server slot stays until
     * {@link #release}. So the job, pool and target limits count calls, and the server limit counts calls plus
     * outcomes not yet written (what a crash would leave DISPATCHING). Does nothing for a ticket not admitted,
     * released, or ended already.
     */
    public void callEnded(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(3);
        synchronized (this) {
            if (ticket.levels != ADMITTED || ticket.released || ticket.callEnded) {
                return;
            }
            long now = ticker.getAsLong();
            ticket.callEnded = true;
            ended++;
            heldLevel(ticket, TARGET).admitted--;
            free(ticket, TARGET, now, admitted);
            free(ticket, POOL, now, admitted);
            free(ticket, JOB, now, admitted);
        }
        runCallbacks(admitted);
    }

    /**
     * As {@link #callEnded}, for a call whose target accepted the work and reports its outcome later (a job completing
     * by callback): the pool and target slots go back, but the job's stays taken until {@link #callbackEnded}, so a
     * job's {@code maxConcurrent} counts the work still running at the target. The server slot still goes back at
     * {@link #release}. Does nothing for a ticket not admitted, released, or ended already.
     */
    public void callAccepted(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(2);
        synchronized (this) {
            if (ticket.levels != ADMITTED || ticket.released || ticket.callEnded) {
                return;
            }
            long now = ticker.getAsLong();
            ticket.callEnded = true;
            ticket.jobKept = heldLevel(ticket, JOB) != null;
            ended++;
            heldLevel(ticket, TARGET).admitted--;
            free(ticket, TARGET, now, admitted);
            free(ticket, POOL, now, admitted);
        }
        runCallbacks(admitted);
    }

    /**
     * The work of a ticket {@link #callAccepted} ended (reported, failed, timed out): its job's slot goes back to the
     * job's first waiter. Idempotent; does nothing for a ticket whose job slot is not kept.
     */
    public void callbackEnded(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(1);
        synchronized (this) {
            if (!ticket.jobKept) {
                return;
            }
            ticket.jobKept = false;
            free(ticket, JOB, ticker.getAsLong(), admitted);
        }
        runCallbacks(admitted);
    }

    /**
     * Counts, in its job's limit, the work of an instance that awaits a callback and that this server did not start
     * (it found the instance in the store, after a restart or a take-over): the returned ticket holds a slot of the
     * job only, over the limit if need be (the work is already running), until {@link #callbackEnded}. Returns null
     * for a job without a limit.
     */
    public Ticket adoptAccepted(long instanceId, long jobId, int jobLimit) {
        if (jobLimit < 1) {
            return null;
        }
        Ticket ticket = new Ticket(instanceId, jobId, 0, jobLimit, false, null, ADOPTED_TARGET, 1, t -> { });
        synchronized (this) {
            ticket.acquired = true;
            ticket.released = true;
            ticket.callEnded = true;
            ticket.levels = ADMITTED;
            ticket.jobKept = true;
            Level job = jobs.computeIfAbsent(jobId, id -> new Level(jobLimit));
            job.used++;
        }
        return ticket;
    }

    /** The body of {@link #release}; adds to {@code admitted} the waiters the freed slots let through. */
    private void giveBack(Ticket ticket, long now, List<Ticket> admitted) {
        if (ticket.released) {
            return;
        }
        ticket.released = true;
        if (ticket.callEnded) {
            ended--;
            free(ticket, SERVER, now, admitted); // its other slots went back when the call ended (or were accepted)
            return;
        }
        Level waitingIn = ticket.waitingIn;
        if (waitingIn != null) {
            waitingIn.remove(ticket);
            waitingCount--;
            forgetIfIdle(ticket, ticket.levels, waitingIn);
        }
        if (ticket.levels == ADMITTED) {
            heldLevel(ticket, TARGET).admitted--;
        }
        // Last level first: each freed slot goes to that level's first waiter, which may then queue at the next
        // level, where the slot freed just before may already have been taken. Each slot is handed to exactly one
        // waiter, and only while the level is below its limit (which may have been lowered since).
        for (int index = ticket.levels - 1; index >= JOB; index--) {
            free(ticket, index, now, admitted);
        }
    }

    /** Gives back the ticket's slot of one level, to that level's first waiter if the level has room. */
    private void free(Ticket ticket, int index, long now, List<Ticket> admitted) {
        Level freed = heldLevel(ticket, index);
        if (freed == null) {
            return; // a level the ticket's job does not have (no job limit, no pool)
        }
        freed.used--;
        admitWaiters(freed, now, admitted);
        forgetIfIdle(ticket, index, freed);
    }

    /** Sets a level's limit; a raised one lets its waiters through at once, in order. */
    private void setLimit(Level level, int limit, long now, List<Ticket> admitted) {
        level.limit = limit;
        admitWaiters(level, now, admitted);
    }

    /**
     * Hands free slots of {@code level} to its first waiters while it has room and its rate allows; a level held back
     * only by its rate gets a wake-up at its next permit.
     */
    private void admitWaiters(Level level, long now, List<Ticket> admitted) {
        while (level.used < level.limit && level.hasWaiters()) {
            if (!level.permits(now)) {
                wakeAtNextPermit(level, now);
                return;
            }
            handToFirst(level, now, admitted);
        }
    }

    private void wakeAtNextPermit(Level level, long now) {
        if (level.wakeScheduled) {
            return; // the scheduled one comes at the next permit, or earlier (a lowered rate): it checks again
        }
        level.wakeScheduled = true;
        wakeups.schedule(level.nextPermitNanos - now, () -> wake(level));
    }

    /** A pool's next permit is due: its first waiters take their slots. */
    private void wake(Level level) {
        List<Ticket> admitted = new ArrayList<>(1);
        synchronized (this) {
            level.wakeScheduled = false;
            admitWaiters(level, ticker.getAsLong(), admitted);
        }
        runCallbacks(admitted);
    }

    /** Gives a free slot of {@code level} to the first of its queue, which goes on to its next level. */
    private void handToFirst(Level level, long now, List<Ticket> admitted) {
        Ticket next = level.poll();
        waitingCount--;
        level.take(now);
        next.levels++;
        if (advance(next, now)) {
            admitted.add(next);
        }
    }

    /**
     * Takes the ticket's remaining levels in order while they have room. Returns true once it holds them all;
     * otherwise it waits in the queue of the first level without room.
     */
    private boolean advance(Ticket ticket, long now) {
        while (ticket.levels < ADMITTED) {
            Level level = reachedLevel(ticket, ticket.levels);
            if (level == null) {
                ticket.levels++; // no job limit, or no pool: nothing to take
                continue;
            }
            if (level.used < level.limit && !level.hasWaiters() && level.permits(now)) {
                level.take(now);
                ticket.levels++;
            } else {
                level.enqueue(ticket, now - ticket.priority * agingNanos);
                waitingCount++;
                if (level.used < level.limit && !level.permits(now)) {
                    wakeAtNextPermit(level, now);
                }
                return false;
            }
        }
        heldLevel(ticket, TARGET).admitted++;
        return true;
    }

    /** The level a ticket takes at {@code index}, made if it has no entry yet; null for a level its job lacks. */
    private Level reachedLevel(Ticket ticket, int index) {
        return switch (index) {
            case JOB -> ticket.jobLimit > 0
                    ? jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit)) : null;
            case POOL -> ticket.pool != null ? pools.get(ticket.pool.name()) : null; // made by take, never forgotten
            case TARGET -> targets.computeIfAbsent(ticket.target, t -> new Level(ticket.targetLimit));
            case SERVER -> server;
            default -> throw new IllegalStateException("no level " + index);
        };
    }

    /** A level the ticket holds a slot of (its entry cannot be gone); null for a level its job lacks. */
    private Level heldLevel(Ticket ticket, int index) {
        boolean has = switch (index) {
            case JOB -> ticket.jobLimit > 0;
            case POOL -> ticket.pool != null;
            default -> true;
        };
        if (!has) {
            return null;
        }
        Level level = switch (index) {
            case JOB -> jobs.get(ticket.jobId);
            case POOL -> pools.get(ticket.pool.name());
            case TARGET -> targets.get(ticket.target);
            case SERVER -> server;
            default -> throw new IllegalStateException("no level " + index);
        };
        if (level == null) {
            throw new IllegalStateException(ticket + " holds a slot of level " + index + ", whose entry is gone");
        }
        return level;
    }

    /** Forgets an idle job's or target's entry; a pool's is kept (its rate remembers its last permit). */
    private void forgetIfIdle(Ticket ticket, int index, Level level) {
        if (!level.idle()) {
            return;
        }
        if (index == JOB) {
            jobs.remove(ticket.jobId);
        } else if (index == TARGET) {
            targets.remove(ticket.target);
        }
    }

    /** Runs admitted tickets' callbacks, outside the lock; one that throws must not strand the others' slots. */
    private static void runCallbacks(List<Ticket> admitted) {
        for (Ticket ticket : admitted) {
            try {
                ticket.onAdmitted.accept(ticket);
            } catch (Throwable failure) {
                log.error("the admission callback of {} threw; the ticket keeps its slots until it is released",
                        ticket, failure);
            }
        }
    }

    /** Calls in flight, or ended with their outcome not yet written: tickets admitted and not released. */
    public synchronized int inFlight() {
        return server.used; // the server level is the last: a ticket holds its slot only once admitted
    }

    /** Tickets waiting for a slot. */
    public synchronized int waiting() {
        return waitingCount;
    }

    /** Calls in flight to one target (0 if none): its admitted tickets, not its tickets waiting for the server. */
    public synchronized int inFlight(String target) {
        Level level = targets.get(target);
        return level == null ? 0 : level.admitted;
    }

    /** A pool's slots taken (its calls in flight and those about to start) and its tickets waiting, on this server. */
    public record PoolUsage(int used, int waiting) {
    }

    /** The usage of a pool on this server; none for a pool it has not dispatched for. */
    public synchronized PoolUsage poolUsage(String pool) {
        Level level = pools.get(pool);
        return level == null ? new PoolUsage(0, 0) : new PoolUsage(level.used, level.queued);
    }

    /**
     * Empties every queue and returns the tickets that were waiting (for close: their instances stay WAITING in the
     * store). They are released: the slots they had taken are given back, to nobody, as no one waits any more.
     * Admitted tickets are not affected.
     */
    public List<Ticket> drainWaiting() {
        synchronized (this) {
            List<Ticket> drained = new ArrayList<>(waitingCount);
            for (Level level : jobs.values()) {
                pollAll(level, drained);
            }
            for (Level level : pools.values()) {
                pollAll(level, drained);
            }
            for (Level level : targets.values()) {
                pollAll(level, drained);
            }
            pollAll(server, drained);
            waitingCount = 0;
            List<Ticket> none = new ArrayList<>(0);
            long now = ticker.getAsLong();
            for (Ticket ticket : drained) {
                giveBack(ticket, now, none); // every queue is empty: the slots go back to nobody
            }
            return drained;
        }
    }

    private static void pollAll(Level level, List<Ticket> into) {
        for (Ticket ticket = level.poll(); ticket != null; ticket = level.poll()) {
            into.add(ticket);
        }
    }

    /** Job entries in memory; an idle job is forgotten. For tests. */
    synchronized int trackedJobs() {
        return jobs.size();
    }

    /** Target entries in memory; an idle target is forgotten. For tests. */
    synchronized int trackedTargets() {
        return targets.size();
    }

    /**
     * Checks the invariants the algorithm rests on, in O(entries + waiting tickets), and throws
     * {@link IllegalStateException} naming the first one broken. For tests.
     */
    synchronized void checkInvariants() {
        int queued = checkLevel("server", server, SERVER);
        for (Map.Entry<Long, Level> job : jobs.entrySet()) {
            queued += checkLevel("job " + job.getKey(), job.getValue(), JOB);
        }
        for (Map.Entry<String, Level> pool : pools.entrySet()) {
            queued += checkLevel("pool " + pool.getKey(), pool.getValue(), POOL);
        }
        Map<String, Integer> atServer = new HashMap<>();
        for (Ticket head : server.heads) {
            for (Ticket ticket = head; ticket != null; ticket = ticket.behind) {
                atServer.merge(ticket.target, 1, Integer::sum);
            }
        }
        int admitted = 0;
        for (Map.Entry<String, Level> entry : targets.entrySet()) {
            Level target = entry.getValue();
            queued += checkLevel("target " + entry.getKey(), target, TARGET);
            // A target's slots are held by its calls in flight and by its tickets in the server queue, no one else:
            // this is what bounds one target's share of the server queue by its limit.
            int holders = target.admitted + atServer.getOrDefault(entry.getKey(), 0);
            if (target.used != holders) {
                throw new IllegalStateException("target " + entry.getKey() + ": " + target.used + " slots taken, but "
                        + target.admitted + " admitted + " + atServer.getOrDefault(entry.getKey(), 0)
                        + " in the server queue");
            }
            admitted += target.admitted;
        }
        if (server.used != admitted + ended || server.used > server.limit) {
            throw new IllegalStateException("server: " + server.used + " slots taken of " + server.limit + ", but "
                    + admitted + " tickets admitted and " + ended + " ended");
        }
        if (queued != waitingCount) {
            throw new IllegalStateException(queued + " tickets queued, but waiting() says " + waitingCount);
        }
    }

    private static int checkLevel(String name, Level level, int index) {
        if (level.used < 0 || level.admitted < 0) {
            throw new IllegalStateException(name + ": negative count, used " + level.used + ", admitted "
                    + level.admitted);
        }
        if (index != SERVER && index != POOL && level.idle()) {
            throw new IllegalStateException(name + ": idle but not forgotten");
        }
        if (level.hasWaiters() && level.used < level.limit && !level.wakeScheduled) {
            throw new IllegalStateException(name + ": waiters while " + (level.limit - level.used)
                    + " slots are free and no wake-up is due");
        }
        int queued = 0;
        for (int p = 0; p < PRIORITIES; p++) {
            Ticket ahead = null;
            for (Ticket ticket = level.heads[p]; ticket != null; ticket = ticket.behind) {
                if (ticket.waitingIn != level || ticket.ahead != ahead || ticket.levels != index || ticket.released
                        || ticket.priority != p || (ahead != null && ticket.rank - ahead.rank < 0)) {
                    throw new IllegalStateException(name + ": " + ticket + " is queued here with levels "
                            + ticket.levels + (ticket.released ? ", released" : "")
                            + ", links, priority, rank order or queue inconsistent");
                }
                ahead = ticket;
                queued++;
            }
            if (level.tails[p] != ahead) {
                throw new IllegalStateException(name + ": tail of priority " + p + " is not its list's last ticket");
            }
        }
        if (queued != level.queued) {
            throw new IllegalStateException(name + ": " + queued + " tickets queued, but its count says "
                    + level.queued);
        }
        return queued;
    }
}
