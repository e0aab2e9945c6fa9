package dev.tickwheel.server.wheel;

import com.google.common.base.Ticker;
import dev.tickwheel.timer.HashedWheelTimer;
import dev.tickwheel.timer.TimerFuture;
import dev.tickwheel.timer.TimerStats;
import dev.tickwheel.timer.WheelTimeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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
 * <p>One {@link InstanceTimeout} object is everything an instance has: its wheel node, its CARGO entry and the
 * caller's {@link TimerFuture}. Its state leaves WAITING exactly once, by a compare-and-set: to CANCELLED in
 * {@code cancel}, or to STARTED on the dispatch thread right before the task runs. The hand-off does not change the
 * state, so it can neither win nor lose against a cancel. Worked example, instance 43 scheduled for 3 h:
 *
 * <pre>
 *   t = 0          schedule(43, 3h)  CARGO[43] = node; coarse wheel holds node (expires at 3h - 60s)
 *   t = 3h - 60s   coarse worker: node due -> precise.accept(node): node.owner = precise; precise queue += node
 *   same instant   cancel(43) on another thread: CAS WAITING -> CANCELLED wins, CARGO[43] removed, returns true;
 *                  the wheel that owns the node only counts the cancel. Whichever wheel holds the node drops it
 *                  without running it: the precise worker, which reads the state after the hand-off, finds it
 *                  CANCELLED when it takes it from its queue, or, had it linked it already, on reaching its bucket or
 *                  in a sweep; had the hand-off not happened yet, the coarse wheel drops it the same way. Either way
 *                  the node is released and never runs.
 *   t = 3h         (had nobody cancelled) precise worker submits node; dispatch thread: CAS WAITING -> STARTED
 *                  wins, CARGO[43] removed, task runs. A cancel from now on finds no entry, or loses the CAS: false.
 * </pre>
 *
 * <p>So {@code cancel} returns {@code true} iff the task will never run, for any delay (including 0), and it never
 * returns {@code false} for an instance that has not started: an instance queued in the executor, or deferred because
 * the executor was full, is still WAITING and still cancellable.
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
    /** Largest accepted delay (about 146 years): beyond it a monotonic deadline could overflow. */
    public static final long MAX_DELAY_MS = Long.MAX_VALUE / 2 / 1_000_000;

    private static final Logger log = LoggerFactory.getLogger(InstanceTimeWheelService.class);

    private final PendingInstanceIndex cargo;
    private final HashedWheelTimer precise;
    private final HashedWheelTimer coarse;
    private final long thresholdNanos;
    private final ThreadPoolExecutor ownedExecutor;
    // CAS: close() is idempotent and schedule() must see it.
    private final AtomicBoolean closed = new AtomicBoolean();

    private InstanceTimeWheelService(Builder b) {
        this.thresholdNanos = b.longDelayThreshold.toNanos();
        this.cargo = new PendingInstanceIndex(Math.max(16, Runtime.getRuntime().availableProcessors() * 8));
        Executor executor = b.dispatchExecutor;
        if (executor == null) {
            this.ownedExecutor = new ThreadPoolExecutor(b.dispatchThreads, b.dispatchThreads, 0, TimeUnit.MILLISECONDS,
                    new ArrayBlockingQueue<>(b.dispatchQueueCapacity), namedThreads("tickwheel-dispatch-"),
                    new ThreadPoolExecutor.AbortPolicy());
            // Started now rather than by the first dispatches, which would otherwise pay for thread creation.
            ownedExecutor.prestartAllCoreThreads();
            executor = ownedExecutor;
        } else {
            this.ownedExecutor = null;
        }
        this.precise = HashedWheelTimer.builder()
                .ticker(b.ticker)
                .tickDuration(b.preciseTick.toNanos(), TimeUnit.NANOSECONDS)
                .ticksPerWheel(b.preciseSlots)
                .executor(executor)
                .failureHandler(InstanceTimeWheelService::taskFailed)
                .threadFactory(namedThreads("tickwheel-precise-wheel-"))
                .build();
        this.coarse = HashedWheelTimer.builder()
                .ticker(b.ticker)
                .tickDuration(b.coarseTick.toNanos(), TimeUnit.NANOSECONDS)
                .ticksPerWheel(b.coarseSlots)
                .expiryLead(thresholdNanos, TimeUnit.NANOSECONDS)
                .expiryHandler(this::handOff)
                .failureHandler(InstanceTimeWheelService::handOffFailed)
                .threadFactory(namedThreads("tickwheel-coarse-wheel-"))
                .build();
        precise.start();
        coarse.start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Schedules {@code task} to run once, no earlier than {@code delayMs} from now, under {@code uniqueId}.
     *
     * @param delayMs zero or negative means due now: it runs on the dispatch executor, never on the caller's thread
     * @return the instance's handle; the same object {@link #fetchTimerFuture} returns
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalArgumentException if {@code delayMs} exceeds {@link #MAX_DELAY_MS}
     * @throws IllegalStateException if an instance with this ID is still pending
     * @throws RejectedExecutionException if the service is closed
     */
    public TimerFuture schedule(long uniqueId, long delayMs, Runnable task) {
        Objects.requireNonNull(task, "task");
        if (delayMs > MAX_DELAY_MS) {
            throw new IllegalArgumentException(
                    "delayMs too large, the deadline would overflow: " + delayMs + " (max " + MAX_DELAY_MS + ")");
        }
        if (closed.get()) {
            throw new RejectedExecutionException("InstanceTimeWheelService is closed");
        }
        InstanceTimeout node = new InstanceTimeout(uniqueId, task, cargo);
        if (cargo.putIfAbsent(node) != null) {
            throw new IllegalStateException("instance " + uniqueId + " is already scheduled and still pending");
        }
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
        try {
            if (delayNanos <= thresholdNanos) {
                precise.schedule(node, delayNanos);
            } else {
                coarse.schedule(node, delayNanos);
            }
        } catch (IllegalStateException e) {
            if (node.isCancelled()) {
                // Cancelled by ID between the index insert and the wheel: the timer refuses a cancelled node, and the
                // caller's cancel already got true, so the task never runs. The handle says so. No wheel holds the
                // node, so none will let go of it: its entry goes now.
                cargo.remove(node);
                return node;
            }
            node.cancel();
            cargo.remove(node);
            throw e;
        } catch (RuntimeException e) {
            node.cancel();
            cargo.remove(node);
            throw e;
        }
        log.trace("scheduled instance {} in {} ms", uniqueId, delayMs);
        return node;
    }

    /**
     * Cancels a pending instance.
     *
     * @return {@code true} iff the task will never run; {@code false} if the ID is unknown, already started or already
     *         cancelled
     */
    public boolean cancel(long uniqueId) {
        return cargo.cancel(uniqueId);
    }

    /** The handle of a pending instance, or empty if the ID is unknown, started or cancelled. */
    public Optional<TimerFuture> fetchTimerFuture(long uniqueId) {
        // A node leaves the index just after its state changes: do not hand out one that has started or been cancelled.
        return Optional.<TimerFuture>ofNullable(cargo.get(uniqueId)).filter(TimerFuture::isPending);
    }

    /** True until {@link #close()} is called: the wheels accept and fire timers. */
    public boolean isRunning() {
        return !closed.get();
    }

    /** Instances scheduled and neither started nor cancelled. */
    public int pendingCount() {
        return cargo.size();
    }

    /**
     * The instances whose memory the service holds: the pending ones, and the cancelled ones until their wheel lets
     * go of them (at their bucket, or in a sweep once cancels are at least half of what a wheel holds), so at most
     * about twice {@link #pendingCount()} plus {@link dev.tickwheel.timer.HashedWheelTimer#CANCELS_PER_WAKE} a wheel.
     */
    public int heldCount() {
        return cargo.entries();
    }

    public TimerStats preciseWheelStats() {
        return precise.stats();
    }

    public TimerStats coarseWheelStats() {
        return coarse.stats();
    }

    /** Dispatches waiting in the executor's queue; 0 when the executor was supplied by the caller. */
    public int dispatchQueueDepth() {
        return ownedExecutor == null ? 0 : ownedExecutor.getQueue().size();
    }

    /**
     * Stops both wheels and, if the service built it, the dispatch executor, giving tasks already running up to 10 s
     * to finish (a caller-supplied executor is left running). Every instance still pending is cancelled, wherever it
     * is, so no task starts after this returns. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<TimerFuture> notRun = new ArrayList<>(coarse.stop());
        notRun.addAll(precise.stop());
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
            List<Runnable> queued = new ArrayList<>();
            ownedExecutor.getQueue().drainTo(queued);
            queued.forEach(r -> ((WheelTimeout) r).cancel());
            awaitTermination(ownedExecutor);
        }
        notRun.forEach(TimerFuture::cancel);
        // Instances caught between the wheels (a hand-off refused because the precise wheel had stopped).
        cargo.drain().forEach(WheelTimeout::cancel);
        log.info("instance time wheel closed; {} timers released", notRun.size());
    }

    private void handOff(WheelTimeout timeout) {
        // Runs on the coarse worker at deadline - threshold. The node keeps its deadline; the state is untouched, so a
        // concurrent cancel wins or loses exactly as it would on a single wheel.
        precise.accept(timeout);
    }

    private static void taskFailed(TimerFuture timeout, Throwable failure) {
        // The task threw, or the dispatch executor failed with something other than a rejection (then it is retried).
        log.error("dispatch of {} failed", timeout, failure);
    }

    private static void handOffFailed(TimerFuture timeout, Throwable failure) {
        if (failure instanceof RejectedExecutionException) {
            log.debug("hand-off of {} refused: precise wheel stopped", timeout);
        } else {
            log.error("hand-off of {} to the precise wheel failed", timeout, failure);
        }
    }

    private static void awaitTermination(ThreadPoolExecutor executor) {
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
        // One per core: the dispatches the engine runs are short (a cache lookup, a slot, a queue hand-off), and more
        // threads than cores only queue for a core. With 4 per core the service's lateness p99 was 1.8-1.9 ms against
        // 0.55-0.60 ms with one per core on a 2-core machine (LatenessHarness, issue 26).
        private int dispatchThreads = Runtime.getRuntime().availableProcessors();
        private int dispatchQueueCapacity = DEFAULT_DISPATCH_QUEUE_CAPACITY;
        private Ticker ticker = Ticker.systemTicker();
        private Executor dispatchExecutor;

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

        public Builder dispatchThreads(int threads) {
            this.dispatchThreads = positive("dispatchThreads", threads);
            return this;
        }

        public Builder dispatchQueueCapacity(int capacity) {
            this.dispatchQueueCapacity = positive("dispatchQueueCapacity", capacity);
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
            if (longDelayThreshold.compareTo(preciseTick) < 0) {
                throw new IllegalArgumentException("longDelayThreshold (" + longDelayThreshold
                        + ") must not be shorter than preciseTick (" + preciseTick + ")");
            }
            InstanceTimeWheelService service = new InstanceTimeWheelService(this);
            log.info("instance time wheel started: precise {} x {}, coarse {} x {}, long-delay threshold {}, dispatch {}",
                    preciseTick, preciseSlots, coarseTick, coarseSlots, longDelayThreshold,
                    dispatchExecutor != null ? "external executor"
                            : dispatchThreads + " threads, queue " + dispatchQueueCapacity);
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
