package dev.tickwheel.server.wheel;

import com.google.common.base.Ticker;
import dev.tickwheel.timer.TimerFuture;
import dev.tickwheel.timer.TimerStats;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schedules job instances by unique ID on two timing wheels and lets anyone cancel them by that ID.
 *
 * <p>Delays up to {@code longDelayThreshold} (60 s) go to the precise wheel (1 ms buckets); longer ones go to the
 * coarse wheel (10 s buckets), which expires them {@code longDelayThreshold} before their deadline and moves them to
 * the precise wheel, keeping the deadline computed at {@code schedule} time from the monotonic ticker. The precise
 * wheel hands due instances to a bounded dispatch executor; the wheels' threads never run user code (unless the caller
 * supplies an executor that runs tasks on the submitting thread). When the executor is full, or fails, the precise
 * wheel retries a tick later: work is delayed, counted, never dropped.
 *
 * <p>Thread-safe: every method may be called from any thread, except that {@link #close()} must not be called from a
 * task the service dispatched (it waits for running tasks; with an executor that runs tasks on the precise wheel's
 * thread it would fail half-way).
 *
 * <h2>Why cancel, hand-off and firing cannot race</h2>
 *
 * <p>An instance is one slot of the service's {@link InstanceSlab}: its ID, deadline, task, its CARGO chain link,
 * its wheel link, and a control word (state, wheel, generation). The state leaves WAITING exactly once, by a
 * compare-and-set of the control word: to CANCELLED in {@code cancel}, or to STARTED on the dispatch thread right
 * before the task runs. The hand-off changes only the wheel bit, by the same compare-and-set, so it can neither win nor
 * lose against a cancel. Worked example, instance 43 scheduled for 3 h:
 *
 * <pre>
 *   t = 0          schedule(43, 3h)  slot 7 = {43, deadline, task}, WAITING, coarse; CARGO chains slot 7; the
 *                  coarse wheel's transfer list holds it, its worker links it (expires at 3h - 60s)
 *   t = 3h - 60s   coarse worker: slot 7 due -> CAS wheel bit coarse -> precise; precise transfer list += 7
 *   same instant   cancel(43) on another thread: CAS WAITING -> CANCELLED wins, returns true; CARGO keeps the entry,
 *                  counted as gone. Whichever wheel holds slot 7 drops it without running it (taking it from a
 *                  transfer list, scanning its bucket, in a sweep) and releases it: CARGO's entry goes, the slot is
 *                  free for another instance. Had the cancel lost the CAS to the hand-off, it reads again and wins on
 *                  the new word.
 *   t = 3h         (had nobody cancelled) precise worker submits Dispatch(7, generation); dispatch thread: CAS
 *                  WAITING -> STARTED wins, the slot is released (CARGO's entry goes), the task runs. A cancel from
 *                  now on finds no entry, or loses the CAS: false.
 * </pre>
 *
 * <p>So {@code cancel} returns {@code true} iff the task will never run, for any delay (including 0), and it never
 * returns {@code false} for an instance that has not started: an instance queued in the executor, or deferred because
 * the executor was full, is still WAITING and still cancellable.
 *
 * <h2>The dispatch lead: one thread wake-up between the deadline and the task</h2>
 *
 * <p>Handed over at its deadline, an instance waits for two thread wake-ups on the way to its task: the precise
 * wheel's worker, parked until the deadline, then a dispatch thread, parked on the executor's queue. The service's own
 * executor is therefore a {@link ScheduledThreadPoolExecutor}, and the precise wheel expires an instance
 * {@code dispatchLead} (5 ms) before its deadline into it, delayed by what is left. Both wake-ups then happen before
 * the deadline, and only the executor's leader thread, the one that waits timed for the earliest queued deadline,
 * wakes between the deadline and the task: the JDK's own timer path. A thread never waits on a later instance while
 * an earlier one is due (the queue is ordered by deadline); an instance waiting there is still WAITING and
 * cancellable, as in any queue. The delay is measured on the system's nano clock, the executor's, so the lead is used
 * only with the system ticker; with another ticker (a test's manual clock) or a caller-supplied executor, instances
 * are handed over at their deadline.
 *
 * <p>Caveats: a task runs no earlier than its deadline and typically within a fraction of a millisecond after it,
 * later when the dispatch executor is saturated. {@link #pendingCount()} is exact only when nothing runs concurrently.
 */
public final class InstanceTimeWheelService implements AutoCloseable {

    public static final Duration DEFAULT_PRECISE_TICK = Duration.ofMillis(1);
    public static final int DEFAULT_PRECISE_SLOTS = 4096;
    public static final Duration DEFAULT_COARSE_TICK = Duration.ofSeconds(10);
    public static final int DEFAULT_COARSE_SLOTS = 12;
    public static final Duration DEFAULT_LONG_DELAY_THRESHOLD = Duration.ofSeconds(60);
    public static final int DEFAULT_DISPATCH_QUEUE_CAPACITY = 8192;
    /**
     * How early the precise wheel hands an instance to the service's own dispatch executor (see the class comment):
     * five precise ticks, so that a worker wake-up late by up to 5 ms still costs nothing. On this project's 2-core VM
     * a parked thread now and then wakes milliseconds late; with a 1 ms lead one fork in five had a p99 of 1.4 ms
     * (LatenessHarness, issue 26), with 5 ms none above 0.2 ms. The queue then holds the instances due in the next
     * 5 ms: 250 at 50 000 a second.
     */
    public static final Duration DEFAULT_DISPATCH_LEAD = Duration.ofMillis(5);
    /**
     * One dispatch thread. The dispatches the engine runs are short (a cache lookup, a slot, a queue hand-off), and
     * with more threads they take turns waiting for the next deadline: each turn is a wake-up of the next thread, on
     * the path to the next task. On this project's 2-core VM (LatenessHarness, issue 26, 4 forks each): p99 lateness
     * 0.15 ms with one thread and the lead, against 0.45 ms with two threads and no lead, and STPE's 0.14 ms.
     */
    public static final int DEFAULT_DISPATCH_THREADS = 1;
    /** Largest accepted delay (about 146 years): beyond it a monotonic deadline could overflow. */
    public static final long MAX_DELAY_MS = Long.MAX_VALUE / 2 / 1_000_000;

    private static final Logger log = LoggerFactory.getLogger(InstanceTimeWheelService.class);

    private final InstanceSlab slab;
    private final SlabWheel precise;
    private final SlabWheel coarse;
    private final long thresholdNanos;
    private final Executor executor;
    private final ScheduledThreadPoolExecutor ownedExecutor;
    private final int ownedQueueCapacity;
    // Dispatches handed to ownedExecutor and neither run nor abandoned: its queue is unbounded, this bounds it.
    private final AtomicInteger ownedQueued = new AtomicInteger();
    private final long dispatchLeadNanos;
    private final Ticker ticker;
    // CAS: close() is idempotent and schedule() must see it.
    private final AtomicBoolean closed = new AtomicBoolean();

    private InstanceTimeWheelService(Builder b) {
        this.thresholdNanos = b.longDelayThreshold.toNanos();
        this.ticker = b.ticker;
        this.slab = new InstanceSlab(stripeCount(), b.ticker.read(), b.expectedInstances);
        Executor executor = b.dispatchExecutor;
        if (executor == null) {
            this.ownedExecutor = new ScheduledThreadPoolExecutor(b.dispatchThreads, namedThreads("tickwheel-dispatch-"),
                    new ThreadPoolExecutor.AbortPolicy());
            // At shutdown, queued dispatches are dropped rather than waited for (up to the lead): close() cancels their
            // instances with every other pending one.
            ownedExecutor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            // Started now rather than by the first dispatches, which would otherwise pay for thread creation.
            ownedExecutor.prestartAllCoreThreads();
            executor = ownedExecutor;
        } else {
            this.ownedExecutor = null;
        }
        this.executor = executor;
        this.ownedQueueCapacity = b.dispatchQueueCapacity;
        boolean systemTime = b.ticker == Ticker.systemTicker(); // the executor's delays run on System.nanoTime
        this.dispatchLeadNanos = ownedExecutor != null && systemTime ? b.dispatchLead.toNanos() : 0;
        this.precise = new SlabWheel(slab, InstanceSlab.PRECISE, b.ticker, b.preciseTick.toNanos(), b.preciseSlots,
                dispatchLeadNanos, this::dispatch, namedThreads("tickwheel-precise-wheel-"));
        this.coarse = new SlabWheel(slab, InstanceSlab.COARSE, b.ticker, b.coarseTick.toNanos(), b.coarseSlots,
                thresholdNanos, this::handOff, namedThreads("tickwheel-coarse-wheel-"));
        precise.start();
        coarse.start();
    }

    /**
     * CARGO's stripes: 64 at least, 16 a core beyond 4 cores. A stripe is locked while it grows (it relinks every
     * entry), and producers move to another stripe every 16 IDs, so with few large stripes a producer soon meets the
     * one another producer is growing and waits for all of it; with 64 on 2 cores, two producers' growths mostly run
     * side by side. A stripe costs about 200 bytes.
     */
    private static int stripeCount() {
        return Math.max(64, Runtime.getRuntime().availableProcessors() * 16);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Schedules {@code task} to run once, no earlier than {@code delayMs} from now, under {@code uniqueId}. Allocates
     * nothing: the instance takes a slot of the service's slab (see {@link InstanceSlab}); its handle, if anyone needs
     * one, comes from {@link #fetchTimerFuture}.
     *
     * @param delayMs zero or negative means due now: it runs on the dispatch executor, never on the caller's thread
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalArgumentException if {@code delayMs} exceeds {@link #MAX_DELAY_MS}
     * @throws IllegalStateException if an instance with this ID is still pending
     * @throws RejectedExecutionException if the service is closed
     */
    public void schedule(long uniqueId, long delayMs, Runnable task) {
        Objects.requireNonNull(task, "task");
        if (delayMs > MAX_DELAY_MS) {
            throw new IllegalArgumentException(
                    "delayMs too large, the deadline would overflow: " + delayMs + " (max " + MAX_DELAY_MS + ")");
        }
        if (closed.get()) {
            throw new RejectedExecutionException("InstanceTimeWheelService is closed");
        }
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
        boolean near = delayNanos <= thresholdNanos;
        long deadlineNanos = precise.now() + delayNanos;
        int slot = slab.schedule(uniqueId, deadlineNanos, task, near ? InstanceSlab.PRECISE : InstanceSlab.COARSE);
        if (slot == InstanceSlab.NIL) {
            throw new IllegalStateException("instance " + uniqueId + " is already scheduled and still pending");
        }
        if (closed.get() && cancel(uniqueId)) {
            // close() may have stopped the wheels and swept CARGO before this instance was in it: nothing would run
            // it. Cancelled now, so it never runs, and the caller is told. (If the cancel lost, close() got it.)
            throw new RejectedExecutionException("InstanceTimeWheelService is closed");
        }
        (near ? precise : coarse).wake(deadlineNanos);
    }

    /**
     * Cancels a pending instance, without a lock (see {@link InstanceSlab}).
     *
     * @return {@code true} iff the task will never run; {@code false} if the ID is unknown, already started or already
     *         cancelled
     */
    public boolean cancel(long uniqueId) {
        return cancelled(slab.cancel(uniqueId));
    }

    /** Whether an instance of this ID is pending (neither started nor cancelled); no lock, nothing allocated. */
    public boolean isPending(long uniqueId) {
        return slab.isPending(uniqueId);
    }

    /**
     * The handle of a pending instance, or empty if the ID is unknown, started or cancelled. The handle is made on
     * demand and registered with the instance's slot, so it goes on answering (started or cancelled) after the
     * instance ended; asking again while the instance is pending returns the same handle.
     */
    public Optional<TimerFuture> fetchTimerFuture(long uniqueId) {
        return Optional.ofNullable(slab.handle(uniqueId, this::cancelled));
    }

    /** True until {@link #close()} is called: the wheels accept and fire timers. */
    public boolean isRunning() {
        return !closed.get();
    }

    /** Instances scheduled and neither started nor cancelled. */
    public int pendingCount() {
        return slab.size();
    }

    /**
     * The instances whose memory the service holds: the pending ones, and the cancelled ones until their wheel lets
     * go of them (at their bucket, or in a sweep once cancels are at least half of what a wheel holds), so at most
     * about twice {@link #pendingCount()} plus {@link SlabWheel#CANCELS_PER_WAKE} a wheel.
     */
    public int heldCount() {
        return slab.entries();
    }

    /**
     * Slots the slab has taken so far: the most instances it held at once, rounded up to blocks of 64 a stripe. Their
     * memory (about 40 bytes a slot) is kept and reused, not returned: a service sized by its peak, as a
     * {@code ConcurrentHashMap} keeps its table.
     */
    public int slotCount() {
        return slab.slotsAllocated();
    }

    public TimerStats preciseWheelStats() {
        return precise.stats();
    }

    public TimerStats coarseWheelStats() {
        return coarse.stats();
    }

    /**
     * Dispatches waiting in the executor's queue, including those waiting out the dispatch lead; 0 when the executor
     * was supplied by the caller.
     */
    public int dispatchQueueDepth() {
        return ownedQueued.get();
    }

    /**
     * Stops both wheels and, if the service built it, the dispatch executor, giving tasks already running up to 10 s
     * to finish (a caller-supplied executor is left running). Every instance still pending is cancelled, wherever it
     * is, so no task starts after this returns (a dispatch queued in a caller's executor that runs later cancels its
     * instance instead of starting it). Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        coarse.stop();
        precise.stop();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown(); // drops the queued dispatches; their instances are cancelled below
            awaitTermination(ownedExecutor);
        }
        int cancelled = slab.cancelAll();
        log.info("instance time wheel closed; {} pending instances cancelled", cancelled);
    }

    /** Counts a cancel that won at the wheel that held the slot; false for none ({@code ctl < 0}). */
    private boolean cancelled(long ctl) {
        if (ctl < 0) {
            return false;
        }
        (InstanceSlab.tier(ctl) == InstanceSlab.PRECISE ? precise : coarse).cancelRequested();
        return true;
    }

    /**
     * The precise wheel's expiry, on its worker, {@code dispatchLead} before the deadline: the slot goes to the
     * dispatch executor, the owned one delaying it by what is left of the lead.
     */
    private boolean dispatch(int slot, long ctl) {
        Dispatch dispatch = new Dispatch(this, slot, InstanceSlab.generation(ctl));
        try {
            if (ownedExecutor == null) {
                executor.execute(dispatch);
                return true;
            }
            if (ownedQueued.incrementAndGet() > ownedQueueCapacity) {
                ownedQueued.decrementAndGet();
                return false; // full: the wheel retries a tick later
            }
            long delayNanos = dispatchLeadNanos == 0 ? 0 : slab.deadlineNanos(slot) - ticker.read();
            ownedExecutor.schedule(dispatch, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return !dispatch.abandon();
        } catch (Throwable t) {
            // A broken executor, not a full one. The worker must outlive it and the instance must not be lost: it is
            // reported and retried like a rejected one, unless the executor ran or queued the dispatch before
            // throwing (then the dispatch cannot be abandoned and it is the dispatch's to run).
            log.error("dispatch executor failed on instance {}", slab.id(slot), t);
            precise.taskFailed();
            return !dispatch.abandon();
        }
    }

    /**
     * Runs on a dispatch thread: starts the instance unless it was cancelled, or the service closed (then it cancels
     * it), and releases its slot either way.
     */
    private void start(int slot, long generation) {
        if (closed.get()) {
            cancelled(slab.cancelSlot(slot, generation)); // queued at close: it never starts
        }
        long ctl = slab.ctl(slot);
        while (InstanceSlab.generation(ctl) == generation && InstanceSlab.state(ctl) == InstanceSlab.WAITING) {
            if (slab.casCtl(slot, ctl, InstanceSlab.withState(ctl, InstanceSlab.STARTED))) {
                long uniqueId = slab.id(slot);
                Runnable task = slab.task(slot);
                slab.release(slot);
                try {
                    task.run();
                } catch (Throwable t) {
                    precise.taskFailed();
                    log.error("dispatch of instance {} failed", uniqueId, t);
                }
                return;
            }
            ctl = slab.ctl(slot);
        }
        // Cancelled after it was handed to the executor: this dispatch is the last holder of the slot.
        slab.release(slot);
    }

    /** The coarse wheel's expiry, on its worker, {@code longDelayThreshold} before the deadline. */
    private boolean handOff(int slot, long ctl) {
        // The slot keeps its deadline; the state is untouched, so a concurrent cancel wins or loses exactly as on one
        // wheel. Only the wheel bit changes, by compare-and-set, so that a cancel counts itself at the wheel that
        // holds the slot.
        for (long c = ctl; ; c = slab.ctl(slot)) {
            if (InstanceSlab.state(c) != InstanceSlab.WAITING) {
                slab.release(slot); // cancelled at the last moment: this wheel was its last holder
                return true;
            }
            if (slab.casCtl(slot, c, InstanceSlab.withTier(c, InstanceSlab.PRECISE))) {
                break;
            }
        }
        long deadlineNanos = slab.deadlineNanos(slot);
        slab.transfer(slot, InstanceSlab.PRECISE);
        precise.wake(deadlineNanos);
        return true;
    }

    /**
     * One due instance on its way to a dispatch thread: its slot and generation. It runs at most once, and not at all
     * once abandoned (the executor refused it).
     */
    private static final class Dispatch implements Runnable {
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Dispatch.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final InstanceTimeWheelService service;
        private final int slot;
        private final long generation;
        // 0 new, 1 run, 2 abandoned; by CAS, so that exactly one of run and abandon acts.
        private volatile int state;

        Dispatch(InstanceTimeWheelService service, int slot, long generation) {
            this.service = service;
            this.slot = slot;
            this.generation = generation;
        }

        @Override
        public void run() {
            if (STATE.compareAndSet(this, 0, 1)) {
                uncount();
                service.start(slot, generation);
            }
        }

        /** Every dispatch handed to the service's own executor was counted in ownedQueued. */
        private void uncount() {
            if (service.ownedExecutor != null) {
                service.ownedQueued.decrementAndGet();
            }
        }

        /**
         * Takes the dispatch back before it ran (the executor refused it): the wheel keeps the slot. If the service
         * is closing, the wheel has stopped and {@link #close()} cancels the instance with the others.
         *
         * @return whether it was taken back; false if it ran or is running
         */
        boolean abandon() {
            if (!STATE.compareAndSet(this, 0, 2)) {
                return false;
            }
            uncount();
            return true;
        }
    }

    private static void awaitTermination(ScheduledThreadPoolExecutor executor) {
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("dispatch executor still running tasks 10 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory namedThreads(String prefix) {
        AtomicInteger sequence = new AtomicInteger();
        return r -> {
            Thread thread = new Thread(r, prefix + sequence.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Builds an {@link InstanceTimeWheelService}. Setters validate and throw {@link IllegalArgumentException} naming the
     * setting and the value. Mutable, not thread-safe.
     */
    public static final class Builder {
        private Duration preciseTick = DEFAULT_PRECISE_TICK;
        private int preciseSlots = DEFAULT_PRECISE_SLOTS;
        private Duration coarseTick = DEFAULT_COARSE_TICK;
        private int coarseSlots = DEFAULT_COARSE_SLOTS;
        private Duration longDelayThreshold = DEFAULT_LONG_DELAY_THRESHOLD;
        private int dispatchThreads = DEFAULT_DISPATCH_THREADS;
        private int dispatchQueueCapacity = DEFAULT_DISPATCH_QUEUE_CAPACITY;
        private Duration dispatchLead = DEFAULT_DISPATCH_LEAD;
        private Ticker ticker = Ticker.systemTicker();
        private Executor dispatchExecutor;
        private int expectedInstances;

        private Builder() {
        }

        public Builder preciseTick(Duration tick) {
            this.preciseTick = atLeastOneMicro("preciseTick", tick);
            return this;
        }

        public Builder preciseSlots(int slots) {
            this.preciseSlots = positive("preciseSlots", slots);
            return this;
        }

        public Builder coarseTick(Duration tick) {
            this.coarseTick = atLeastOneMicro("coarseTick", tick);
            return this;
        }

        public Builder coarseSlots(int slots) {
            this.coarseSlots = positive("coarseSlots", slots);
            return this;
        }

        /** Delays up to this go straight to the precise wheel; the coarse wheel hands longer ones over this early. */
        public Builder longDelayThreshold(Duration threshold) {
            this.longDelayThreshold = atLeastOneMicro("longDelayThreshold", threshold);
            return this;
        }

        /**
         * Threads of the service's own dispatch executor (default 1, see {@link #DEFAULT_DISPATCH_THREADS}). More run
         * slow tasks side by side, at a cost in lateness.
         */
        public Builder dispatchThreads(int threads) {
            this.dispatchThreads = positive("dispatchThreads", threads);
            return this;
        }

        public Builder dispatchQueueCapacity(int capacity) {
            this.dispatchQueueCapacity = positive("dispatchQueueCapacity", capacity);
            return this;
        }

        /**
         * How early the precise wheel hands an instance to the service's own dispatch executor, which holds it until
         * its deadline (see the class comment); zero hands it over at its deadline. Used only with the system ticker
         * and the service's own executor.
         */
        public Builder dispatchLead(Duration lead) {
            Objects.requireNonNull(lead, "dispatchLead");
            if (lead.isNegative()) {
                throw new IllegalArgumentException("dispatchLead must not be negative: " + lead);
            }
            this.dispatchLead = lead;
            return this;
        }

        /**
         * Sizes CARGO for this many pending instances from the start (about 5.3 bytes each), so that reaching it costs
         * no rehash; it never shrinks below that. Default 0: it starts small, grows at 3/4 full and shrinks again.
         */
        public Builder expectedInstances(int instances) {
            if (instances < 0) {
                throw new IllegalArgumentException("expectedInstances must not be negative: " + instances);
            }
            this.expectedInstances = instances;
            return this;
        }

        /** Monotonic time source for both wheels. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Runs dispatches on this executor instead of the bounded pool the service would build (dispatchThreads and
         * dispatchQueueCapacity are then ignored). The service does not shut it down. It should reject rather than
         * block when full: the precise wheel defers rejected work.
         */
        public Builder dispatchExecutor(Executor executor) {
            this.dispatchExecutor = Objects.requireNonNull(executor, "dispatchExecutor");
            return this;
        }

        public InstanceTimeWheelService build() {
            if (dispatchLead.compareTo(longDelayThreshold) >= 0) {
                throw new IllegalArgumentException("dispatchLead (" + dispatchLead
                        + ") must be shorter than longDelayThreshold (" + longDelayThreshold + ")");
            }
            if (longDelayThreshold.compareTo(preciseTick) < 0) {
                throw new IllegalArgumentException("longDelayThreshold (" + longDelayThreshold
                        + ") must not be shorter than preciseTick (" + preciseTick + ")");
            }
            InstanceTimeWheelService service = new InstanceTimeWheelService(this);
            log.info("instance time wheel started: precise {} x {}, coarse {} x {}, long-delay threshold {}, dispatch {}",
                    preciseTick, preciseSlots, coarseTick, coarseSlots, longDelayThreshold,
                    dispatchExecutor != null ? "external executor"
                            : "threads " + dispatchThreads + ", queue " + dispatchQueueCapacity + ", lead "
                                    + Duration.ofNanos(service.dispatchLeadNanos)); // 0 unless on the system ticker
            return service;
        }

        private static Duration atLeastOneMicro(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.compareTo(Duration.ofNanos(1_000)) < 0) {
                throw new IllegalArgumentException(name + " must be at least 1 microsecond: " + value);
            }
            return value;
        }

        private static int positive(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
