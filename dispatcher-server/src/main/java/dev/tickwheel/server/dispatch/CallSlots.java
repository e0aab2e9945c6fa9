package dev.tickwheel.server.dispatch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

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
 * that level's queue, which then goes on to its next level; a request that holds all three is admitted and its
 * callback runs (on the releasing thread, after the lock is let go).
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
 * <p>Complexity: O(1) per {@link #acquire} and per {@link #release} (a release moves at most one waiter per level).
 *
 * <p>Thread-safe: guarded by this object's monitor; callbacks run outside it.
 *
 * <p>Caveats: a request keeps the limits it was made with; a job whose limit changes gets the new one from its next
 * request. A cancelled instance still waiting for a slot is admitted in its turn and then loses its claim.
 */
public final class CallSlots {

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
        /** Set once released; guarded by the owner's monitor. */
        private boolean released;

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

    /** One semaphore with its queue. Guarded by the owner's monitor. */
    private static final class Level {
        int limit;
        int used;
        final ArrayDeque<Ticket> waiting = new ArrayDeque<>();

        Level(int limit) {
            this.limit = limit;
        }

        boolean idle() {
            return used == 0 && waiting.isEmpty();
        }
    }

    private final Level server;
    private final Map<Long, Level> jobs = new HashMap<>();
    private final Map<String, Level> targets = new HashMap<>();
    private int waitingCount;

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
     */
    public Admission acquire(Ticket ticket) {
        synchronized (this) {
            if (ticket.levels != 0 || ticket.released) {
                throw new IllegalStateException("a ticket is acquired once: " + ticket);
            }
            if (ticket.jobLimit > 0) {
                Level job = jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit));
                job.limit = ticket.jobLimit;
                if (job.used >= job.limit && ticket.skipWhenJobFull) {
                    if (job.idle()) {
                        jobs.remove(ticket.jobId);
                    }
                    return Admission.SKIPPED;
                }
            }
            targets.computeIfAbsent(ticket.target, t -> new Level(ticket.targetLimit)).limit = ticket.targetLimit;
            return advance(ticket) ? Admission.ADMITTED : Admission.QUEUED;
        }
    }

    /**
     * Gives back every slot the ticket holds (all three once admitted; the ones taken so far if it still waits, in
     * which case it leaves its queue) and admits whoever those slots complete. Idempotent.
     */
    public void release(Ticket ticket) {
        List<Ticket> admitted = new ArrayList<>(3);
        synchronized (this) {
            if (ticket.released) {
                return;
            }
            ticket.released = true;
            if (ticket.levels < 3) {
                Level waitingAt = levelAt(ticket, ticket.levels);
                if (waitingAt != null && waitingAt.waiting.remove(ticket)) {
                    waitingCount--;
                }
            }
            // Server first, then target, then job: each freed slot goes to that level's head, which may then queue
            // at the next level, where the slot freed just before may already have been taken. Each slot is handed
            // to exactly one waiter.
            for (int level = Math.min(ticket.levels, 3) - 1; level >= 0; level--) {
                Level freed = levelAt(ticket, level);
                if (freed == null) {
                    continue; // the job level of a job without a limit
                }
                freed.used--;
                Ticket next = freed.waiting.poll();
                if (next != null) {
                    waitingCount--;
                    freed.used++;
                    next.levels++;
                    if (advance(next)) {
                        admitted.add(next);
                    }
                }
                forgetIfIdle(ticket, level, freed);
            }
        }
        for (Ticket t : admitted) {
            t.onAdmitted.accept(t);
        }
    }

    /**
     * Takes the ticket's remaining levels in order while they have room. Returns true once it holds all three;
     * otherwise it waits in the queue of the first level without room.
     */
    private boolean advance(Ticket ticket) {
        while (ticket.levels < 3) {
            Level level = levelAt(ticket, ticket.levels);
            if (level == null) {
                ticket.levels++; // no job limit: nothing to take
                continue;
            }
            if (level.used < level.limit && level.waiting.isEmpty()) {
                level.used++;
                ticket.levels++;
            } else {
                level.waiting.add(ticket);
                waitingCount++;
                return false;
            }
        }
        return true;
    }

    /** The level a ticket takes at {@code index} (0 job, 1 target, 2 server); null for a job without a limit. */
    private Level levelAt(Ticket ticket, int index) {
        return switch (index) {
            case 0 -> ticket.jobLimit > 0
                    ? jobs.computeIfAbsent(ticket.jobId, id -> new Level(ticket.jobLimit)) : null;
            case 1 -> targets.computeIfAbsent(ticket.target, t -> new Level(ticket.targetLimit));
            case 2 -> server;
            default -> throw new IllegalStateException("no level " + index);
        };
    }

    private void forgetIfIdle(Ticket ticket, int index, Level level) {
        if (!level.idle()) {
            return;
        }
        if (index == 0) {
            jobs.remove(ticket.jobId);
        } else if (index == 1) {
            targets.remove(ticket.target);
        }
    }

    /** Calls in flight: tickets admitted and not released. */
    public synchronized int inFlight() {
        return server.used; // the server level is the last: a ticket holds its slot only once admitted
    }

    /** Tickets waiting for a slot. */
    public synchronized int waiting() {
        return waitingCount;
    }

    /** Calls in flight to one target (0 if none). */
    public synchronized int inFlight(String target) {
        Level level = targets.get(target);
        return level == null ? 0 : level.used;
    }

    /**
     * Empties every queue and returns the tickets that were waiting (for close: their instances stay WAITING in the
     * store). Admitted tickets are not affected.
     */
    public List<Ticket> drainWaiting() {
        synchronized (this) {
            List<Ticket> drained = new ArrayList<>(waitingCount);
            for (Level level : jobs.values()) {
                drained.addAll(level.waiting);
                level.waiting.clear();
            }
            for (Level level : targets.values()) {
                drained.addAll(level.waiting);
                level.waiting.clear();
            }
            drained.addAll(server.waiting);
            server.waiting.clear();
            waitingCount = 0;
            return drained;
        }
    }
}
