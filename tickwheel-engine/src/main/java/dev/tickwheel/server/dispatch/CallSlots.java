package dev.tickwheel.server.dispatch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bulkheads in front of every call: a call may start only while it holds a slot of its job (when the job limits
 * its concurrency), of its target (a webhook's host and port, or the in-process handler pool) and of the server as a
 * whole. An instance asks for its slots when its timer fires, and is claimed in the store only once it holds all
 * three; so the instances DISPATCHING in the store are the calls in flight, never a queue of claimed work.
 *
 * <h2>How it works</h2>
 *
 * <p>The three limits are three levels of asynchronous FIFO semaphores, taken in the order job, target, server. A
 * request takes a slot at each level while there is one and waits in that level's queue (no thread waits) when
 * there is none. It keeps the slots it already has while it waits for the next: a request waiting for a server slot
 * holds its target's slot. {@link #release} gives each of the three slots back and hands each one to the head of
 * that level's queue (unless a lowered limit still leaves the level full), which then goes on to its next level; a
 * request that holds all three is admitted and its callback runs (on the releasing thread, after the lock is let go).
 * A call may also end in two steps: {@link #callEnded} gives back the job and target slots as soon as the call is over,
 * and {@link #release} the server slot once its outcome is written; so job and target limits count calls, and the
 * server limit counts calls and the outcomes still to be written (the rows a crash would leave DISPATCHING).
 *
 * <p>Why one slow target cannot hold back another: a target's calls and waiters together never hold more than its
 * target limit of target slots, so at most that many of the server queue's entries can be for one target; the
 * others' requests reach the server queue past it. A target whose calls stall fills its own queue, not the server's.
 * A job at its limit waits in its own queue (or is refused at once, when it skips such instances).
 *
 * <pre>
 *   request ──► job J: free? ──► target H: free? ──► server: free? ──► admitted (claim, then call)
 *                 │ no               │ no               │ no
 *                 ▼                  ▼                  ▼
 *            J's queue          H's queue         server queue      (each FIFO; a release hands the freed slot
 *                                                                     of each level to that level's head)
 * </pre>
 *
 * <p>Each level's queue is an intrusive doubly linked list through the tickets (a ticket waits in at most one queue
 * at a time), so a waiting ticket leaves it in O(1) when it is released. A job's or target's entry is forgotten as
 * soon as it has neither slots taken nor waiters.
 *
 * <p>Complexity: O(1) per {@link #acquire} and per {@link #release}, a release of a waiting ticket included (a release
 * moves at most one waiter per level); an acquire that raises a limit also admits up to that many more waiters.
 *
 * <p>Thread-safe: guarded by this object's monitor; callbacks run outside it. A callback that throws is logged and
 * does not keep the other admitted tickets from theirs.
 *
 * <p>Caveats: a job's and a target's limit is the one its latest request brought: raising it admits waiters at once;
 * lowering it cuts no call, and the level admits again once its calls drop below the new limit. A ticket queued at
 * its job keeps the job limit it was made with, so a job that drops its limit still has those tickets wait for a
 * slot of its job. A cancelled instance still waiting for a slot is admitted in its turn and then loses its claim,
 * unless the caller releases its ticket.
 */
public final class CallSlots {

    private static final Logger log = LoggerFactory.getLogger(CallSlots.class);

    /** Level indexes, in the order a ticket takes them; a ticket with {@code levels == ADMITTED} holds all three. */
    private static final int JOB = 0;
    private static final int TARGET = 1;
    private static final int SERVER = 2;
    private static final int ADMITTED = 3;

    /** What {@link #acquire} did with a request. */
    public enum Admission {
        /** The request holds its slots: start the call now. */
        ADMITTED,
        /** The request waits; its callback runs when it holds its slots. */
        QUEUED,
        /** The job is at its limit and skips over-limit instances: the request took nothing. */
        SKIPPED
    }

    /**
     * One call's claim on slots, from {@link #acquire} to {@link #release}.
     *
     * <p>Mutable, guarded by the owning {@link CallSlots}'s monitor; immutable fields may be read by anyone.
     */
    public static final class Ticket {
        private final long instanceId;
        private final long jobId;
        private final int jobLimit;
        private final boolean skipWhenJobFull;
        private final String target;
        private final int targetLimit;
        private final Consumer<Ticket> onAdmitted;
        /** Levels taken so far: 0 none, 1 job, 2 target, 3 server (admitted). Guarded by the owner's monitor. */
        private int levels;
        /** Set by the first acquire, whatever its outcome; guarded by the owner's monitor. */
        private boolean acquired;
        /** Set once released; guarded by the owner's monitor. */
        private boolean released;
        /** Set when the call ended: job and target slots given back, the server slot kept. Guarded likewise. */
        private boolean callEnded;
        /** The level whose queue this ticket waits in, null when it waits nowhere. Guarded by the owner's monitor. */
        private Level waitingIn;
        /** Neighbours in {@link #waitingIn}'s queue (toward its head, toward its tail). Guarded likewise. */
        private Ticket ahead;
        private Ticket behind;

        /**
         * @param jobLimit        the job's limit; 0 for none
         * @param skipWhenJobFull refuse rather than wait when the job is at its limit
         * @param target          the target's key (host:port, or the handler pool's name)
         * @param targetLimit     calls in flight to that target, at most
         * @param onAdmitted      runs when a queued request gets its slots
         */
        public Ticket(long instanceId, long jobId, int jobLimit, boolean skipWhenJobFull, String target,
                      int targetLimit, Consumer<Ticket> onAdmitted) {
            if (jobLimit < 0 || targetLimit < 1) {
                throw new IllegalArgumentException("limits: job " + jobLimit + " (0 = none), target " + targetLimit);
            }
            this.instanceId = instanceId;
            this.jobId = jobId;
            this.jobLimit = jobLimit;
            this.skipWhenJobFull = skipWhenJobFull;
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
            return "Ticket[instance " + instanceId + ", job " + jobId + ", target " + target + "]";
        }
    }

    /**
     * One semaphore with its FIFO queue of tickets, linked through the tickets themselves. Guarded by the owner's
     * monitor.
     */
    private static final class Level {
        int limit;
        int used;
        /** Target levels only: how many of its slot holders are admitted (the others wait for the server). */
        int admitted;
        Ticket head;
        Ticket tail;

        Level(int limit) {
            this.limit = limit;
        }

        boolean hasWaiters() {
            return head != null;
        }

        boolean idle() {
            return used == 0 && head == null;
        }

        void enqueue(Ticket ticket) {
            ticket.waitingIn = this;
            ticket.ahead = tail;
            if (tail == null) {
                head = ticket;
            } else {
                tail.behind = ticket;
            }
            tail = ticket;
        }

        Ticket poll() {
            Ticket first = head;
            if (first != null) {
                remove(first);
            }
            return first;
        }

        void remove(Ticket ticket) {
            if (ticket.ahead == null) {
                head = ticket.behind;
            } else {
                ticket.ahead.behind = ticket.behind;
            }
            if (ticket.behind == null) {
                tail = ticket.ahead;
            } else {
                ticket.behind.ahead = ticket.ahead;
            }
            ticket.waitingIn = null;
            ticket.ahead = null;
            ticket.behind = null;
        }
    }

    private final Level server;
    private final Map<Long, Level> jobs = new HashMap<>();
    private final Map<String, Level> targets = new HashMap<>();
    private int waitingCount;
    /** Tickets whose call ended and which hold only their server slot, until their outcome is written. */
    private int ended;

    /** @param serverLimit calls in flight on this server, at most */
    public CallSlots(int serverLimit) {
        if (serverLimit < 1) {
            throw new IllegalArgumentException("serverLimit must be at least 1: " + serverLimit);
        }
        this.server = new Level(serverLimit);
    }

    /**
     * Asks for a ticket's slots. {@link Admission#ADMITTED}: the caller starts the call itself (the callback does not
     * run). {@link Admission#QUEUED}: the callback runs later, on whichever thread releases the last slot it needs.
     * A ticket that raises its job's or target's limit admits waiters: their callbacks run here, before this returns.
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
            admission = take(ticket, admitted);
        }
        runCallbacks(admitted);
        return admission;
    }

    /** The body of {@link #acquire}; adds to {@code admitted} the waiters a raised limit lets through. */
    private Admission take(Ticket ticket, List<Ticket> admitted) {
        if (ticket.jobLimit > 0) {
            Level job = jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit));
            setLimit(job, ticket.jobLimit, admitted);
            if (job.used >= job.limit && ticket.skipWhenJobFull) {
                return Admission.SKIPPED; // the job is full, so its entry is not idle: nothing to forget
            }
        }
        // A target's entry is made when a ticket reaches it (in advance), so a ticket that waits for its job, and is
        // released there, leaves no idle entry behind.
        Level target = targets.get(ticket.target);
        if (target != null) {
            setLimit(target, ticket.targetLimit, admitted);
        }
        return advance(ticket) ? Admission.ADMITTED : Admission.QUEUED;
    }

    /**
     * Gives back every slot the ticket holds (all three once admitted; the ones taken so far if it still waits, in
     * which case it leaves its queue) and admits whoever those slots complete. Idempotent; a ticket never acquired,
     * or skipped, holds nothing.
     */
    public void release(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(3);
        synchronized (this) {
            giveBack(ticket, admitted);
        }
        runCallbacks(admitted);
    }

    /**
     * Gives back the job and target slots of an admitted ticket whose call has ended, so the next call to that job or
     * target can start while this one's outcome is still being written; the server slot stays until {@link #release}.
     * So the job and target limits count calls, and the server limit counts calls plus outcomes not yet written (what
     * a crash would leave DISPATCHING). Does nothing for a ticket not admitted, released, or ended already.
     */
    public void callEnded(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(2);
        synchronized (this) {
            if (ticket.levels != ADMITTED || ticket.released || ticket.callEnded) {
                return;
            }
            ticket.callEnded = true;
            ended++;
            heldLevel(ticket, TARGET).admitted--;
            free(ticket, TARGET, admitted);
            free(ticket, JOB, admitted);
        }
        runCallbacks(admitted);
    }

    /** The body of {@link #release}; adds to {@code admitted} the waiters the freed slots let through. */
    private void giveBack(Ticket ticket, List<Ticket> admitted) {
        if (ticket.released) {
            return;
        }
        ticket.released = true;
        if (ticket.callEnded) {
            ended--;
            free(ticket, SERVER, admitted); // its job and target slots went back when the call ended
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
        // Server first, then target, then job: each freed slot goes to that level's head, which may then queue at the
        // next level, where the slot freed just before may already have been taken. Each slot is handed to exactly
        // one waiter, and only while the level is below its limit (which may have been lowered since).
        for (int index = ticket.levels - 1; index >= JOB; index--) {
            free(ticket, index, admitted);
        }
    }

    /** Gives back the ticket's slot of one level, to that level's head if the level is below its limit. */
    private void free(Ticket ticket, int index, List<Ticket> admitted) {
        Level freed = heldLevel(ticket, index);
        if (freed == null) {
            return; // the job level of a job without a limit
        }
        freed.used--;
        if (freed.used < freed.limit && freed.hasWaiters()) {
            handToHead(freed, admitted);
        }
        forgetIfIdle(ticket, index, freed);
    }

    /** Sets a level's limit; a raised one lets its waiters through at once, in order. */
    private void setLimit(Level level, int limit, List<Ticket> admitted) {
        level.limit = limit;
        while (level.used < level.limit && level.hasWaiters()) {
            handToHead(level, admitted);
        }
    }

    /** Gives a free slot of {@code level} to the head of its queue, which goes on to its next level. */
    private void handToHead(Level level, List<Ticket> admitted) {
        Ticket next = level.poll();
        waitingCount--;
        level.used++;
        next.levels++;
        if (advance(next)) {
            admitted.add(next);
        }
    }

    /**
     * Takes the ticket's remaining levels in order while they have room. Returns true once it holds all three;
     * otherwise it waits in the queue of the first level without room.
     */
    private boolean advance(Ticket ticket) {
        while (ticket.levels < ADMITTED) {
            Level level = reachedLevel(ticket, ticket.levels);
            if (level == null) {
                ticket.levels++; // no job limit: nothing to take
                continue;
            }
            if (level.used < level.limit && !level.hasWaiters()) {
                level.used++;
                ticket.levels++;
            } else {
                level.enqueue(ticket);
                waitingCount++;
                return false;
            }
        }
        heldLevel(ticket, TARGET).admitted++;
        return true;
    }

    /** The level a ticket takes at {@code index}, made if it has no entry yet; null for a job without a limit. */
    private Level reachedLevel(Ticket ticket, int index) {
        return switch (index) {
            case JOB -> ticket.jobLimit > 0
                    ? jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit)) : null;
            case TARGET -> targets.computeIfAbsent(ticket.target, t -> new Level(ticket.targetLimit));
            case SERVER -> server;
            default -> throw new IllegalStateException("no level " + index);
        };
    }

    /** A level the ticket holds a slot of (its entry cannot be gone); null for a job without a limit. */
    private Level heldLevel(Ticket ticket, int index) {
        Level level = switch (index) {
            case JOB -> ticket.jobLimit > 0 ? jobs.get(ticket.jobId) : null;
            case TARGET -> targets.get(ticket.target);
            case SERVER -> server;
            default -> throw new IllegalStateException("no level " + index);
        };
        if (level == null && (index != JOB || ticket.jobLimit > 0)) {
            throw new IllegalStateException(ticket + " holds a slot of level " + index + ", whose entry is gone");
        }
        return level;
    }

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
            for (Level level : targets.values()) {
                pollAll(level, drained);
            }
            pollAll(server, drained);
            waitingCount = 0;
            List<Ticket> none = new ArrayList<>(0);
            for (Ticket ticket : drained) {
                giveBack(ticket, none); // every queue is empty: the slots go back to nobody
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
        Map<String, Integer> atServer = new HashMap<>();
        for (Ticket ticket = server.head; ticket != null; ticket = ticket.behind) {
            atServer.merge(ticket.target, 1, Integer::sum);
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
        if (index != SERVER && level.idle()) {
            throw new IllegalStateException(name + ": idle but not forgotten");
        }
        if (level.hasWaiters() && level.used < level.limit) {
            throw new IllegalStateException(name + ": waiters while " + (level.limit - level.used) + " slots are free");
        }
        int queued = 0;
        Ticket ahead = null;
        for (Ticket ticket = level.head; ticket != null; ticket = ticket.behind) {
            if (ticket.waitingIn != level || ticket.ahead != ahead || ticket.levels != index || ticket.released) {
                throw new IllegalStateException(name + ": " + ticket + " is queued here with levels " + ticket.levels
                        + (ticket.released ? ", released" : "") + ", links or queue inconsistent");
            }
            ahead = ticket;
            queued++;
        }
        if (level.tail != ahead) {
            throw new IllegalStateException(name + ": tail is not the last ticket of the queue");
        }
        return queued;
    }
}
