package dev.tickwheel.timer;

import com.google.common.base.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.jctools.util.PaddedAtomicLong;

/**
 * A hashed timing wheel with one worker thread, exact deadlines and no idle ticking.
 *
 * <p>Thread-safe: {@link #schedule}, {@link #accept} and {@link TimerFuture#cancel()} may be called from any thread,
 * {@link #stop()} from any thread but the worker. Only the worker thread touches the buckets (single writer): producers
 * hand new timeouts over through a lock-free MPSC queue and the worker links and unlinks nodes. A cancel only changes
 * the node's state and counts itself; the worker drops cancelled nodes (see Cancelled nodes).
 *
 * <h2>How the worker waits</h2>
 *
 * Each pass reads the ticker once ({@code now}), drains up to {@code maxTransfersPerPass} new
 * timeouts (one already due is expired in this pass, never a revolution later), retries deferred timeouts and expires
 * every bucket that holds a deadline at or before {@code now}. It then parks until the earliest pending deadline
 * ({@link TimingWheel#nextDeadline()}) or deferred retry, not until the next tick, and without a deadline when it
 * holds nothing: a timer fires at its deadline plus the park's wake-up latency, and a wheel whose next deadline is an
 * hour away sleeps for an hour unless a sooner timeout or a cancel wakes it.
 *
 * <p>Before parking the worker publishes its wake-up time in {@code wakeAtNanos}, then re-checks both queues. A
 * producer first enqueues, then reads {@code wakeAtNanos} and unparks the worker only if its deadline is earlier. Both
 * sides write then read volatile state in opposite order (a queue's producer index is written by an atomic add), so
 * at least one of them sees the other: a sooner timeout is never stranded behind a long park, and most schedule calls
 * do not pay for an unpark. A cancel does not wake the worker, except once per {@link #CANCELS_PER_WAKE} cancels.
 *
 * <h2>Cancelled nodes</h2>
 *
 * A cancel never touches the wheel: it flips the node's state (the task will not run) and increments a counter. The
 * node stays linked until the worker drops it: when its bucket is expired (a cancelled node is dropped, not fired), or
 * by a sweep, which walks the buckets unlinking every cancelled node. A sweep starts when at least
 * {@link #CANCELS_PER_WAKE} cancels have been counted since the last one started and they are at least half of what
 * the wheel holds; it visits at most {@link #SWEEP_NODES_PER_PASS} nodes a pass, so firing is never held up by more
 * than a short stretch of it. So the wheel holds at most about as many cancelled nodes as live ones, plus
 * {@link #CANCELS_PER_WAKE}, and a sweep's cost, proportional to the wheel's size, is paid for by at least half as
 * many cancels: O(1) per cancel. Whenever the timer lets go of a cancelled node (at its bucket, in a sweep, from its
 * queues) it tells the node ({@link WheelTimeout#onDropped()}), as a run that finds its node cancelled does, so that a
 * service keyed by the node can release its own entry then. Every {@link #CANCELS_PER_WAKE}-th cancel wakes a parked
 * worker to decide, so a
 * parked wheel keeps the same bound. (Nodes handed over while the worker sleeps towards an earlier deadline wait in
 * its queue until that wake-up, cancelled or not, as they always have; the pass that takes them drops the cancelled.)
 *
 * <p>Why it is safe: only the worker links and unlinks; a canceller's only writes are the state's compare-and-set and
 * the counter. A node cancelled while a sweep walks is either seen cancelled and dropped, or seen waiting and left for
 * a later sweep or its bucket; a node expired a moment before its cancel is handed on, and its run finds it cancelled
 * and does nothing (the state's compare-and-set decides, as before). The worker drops a node at most once, since it
 * unlinks it, so {@link TimerStats#cancelled()} counts each once. Why not a queue of cancelled nodes for the worker to
 * unlink one by one: that costs every cancel a queue slot, and the worker an unlink that writes the two neighbours'
 * links, lines the cancelling core then has to fetch back; measured, the cancel rate rose by about a fifth without it.
 *
 * <h2>Expiry</h2>
 *
 * A due timeout goes to the executor if one is configured, to the expiry handler if one is configured (the staging
 * wheel of a two-tier service moves it to a finer timer), or runs on the worker otherwise. The worker does not wait for
 * room in the executor: when it rejects, the timeout is deferred by one tick and {@link TimerStats#deferred()} counts
 * it. An executor that throws anything else is reported to the failure handler and treated the same way, so neither the
 * worker nor the timeout is lost. The worker does not use interrupts: one that a task, a handler or a direct executor
 * leaves set on the worker thread is cleared before anything else runs there.
 *
 * <p>Caveats: timeouts due in the same pass are not ordered. Lateness is the park's wake-up latency (tens of
 * microseconds on Linux) plus the time to expire the timeouts before it (and to run them, without an executor); with a
 * saturated executor, one tick per retry. A timer built with an expiry lead fires that much early, by design. A
 * cancelled node's memory is released when its bucket is reached or a sweep drops it (above), not at once;
 * {@link TimerStats#pending()} counts it until then, and a wheel that holds only cancelled nodes still wakes at their
 * deadlines to drop them.
 *
 * <p>A timer's range is {@code Long.MAX_VALUE} ns (292 years) of its ticker from when it is built: a deadline beyond it
 * is refused. Should the ticker pass that end, time stands still at the end for the timer: everything pending fires and
 * only timeouts due now are accepted.
 */
public final class HashedWheelTimer implements Timer {

    /** Default bucket width. */
    public static final long DEFAULT_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Default number of buckets. */
    public static final int DEFAULT_TICKS_PER_WHEEL = 4096;
    /** Default bound on hand-offs moved into the wheel per worker pass (Netty's figure). */
    public static final int DEFAULT_MAX_TRANSFERS_PER_PASS = 100_000;
    /** Largest number of buckets. */
    public static final int MAX_TICKS_PER_WHEEL = 1 << 30;
    /**
     * Every this-many-th cancel wakes a parked worker to decide on a sweep, and a sweep needs at least this many
     * cancels since the last one. A power of 2.
     */
    public static final int CANCELS_PER_WAKE = 4096;
    /** At most this many nodes are visited by a sweep per worker pass, between two expiries. */
    public static final int SWEEP_NODES_PER_PASS = 4096;

    private static final int INIT = 0;
    private static final int STARTED = 1;
    private static final int STOPPED = 2;
    /** {@link #wakeAtNanos} while the worker is running a pass: producers need not unpark it. */
    private static final long AWAKE = Long.MIN_VALUE;
    /** {@link #wakeAtNanos} while the worker is parked with nothing to wait for: any new timeout must unpark it. */
    private static final long IDLE = Long.MAX_VALUE;

    private static final VarHandle WAKE_AT;

    static {
        try {
            WAKE_AT = MethodHandles.lookup().findVarHandle(HashedWheelTimer.class, "wakeAtNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Ticker ticker;
    private final WorkerParker parker;
    private final long tickNanos;
    private final long originNanos;
    private final long expiryLeadNanos;
    private final int maxTransfersPerPass;
    private final Executor executor;
    private final Consumer<WheelTimeout> expiryHandler;
    private final BiConsumer<TimerFuture, Throwable> failureHandler;
    private final Thread worker;

    private final MpscUnboundedXaddArrayQueue<WheelTimeout> transfers = new MpscUnboundedXaddArrayQueue<>(1024);
    // Cancels counted while this timer owned the node; incremented by cancelling threads, read by the worker. Padded
    // to a cache line of its own: as a plain AtomicLong it sat beside objects the worker writes on every pass, and a
    // third of a cancel's time went to fetching that line back (JFR, ThroughputHarness's cancel phase).
    private final PaddedAtomicLong cancelRequests = new PaddedAtomicLong();

    // Confined to the worker thread.
    private final TimingWheel wheel;
    private final WheelTimeout deferred = new WheelTimeout();
    private long deferredCount;
    private long retryDeferredAtNanos; // ticker time, compared by subtraction
    private long passNowNanos;
    private boolean saturatedThisPass;
    private long cancelRequestsAtSweepStart;

    // volatile: lifecycle state machine, changed by CAS from start() and stop().
    private final AtomicInteger lifecycle = new AtomicInteger(INIT);
    // volatile: the worker's park deadline (rel ns), IDLE or AWAKE; read by producers to decide whether to unpark.
    private volatile long wakeAtNanos = AWAKE;
    // volatile: set by the worker on exit, read by stop() once workerExited is open.
    private volatile List<TimerFuture> unprocessed = List.of();
    // Opened by the worker as it exits (or by start() if the thread could not be started). stop() waits on this, not
    // on Thread.isAlive(): between start()'s state change and Thread.start() the worker is not alive yet, and timeouts
    // accepted in that window must come back from stop().
    private final CountDownLatch workerExited = new CountDownLatch(1);

    // Written by many threads.
    private final LongAdder scheduled = new LongAdder();
    private final LongAdder failed = new LongAdder();
    // Written only by the worker (it counts a cancelled node when it drops it, so each is counted once, by the
    // timer that owned it); volatile so stats() sees recent values.
    private volatile long expired;
    private volatile long cancelled;
    private volatile long deferrals;

    private HashedWheelTimer(Builder b) {
        this.ticker = b.ticker;
        this.parker = WorkerParker.forTicker(b.ticker);
        this.tickNanos = b.tickNanos;
        this.expiryLeadNanos = b.expiryLeadNanos;
        this.maxTransfersPerPass = b.maxTransfersPerPass;
        this.executor = b.executor;
        this.expiryHandler = b.expiryHandler;
        this.failureHandler = b.failureHandler;
        this.originNanos = ticker.read();
        // The wheel measures a node's deadline from origin + lead while "now" is measured from origin, so a timeout
        // with deadline d expires when now reaches d - lead.
        this.wheel = new TimingWheel(tickNanos, b.ticksPerWheel, originNanos + expiryLeadNanos);
        this.worker = b.threadFactory.newThread(this::runWorker);
        if (worker == null) {
            throw new IllegalStateException("thread factory returned null");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the worker thread. Idempotent; {@link #schedule} and {@link #accept} call it. If the thread cannot be
     * started, what {@link Thread#start()} threw propagates, the timer is stopped and the timeouts other threads handed
     * over meanwhile are cancelled.
     *
     * @throws IllegalStateException if the timer has been stopped
     */
    public void start() {
        switch (lifecycle.get()) {
            case INIT -> startWorkerOnce();
            case STARTED -> {
            }
            default -> throw new IllegalStateException("cannot be started once stopped");
        }
    }

    private void startWorkerOnce() {
        if (lifecycle.compareAndSet(INIT, STARTED)) {
            parker.workerStarted(worker);
            try {
                worker.start();
            } catch (Throwable t) {
                // No worker will ever run (out of native threads, say). Stop, and cancel what other threads handed
                // over meanwhile: nothing could ever fire it. This thread is the queues' only consumer now.
                lifecycle.set(STOPPED);
                collectUnprocessed().forEach(TimerFuture::cancel);
                parker.workerStopped(worker);
                workerExited.countDown();
                throw t;
            }
        }
    }

    @Override
    public TimerFuture schedule(Runnable task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        return schedule(new WheelTimeout(task), unit.toNanos(delay));
    }

    /**
     * Schedules a timeout node created by the caller (a subclass of {@link WheelTimeout} can carry its own key).
     *
     * @param delayNanos delay; zero or negative means due now
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if the deadline would overflow
     * @throws IllegalStateException if the node was already scheduled (by this or another timer, or by a racing call)
     *                               or is no longer waiting (cancelled or started)
     * @throws RejectedExecutionException if the timer has been stopped
     */
    public <T extends WheelTimeout> T schedule(T timeout, long delayNanos) {
        Objects.requireNonNull(timeout, "timeout");
        if (!timeout.isPending()) {
            throw new IllegalStateException("timeout is no longer waiting: " + timeout);
        }
        if (timeout.owner != null) {
            throw new IllegalStateException("timeout already scheduled: " + timeout);
        }
        startForScheduling();
        long nowNanos = ticker.read();
        long elapsedNanos = relativeNow(nowNanos);
        long delay = Math.max(delayNanos, 0);
        if (delay > Long.MAX_VALUE - elapsedNanos) {
            throw new IllegalArgumentException("delayNanos too large, the deadline would overflow: " + delayNanos);
        }
        if (!timeout.claim(this)) {
            throw new IllegalStateException("timeout already scheduled: " + timeout);
        }
        timeout.deadlineNanos = nowNanos + delay;
        enqueue(timeout);
        return timeout;
    }

    /**
     * Takes over a waiting timeout that another timer has just expired (typically through its expiry handler), keeping
     * its deadline. This is the hand-off of a two-tier service: the node, and so the caller's handle, stays the same.
     * A timeout cancelled meanwhile is accepted and then dropped.
     *
     * @throws IllegalStateException if the timeout is still linked in a wheel
     * @throws RejectedExecutionException if this timer has been stopped
     */
    public void accept(WheelTimeout timeout) {
        Objects.requireNonNull(timeout, "timeout");
        startForScheduling();
        if (timeout.isLinked()) {
            throw new IllegalStateException("timeout is still linked in a wheel: " + timeout);
        }
        timeout.owner = this;
        enqueue(timeout);
    }

    private void startForScheduling() {
        if (lifecycle.get() == INIT) {
            startWorkerOnce();
        }
        if (lifecycle.get() == STOPPED) {
            throw new RejectedExecutionException("timer is stopped");
        }
    }

    /** Hands a timeout this timer owns (claimed by {@code schedule}, or set by {@code accept}) to the worker. */
    private void enqueue(WheelTimeout timeout) {
        scheduled.increment();
        transfers.offer(timeout);
        if (lifecycle.get() == STOPPED && timeout.cancel()) {
            // The worker may have drained the queue for the last time before our offer: make sure the task cannot run
            // later and tell the caller. If the cancel loses, the worker did collect it and stop()'s caller has
            // already run or cancelled it; then it counts as accepted.
            scheduled.decrement();
            throw new RejectedExecutionException("timer is stopped");
        }
        long deadlineRel = timeout.deadlineNanos - originNanos - expiryLeadNanos;
        for (long wakeAt = wakeAtNanos; wakeAt != AWAKE && (deadlineRel < wakeAt || wakeAt == IDLE);
                wakeAt = wakeAtNanos) {
            if (WAKE_AT.compareAndSet(this, wakeAt, AWAKE)) {
                parker.unpark(worker);
                break;
            }
        }
    }

    /** Called by {@link WheelTimeout#cancel()} after the CAS won while this timer owned the node. */
    void cancelRequested() {
        if (lifecycle.get() == STOPPED) {
            return;
        }
        // A full fence (atomic add) before reading wakeAtNanos, as a producer's offer before its read: a worker about
        // to park re-checks sweepDue() after publishing wakeAtNanos, so one of the two sees the other.
        long count = cancelRequests.incrementAndGet();
        if ((count & (CANCELS_PER_WAKE - 1)) == 0) {
            long wakeAt = wakeAtNanos;
            if (wakeAt != AWAKE && WAKE_AT.compareAndSet(this, wakeAt, AWAKE)) {
                parker.unpark(worker);
            }
        }
    }

    void taskFailed(TimerFuture timeout, Throwable failure) {
        failed.increment();
        try {
            failureHandler.accept(timeout, failure);
        } catch (Throwable ignored) {
            // A failing failure handler must not take the worker down; the counter above still records it.
        }
    }

    /**
     * Stops the worker and returns the timeouts that were still waiting in it, including those accepted while the
     * worker thread was still starting. They are left waiting, not cancelled: this timer will never run them, their
     * owner may run or cancel them. Timeouts already handed to the executor are not returned and may still run. Must
     * not be called from the worker thread. If the calling thread is interrupted while waiting for the worker to exit,
     * it keeps waiting and its interrupt flag is restored.
     *
     * @throws IllegalStateException if called from the worker thread
     */
    @Override
    public List<TimerFuture> stop() {
        if (Thread.currentThread() == worker) {
            throw new IllegalStateException("stop() cannot be called from the timer's worker thread");
        }
        int previous = lifecycle.getAndSet(STOPPED);
        if (previous != STARTED) {
            return List.of();
        }
        boolean interrupted = false;
        while (workerExited.getCount() > 0 || worker.isAlive()) {
            parker.unpark(worker);
            try {
                if (workerExited.await(100, TimeUnit.MILLISECONDS)) {
                    worker.join(100);
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return unprocessed;
    }

    /** Whether {@link #stop()} has been called, or the worker thread could not be started. */
    public boolean isStopped() {
        return lifecycle.get() == STOPPED;
    }

    /** The ticker this timer reads; deadlines are in its nanoseconds. */
    public Ticker ticker() {
        return ticker;
    }

    /** The counters so far; see {@link TimerStats} for what each counts. */
    public TimerStats stats() {
        long s = scheduled.sum();
        long e = expired;
        long c = cancelled;
        return new TimerStats(s, e, c, deferrals, failed.sum(), Math.max(0, s - e - c));
    }

    private void runWorker() {
        try {
            while (lifecycle.get() == STARTED) {
                wakeAtNanos = AWAKE;
                // Interrupts are not used to stop the worker (stop() unparks it); clear them so a park cannot spin.
                Thread.interrupted();
                long nowNanos = ticker.read();
                long nowRel = relativeNow(nowNanos);
                passNowNanos = nowNanos;
                saturatedThisPass = false;
                boolean backlog = drainTransfers(nowRel);
                retryDeferred(nowNanos);
                cancelled += wheel.expire(nowRel, this::expire);
                boolean sweeping = sweep();
                if (backlog || sweeping) {
                    continue;
                }
                // Idleness is decided by what is held, not by a sentinel deadline: at the end of the range
                // (nowRel == Long.MAX_VALUE) "no deadline" would otherwise look due and the worker would never park.
                boolean idle = wheel.size() == 0 && deferredCount == 0;
                long waitNanos = idle ? Long.MAX_VALUE : nanosUntilNextWork(nowNanos, nowRel);
                if (waitNanos <= 0) {
                    continue;
                }
                wakeAtNanos = idle ? IDLE : nowRel + Math.min(waitNanos, Long.MAX_VALUE - nowRel);
                // A producer or canceller that ran after this pass drained its queue but read wakeAtNanos before the
                // line above saw AWAKE and did not unpark us: its item is in a queue now, so pass again.
                if (!transfers.isEmpty() || sweepDue() || lifecycle.get() != STARTED) {
                    continue;
                }
                if (idle) {
                    parker.parkIndefinitely();
                } else {
                    parker.parkUntil(nowNanos + waitNanos); // may wrap: parkers compare ticker times by subtraction
                }
            }
        } finally {
            try {
                unprocessed = collectUnprocessed();
                parker.workerStopped(worker);
            } finally {
                // Whatever failed above, stop() must not wait forever.
                workerExited.countDown();
            }
        }
    }

    /**
     * Ticker time since the origin. A timer's range is {@code Long.MAX_VALUE} ns (292 years) of its ticker from the
     * origin; past its end the difference would wrap negative, so the timer stays at the end of its range instead.
     */
    private long relativeNow(long nowNanos) {
        long rel = nowNanos - originNanos;
        return rel < 0 ? Long.MAX_VALUE : rel;
    }

    /** Nanoseconds until the earliest deadline in the wheel or the deferred retry; not positive if one is due. */
    private long nanosUntilNextWork(long nowNanos, long nowRel) {
        long waitNanos = wheel.size() == 0 ? Long.MAX_VALUE : wheel.nextDeadline() - nowRel;
        return deferredCount == 0 ? waitNanos : Math.min(waitNanos, retryDeferredAtNanos - nowNanos);
    }

    /** Whether enough cancels have been counted since the last sweep started for another: see Cancelled nodes. */
    private boolean sweepDue() {
        long since = cancelRequests.get() - cancelRequestsAtSweepStart;
        return since >= CANCELS_PER_WAKE && since >= wheel.size() / 2;
    }

    /**
     * Starts a sweep if one is due, and runs a stretch of the one under way.
     *
     * @return whether a sweep is still under way (the worker passes again instead of parking)
     */
    private boolean sweep() {
        if (!wheel.isSweeping()) {
            if (!sweepDue()) {
                return false;
            }
            cancelRequestsAtSweepStart = cancelRequests.get();
            wheel.startSweep();
        }
        cancelled += wheel.sweep(SWEEP_NODES_PER_PASS);
        return wheel.isSweeping();
    }

    /** @return whether more hand-offs are waiting than one pass may move */
    private boolean drainTransfers(long nowRel) {
        for (int i = 0; i < maxTransfersPerPass; i++) {
            WheelTimeout timeout = transfers.relaxedPoll();
            if (timeout == null) {
                return false;
            }
            if (!timeout.isPending()) {
                cancelled++;
                timeout.dropped();
                continue;
            }
            if (wheel.relative(timeout) <= Math.max(nowRel, wheel.expiredUpTo())) {
                // Due already, or in a part of time the wheel has passed: expire in this pass, not a revolution later.
                expire(timeout);
            } else {
                wheel.add(timeout);
            }
        }
        return !transfers.isEmpty();
    }

    private void expire(WheelTimeout timeout) {
        if (executor != null) {
            if (saturatedThisPass || !submit(timeout)) {
                defer(timeout);
            }
            return;
        }
        expired++;
        try {
            if (expiryHandler != null) {
                expiryHandler.accept(timeout);
            } else {
                timeout.run(); // reports a failing task itself
            }
        } catch (Throwable t) {
            taskFailed(timeout, t);
        } finally {
            clearInterruptLeftByUserCode();
        }
    }

    /**
     * Clears the worker's interrupt flag after user code ran on it (a task run inline, an expiry handler, a direct
     * executor, a failure handler): the flag was that code's business, not the next task's, and the worker itself does
     * not use interrupts (stop() unparks it).
     */
    private static void clearInterruptLeftByUserCode() {
        Thread.interrupted();
    }

    /** @return whether the executor took the timeout; if not, it is still waiting and the caller defers it */
    private boolean submit(WheelTimeout timeout) {
        // Counted before the hand-off, taken back if refused: whoever sees the task's effects (it may run and finish
        // before execute returns) also sees it counted, so the stats never show as pending a task that has run.
        expired++;
        try {
            executor.execute(timeout);
            return true;
        } catch (RejectedExecutionException e) {
            expired--;
            saturatedThisPass = true;
            return false;
        } catch (Throwable t) {
            // A broken executor, not a full one. The worker must outlive it (it is the only thread that fires anything)
            // and the timeout must not be lost, so it is reported and then retried like a rejected one - unless the
            // executor started it before throwing.
            taskFailed(timeout, t);
            if (timeout.isStarted()) {
                return true;
            }
            expired--;
            saturatedThisPass = true;
            return false;
        } finally {
            clearInterruptLeftByUserCode();
        }
    }

    private void defer(WheelTimeout timeout) {
        timeout.linkBefore(deferred);
        if (deferredCount++ == 0) {
            retryDeferredAtNanos = passNowNanos + tickNanos;
        }
        deferrals++;
    }

    private void retryDeferred(long nowNanos) {
        if (deferredCount == 0 || nowNanos - retryDeferredAtNanos < 0) {
            return;
        }
        retryDeferredAtNanos = nowNanos + tickNanos;
        while (deferred.next != deferred && !saturatedThisPass) {
            WheelTimeout timeout = deferred.next;
            timeout.unlink();
            deferredCount--;
            if (!timeout.isPending()) {
                cancelled++;
                timeout.dropped();
                continue;
            }
            if (!submit(timeout)) {
                // Keep the order: put it back first in line.
                timeout.linkBefore(deferred.next);
                deferredCount++;
                deferrals++;
            }
        }
    }

    private List<TimerFuture> collectUnprocessed() {
        List<TimerFuture> result = new ArrayList<>();
        wheel.drainTo(result::add);
        while (deferred.next != deferred) {
            WheelTimeout timeout = deferred.next;
            timeout.unlink();
            if (timeout.isPending()) {
                result.add(timeout);
            }
        }
        deferredCount = 0;
        WheelTimeout timeout;
        while ((timeout = transfers.poll()) != null) {
            if (timeout.isPending() && timeout.owner == this) {
                result.add(timeout);
            }
        }
        return List.copyOf(result);
    }

    /**
     * Builds a {@link HashedWheelTimer}. Mutable, not thread-safe.
     */
    public static final class Builder {
        private Ticker ticker = Ticker.systemTicker();
        private long tickNanos = DEFAULT_TICK_NANOS;
        private int ticksPerWheel = DEFAULT_TICKS_PER_WHEEL;
        private long expiryLeadNanos;
        private int maxTransfersPerPass = DEFAULT_MAX_TRANSFERS_PER_PASS;
        private Executor executor;
        private Consumer<WheelTimeout> expiryHandler;
        private ThreadFactory threadFactory;
        private BiConsumer<TimerFuture, Throwable> failureHandler = (timeout, failure) -> {
            Thread thread = Thread.currentThread();
            thread.getUncaughtExceptionHandler().uncaughtException(thread, failure);
        };

        private Builder() {
        }

        /** Monotonic time source; a ticker that also implements {@link WorkerParker} drives the worker's waits. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Width of one bucket; at least 1 microsecond. */
        public Builder tickDuration(long duration, TimeUnit unit) {
            long nanos = unit.toNanos(duration);
            if (nanos < 1_000) {
                throw new IllegalArgumentException("tickDuration must be at least 1 microsecond: " + nanos + " ns");
            }
            this.tickNanos = nanos;
            return this;
        }

        /** Number of buckets, rounded up to a power of 2. */
        public Builder ticksPerWheel(int ticksPerWheel) {
            if (ticksPerWheel < 1 || ticksPerWheel > MAX_TICKS_PER_WHEEL) {
                throw new IllegalArgumentException(
                        "ticksPerWheel must be in 1.." + MAX_TICKS_PER_WHEEL + ": " + ticksPerWheel);
            }
            this.ticksPerWheel = ticksPerWheel == 1 ? 1 : Integer.highestOneBit(ticksPerWheel - 1) << 1;
            return this;
        }

        /**
         * Expire every timeout this long before its deadline. Only for a staging wheel whose expiry handler moves
         * timeouts to a finer timer (which then fires them on time); the default is zero, and a timer with a lead
         * fires early by design.
         */
        public Builder expiryLead(long lead, TimeUnit unit) {
            long nanos = unit.toNanos(lead);
            if (nanos < 0) {
                throw new IllegalArgumentException("expiryLead must not be negative: " + nanos + " ns");
            }
            this.expiryLeadNanos = nanos;
            return this;
        }

        /** At most this many new timeouts move into the wheel per worker pass, so a burst cannot stall firing. */
        public Builder maxTransfersPerPass(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxTransfersPerPass must be positive: " + max);
            }
            this.maxTransfersPerPass = max;
            return this;
        }

        /**
         * Runs due tasks on this executor; the worker never runs them itself. It should reject rather than block when
         * full. A rejection defers the task by a tick; any other exception from {@code execute} is reported to the
         * failure handler and also defers it.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Passes due timeouts to this handler on the worker thread instead of running them. The handler must be quick
         * and must not block. A handler that throws is reported to the failure handler; this timer counts the timeout
         * as expired and does not keep it.
         */
        public Builder expiryHandler(Consumer<WheelTimeout> handler) {
            this.expiryHandler = Objects.requireNonNull(handler, "expiryHandler");
            return this;
        }

        /** Creates the worker thread; the default makes a daemon thread named {@code tickwheel-timer-<n>}. */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * Told about every task that throws and every exception other than a rejection that the executor throws. The
         * default hands it to the thread's uncaught exception handler.
         */
        public Builder failureHandler(BiConsumer<TimerFuture, Throwable> handler) {
            this.failureHandler = Objects.requireNonNull(handler, "failureHandler");
            return this;
        }

        public HashedWheelTimer build() {
            if (executor != null && expiryHandler != null) {
                throw new IllegalArgumentException("set an executor or an expiry handler, not both");
            }
            if (threadFactory == null) {
                threadFactory = new DefaultWorkerThreadFactory();
            }
            return new HashedWheelTimer(this);
        }
    }

    private static final class DefaultWorkerThreadFactory implements ThreadFactory {
        private static final AtomicInteger SEQUENCE = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread thread = new Thread(r, "tickwheel-timer-" + SEQUENCE.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
