package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.CallbackAttempt;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import dev.tickwheel.concurrent.Batcher;
import dev.tickwheel.concurrent.NamedThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms instances on the time wheel and, when they fire, calls their targets: each instance exactly once per attempt,
 * never more calls at once than the slots allow, and no thread waiting on a target.
 *
 * <pre>
 *  wheel fires ─► {@link CallSlots}: job, target, server slot free? ──no──► wait in that level's queue (no thread)
 *                                   │ yes (now, or when a call ends)
 *                                   ▼
 *                 {@link ClaimBatcher}: WAITING → DISPATCHING, batched compare-and-set; lost claims give slots back
 *                                   ▼
 *                 {@link TargetInvoker}: asynchronous call with the job's whole-call deadline
 *                                   ▼
 *                 {@link OutcomeRecorder}: SUCCEEDED (batched) | retry (re-armed on the wheel) | FAILED;
 *                                          then the slots come back and admit the next waiting instance
 * </pre>
 *
 * <p>Only instances of shards this member holds ({@link ShardOwnership}) go this way: a timer that fires for a shard
 * it does not hold is dropped (the owner arms its own), the claim is fenced by the store, and a claimed call does not
 * start once the lease has lapsed locally. The claimed-but-unsettled instances of each shard are counted, so that a
 * shard moving to another member is released only when none is left ({@link #claimedIn}).
 *
 * <p>So the rows DISPATCHING in the store are the calls in flight plus the claim batch being written; a crash can cut
 * only those, and start-up recovery delivers them again as the same attempt (same {@code Idempotency-Key}), or ends
 * them INTERRUPTED for AT_MOST_ONCE jobs whose call had started.
 *
 * <p>Threads: the wheel's dispatch thread asks for slots (and reads the job, usually from the cache), and hands the
 * rare store write of a skip or an orphan to the fire-write thread; the claim thread claims; the call-start threads
 * ({@code tickwheel-call-start-<n>}, one per core) build and start the calls; calls end on the HTTP client's I/O
 * threads or the handler pool; the outcome thread writes outcomes. The wheel's tick thread runs none of this.
 *
 * <p>Thread-safe. {@link #close()} once, after the wheel has stopped firing.
 */
public final class InstanceDispatcher implements AutoCloseable {

    /**
     * Calls in flight on one server, with their outcomes still being written, at most: the most rows DISPATCHING at
     * once. 4 000 measured better than 2 000 against a fast receiver (docs/e2e-benchmark.md), where slots wait for
     * batched outcome writes.
     */
    public static final int DEFAULT_MAX_CALLS_IN_FLIGHT = 4_000;
    /** Calls in flight to one webhook host (scheme, host, port), at most. */
    public static final int DEFAULT_MAX_CALLS_PER_HOST = 500;
    /** The whole-call deadline of a job that sets none. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How long a fired instance waits for a slot to rank as one priority step higher ({@link CallSlots}): a priority-0
     * instance waits at most 9 s longer than a priority-9 one that fired at the same time.
     */
    public static final Duration PRIORITY_AGING = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(InstanceDispatcher.class);
    private static final int MAX_ERROR_LENGTH = 2000;
    private static final Duration CLAIM_RETRY_DELAY = Duration.ofSeconds(1);

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final PoolCatalog pools;
    private final ShardOwnership ownership;
    private final TargetRouter targets;
    private final InstanceTimeWheelService wheel;
    private final Clock clock;
    private final DispatchListener listener;
    private final CompletionListener completions;
    private final Duration defaultTimeout;
    private final CallSlots slots;
    private final ClaimBatcher claims;
    private final OutcomeRecorder outcomes;
    /** Fired instances whose job is not cached, read in batches by one thread ({@code tickwheel-job-read-1}). */
    private final Batcher<Fired> jobReads;
    /**
     * The fire path's own store writes, a skip or an orphan's failure, on one thread ({@code tickwheel-fire-write-1}):
     * the wheel's dispatch thread (one) runs every fire of the member and must not wait on the store.
     */
    private final Batcher<Runnable> fireWrites;
    /**
     * Starts calls: building a webhook's body and handing it to the HTTP client costs more CPU than the claim
     * statement, so the claim thread hands each claimed instance here rather than starting it itself. Unbounded
     * queue, bounded in effect by the server's call slots.
     */
    private final ThreadPoolExecutor callStarters;
    /** Wakes pools whose rate holds back their waiting instances ({@code tickwheel-pool-rate-1}). */
    private final ScheduledThreadPoolExecutor poolWakeups;
    /**
     * Instances between their timer firing and the end of their claim (reading the job, waiting for a slot, in a
     * claim batch): not on the wheel, yet still this member's business. A sweep arms a waiting instance only if it is
     * neither here nor on the wheel ({@link #isKnown}).
     */
    private final Set<Long> inHand = ConcurrentHashMap.newKeySet();
    /** Per shard: instances claimed and not yet settled (their outcome written, or their claim given back). */
    private final AtomicIntegerArray claimedPerShard;
    /**
     * Per shard: the horizon, in epoch milliseconds. An instance due later is not put on the wheel: it waits in the
     * store until a horizon pass reads it ({@code ShardOwner}), which first moves the horizon and then reads what
     * came within it, so an instance is either armed when it is written or read by the next pass. So memory holds
     * what is due within the horizon, not the backlog. {@link Long#MIN_VALUE} for a shard not (or no longer) held.
     */
    private final AtomicLongArray armedUntil;
    /** The pools this member has dispatched for; each is told to {@link #poolListener} once. */
    private final Set<String> poolsSeen = ConcurrentHashMap.newKeySet();
    private volatile Consumer<String> poolListener = pool -> { };
    /** The job slots kept for calls accepted for a later callback. */
    private final AwaitedCallbacks awaited;
    /** Ids and owners of the instances a workflow's next step creates. */
    private final WorkflowSteps workflowSteps = new WorkflowSteps();
    /** The callback URL of an attempt (base URL and token), or null while this server takes no callbacks. */
    private volatile Function<CallbackAttempt, String> callbackUrls;

    /** Told when an instance reaches a final state, so fixed-delay jobs can plan their next instance. */
    @FunctionalInterface
    public interface CompletionListener {
        void completed(Job job, Instance instance, Instant completedAt);
    }

    /**
     * @param maxCallsInFlight calls in flight on this server, at most (the per-host limit is the router's)
     * @param defaultTimeout   the whole-call deadline of jobs that set none
     */
    public InstanceDispatcher(InstanceStore instances, JobCatalog jobs, PoolCatalog pools, ShardOwnership ownership,
                              TargetRouter targets, InstanceTimeWheelService wheel, Clock clock,
                              DispatchListener listener, CompletionListener completions, int maxCallsInFlight,
                              Duration defaultTimeout) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.pools = Objects.requireNonNull(pools, "pools");
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.claimedPerShard = new AtomicIntegerArray(ownership.shardCount());
        this.armedUntil = new AtomicLongArray(ownership.shardCount());
        for (int shard = 0; shard < ownership.shardCount(); shard++) {
            armedUntil.set(shard, Long.MIN_VALUE);
        }
        this.targets = Objects.requireNonNull(targets, "targets");
        this.wheel = Objects.requireNonNull(wheel, "wheel");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.completions = Objects.requireNonNull(completions, "completions");
        this.defaultTimeout = Objects.requireNonNull(defaultTimeout, "defaultTimeout");
        this.poolWakeups = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("pool-rate", true));
        this.poolWakeups.setRemoveOnCancelPolicy(true);
        this.slots = new CallSlots(maxCallsInFlight, PRIORITY_AGING.toNanos(), System::nanoTime,
                this::wakeLater);
        this.awaited = new AwaitedCallbacks(slots, System::nanoTime);
        this.outcomes = new OutcomeRecorder(instances, clock, OutcomeRecorder.DEFAULT_MAX_BATCH, slots, listener,
                completions, this::settleFailure, this::settled, awaited, workflowSteps);
        this.jobReads = new Batcher<>("job-read", ClaimBatcher.DEFAULT_MAX_BATCH, this::resolve,
                this::resolveFailed);
        this.fireWrites = new Batcher<>("fire-write", ClaimBatcher.DEFAULT_MAX_BATCH,
                writes -> writes.forEach(Runnable::run),
                (writes, failure) -> log.error("a skip or orphan write threw; its instances stay WAITING", failure));
        int starters = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.callStarters = new ThreadPoolExecutor(starters, starters, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), new NamedThreadFactory("call-start", true));
        this.claims = new ClaimBatcher(instances, clock, ClaimBatcher.DEFAULT_MAX_BATCH, this::claimed,
                this::notClaimed);
    }

    /**
     * Puts a WAITING instance on the wheel for its trigger time (now if that has passed), unless that is beyond its
     * shard's horizon ({@link #extendHorizon}): then it waits in the store for the horizon pass. Arming an instance
     * that is already on the wheel, or has fired and waits for its claim, does nothing: the store row is the truth,
     * the wheel entry only a reminder.
     *
     * @param priority the instance's own priority (an on-demand run's), or null for its job's
     * @throws IllegalArgumentException if the trigger time is beyond what the wheel can hold (about 146 years)
     */
    public void arm(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority) {
        arm(instanceId, jobId, shard, triggerTime, priority, null);
    }

    /**
     * {@link #arm} for an instance a loader has just created from {@code loaded}, a copy of its job stamped before the
     * advance that created it: when it fires, it takes that copy rather than the catalog's unless the job was
     * invalidated since ({@link JobCatalog#ifCurrent}), so that a job whose instances are created ahead (a one-shot
     * job, whose instance is its only one) is not read again at the fire.
     *
     * @param loaded the job's stamped copy, or null to read the job at the fire
     */
    public void arm(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority,
                    JobCatalog.Stamped loaded) {
        if (inHand.contains(instanceId)) {
            return; // fired and on its way to its claim: another timer would only admit it twice
        }
        schedule(instanceId, jobId, shard, triggerTime, priority, loaded);
    }

    /**
     * Replaces whatever this member holds of an instance with a timer for {@code triggerTime} (none if that is beyond
     * the horizon): for an instance the store has just rescheduled. The old timer is dropped; if it has already fired and waits for its claim, that
     * claim is refused by the store (it was armed for the old, earlier time; see {@link InstanceStore#claimArmed}), so
     * the new timer is armed even then.
     */
    public void rearm(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority) {
        wheel.cancel(instanceId);
        schedule(instanceId, jobId, shard, triggerTime, priority, null);
    }

    /**
     * True if the instance is on the wheel now (armed here or before); false if beyond the horizon. {@code loaded}:
     * the job's stamped copy the fire may take, or null.
     */
    private boolean schedule(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority,
                             JobCatalog.Stamped loaded) {
        if (loaded != null && loaded.job().id() != jobId) {
            throw new IllegalArgumentException("instance " + instanceId + " of job " + jobId + " armed with job "
                    + loaded.job().id());
        }
        // The claim names the time this timer stands for, in the store's milliseconds (a reschedule fence).
        long armedForMs = triggerTime.toEpochMilli();
        if (armedForMs > armedUntil.get(shard)) {
            return false; // the horizon pass reads it when it comes near
        }
        // Round up: the wheel takes whole milliseconds, and rounding down would fire up to 1 ms early.
        long delayNanos = Duration.between(clock.instant(), triggerTime).toNanos();
        long delayMs = delayNanos <= 0 ? 0 : (delayNanos + 999_999) / 1_000_000;
        try {
            wheel.schedule(instanceId, delayMs, () -> fired(instanceId, jobId, shard, armedForMs, priority, loaded));
        } catch (IllegalStateException alreadyArmed) {
            log.debug("instance {} is already armed", instanceId);
        }
        return true;
    }

    /**
     * Moves the horizon of {@code shards} to {@code until} (never back): from now on an instance of theirs due by
     * then is armed when it is written or moved. The caller then reads the store for those that came within it.
     */
    public void extendHorizon(Collection<Integer> shards, Instant until) {
        long untilMs = until.toEpochMilli();
        for (int shard : shards) {
            armedUntil.accumulateAndGet(shard, untilMs, Math::max);
        }
    }

    /** The shards left this member: it arms none of their instances until a recovery sets their horizon again. */
    public void forgetHorizon(Collection<Integer> shards) {
        for (int shard : shards) {
            armedUntil.set(shard, Long.MIN_VALUE);
        }
    }

    /** The horizon of {@code shard} in epoch milliseconds, {@link Long#MIN_VALUE} if none. */
    public long horizonOf(int shard) {
        return armedUntil.get(shard);
    }

    /**
     * {@link #arm} unless the instance is already this member's business (on the wheel, or fired and not yet claimed):
     * for sweeps that look for waiting instances nobody armed.
     *
     * @return true if it was armed now (false if known, or beyond the horizon)
     */
    public boolean armIfUnknown(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority) {
        return armIfUnknown(instanceId, jobId, shard, triggerTime, priority, null);
    }

    /** {@link #armIfUnknown}, firing with {@code loaded} as {@link #arm(long, long, int, Instant, Integer,
     * JobCatalog.Stamped)} does (null: none). */
    public boolean armIfUnknown(long instanceId, long jobId, int shard, Instant triggerTime, Integer priority,
                                JobCatalog.Stamped loaded) {
        if (isKnown(instanceId)) {
            return false;
        }
        return schedule(instanceId, jobId, shard, triggerTime, priority, loaded);
    }

    /** True if the instance is on the wheel or fired and not yet through its claim. */
    public boolean isKnown(long instanceId) {
        return inHand.contains(instanceId) || wheel.isPending(instanceId);
    }

    /** Removes the wheel's reminder of an instance the store has just cancelled; frees its memory at once. */
    public void disarm(long instanceId) {
        wheel.cancel(instanceId);
    }

    /** Instances of these shards claimed by this member and not yet settled. */
    public int claimedIn(Set<Integer> shards) {
        int sum = 0;
        for (int shard : shards) {
            sum += claimedPerShard.get(shard);
        }
        return sum;
    }

    /** Calls in flight: admitted, claimed or being claimed, and not yet recorded. */
    public int callsInFlight() {
        return slots.inFlight();
    }

    /**
     * Tells {@code listener} the name of each pool this member dispatches for, once: those seen so far now, each new
     * one when its first instance fires here (for per-pool meters).
     */
    public void onPoolSeen(Consumer<String> listener) {
        poolListener = Objects.requireNonNull(listener, "listener");
        poolsSeen.forEach(listener);
    }

    /** A pool's calls in flight (with those about to start) and its instances waiting, on this member. */
    public CallSlots.PoolUsage poolUsage(String pool) {
        return slots.poolUsage(pool);
    }

    /**
     * Where the targets of jobs completing by callback report: {@code urls} makes an attempt's callback URL (the
     * server's public URL and the attempt's token). Until it is set, such a job's attempts fail at once, saying so.
     */
    public void takeCallbacksAt(Function<CallbackAttempt, String> urls) {
        callbackUrls = Objects.requireNonNull(urls, "urls");
    }

    /**
     * How this dispatcher ends workflow steps: {@code ids} mints the ids of the instances a run's next step creates,
     * and {@code created} hands each to its shard's owner.
     */
    public void takeWorkflowSteps(LongSupplier ids, Consumer<Instance> created) {
        workflowSteps.set(ids, created);
    }

    /**
     * An instance no longer awaits a callback (reported, failed, timed out; here or, told by a prompt, elsewhere):
     * the job slot this member kept for it, if any, goes back. Idempotent.
     */
    public void callbackEnded(long instanceId) {
        awaited.ended(instanceId);
    }

    /**
     * Makes the job slots kept for awaited callbacks match the store ({@link AwaitedCallbacks#reconcile}).
     *
     * @param readStartNanos when the read of {@code awaiting} began ({@link System#nanoTime})
     * @param awaiting       {@link InstanceStore#findAwaitingCallbacksOfLimitedJobs}
     */
    public void reconcileCallbacks(long readStartNanos, List<Instance> awaiting) {
        awaited.reconcile(readStartNanos, awaiting, jobId -> jobs.get(jobId));
    }

    /** Fired instances waiting for a call slot (they are still WAITING in the store). */
    public int waitingForSlot() {
        return slots.waiting();
    }

    /**
     * Runs on a wheel dispatch thread. The job decides the instance's slots: the copy the instance was armed with if
     * it is still current ({@link JobCatalog#ifCurrent}), else the cache's if it is there, else the instance joins the
     * next batch of job reads ({@link #resolve}), so that many instances of many jobs cost one query, not one each.
     */
    private void fired(long instanceId, long jobId, int shard, long armedForMs, Integer priority,
                       JobCatalog.Stamped loaded) {
        if (!ownership.holds(shard)) {
            listener.fenced("fire");
            log.debug("instance {} fired for a shard this member does not hold; its owner arms it", instanceId);
            return;
        }
        inHand.add(instanceId);
        Instant firedAt = clock.instant();
        Fired fired = new Fired(instanceId, jobId, shard, armedForMs, priority, firedAt);
        Optional<Job> cached = loaded != null ? jobs.ifCurrent(loaded) : null;
        if (cached == null) {
            cached = jobs.getIfCached(jobId);
        }
        Optional<InstancePool> pool = cached == null ? null : cachedPoolOf(cached);
        if (pool == null) {
            jobReads.add(fired);
        } else {
            admit(fired, cached, pool);
        }
    }

    /** The pool of a job if the catalog holds it (empty for a job without one); null if it would have to be read. */
    private Optional<InstancePool> cachedPoolOf(Optional<Job> job) {
        String name = job.map(j -> j.delivery().pool()).orElse(null);
        return name == null ? Optional.empty() : pools.getIfCached(name);
    }

    /** A fired instance on its way to its slots; {@code priority} is its own, or null for its job's. */
    private record Fired(long instanceId, long jobId, int shard, long armedForMs, Integer priority, Instant firedAt) {
    }

    /** Runs on the job-read thread: reads the jobs (and their pools) of a batch of fired instances with one query. */
    private void resolve(List<Fired> batch) {
        Map<Long, Optional<Job>> found = jobs.getAll(batch.stream().map(Fired::jobId).distinct().toList());
        for (Fired fired : batch) {
            Optional<Job> job = found.getOrDefault(fired.jobId(), Optional.empty());
            Optional<InstancePool> pool = job.map(j -> j.delivery().pool()).flatMap(pools::get);
            admit(fired, job, pool);
        }
    }

    /** The job read failed: nothing was claimed, the instances are still WAITING; try again shortly. */
    private void resolveFailed(List<Fired> batch, Throwable failure) {
        log.warn("reading the jobs of {} fired instances failed; re-arming them in {}: {}", batch.size(),
                CLAIM_RETRY_DELAY, failure.toString());
        Instant retryAt = clock.instant().plus(CLAIM_RETRY_DELAY);
        batch.forEach(fired -> {
            inHand.remove(fired.instanceId()); // first: arm skips what is in hand
            arm(fired.instanceId(), fired.jobId(), fired.shard(), retryAt, fired.priority());
        });
    }

    /**
     * Asks for the instance's slots, and hands it to the claim batcher if it got them. {@code pool} is the job's pool
     * as the catalog knows it: empty for a job without one (or one whose pool is gone, which then limits nothing).
     */
    private void admit(Fired fired, Optional<Job> maybeJob, Optional<InstancePool> pool) {
        long instanceId = fired.instanceId();
        if (maybeJob.isEmpty()) {
            // Deleting a job cancels its waiting instances; one that slipped through is failed, not left waiting.
            fireWrites.add(() -> {
                failOrphan(instanceId, fired.jobId());
                inHand.remove(instanceId);
            });
            return;
        }
        Job job = maybeJob.get();
        DeliveryPolicy delivery = job.delivery();
        String target = targets.targetOf(job);
        if (delivery.pool() != null && pool.isEmpty()) {
            log.warn("job {} names pool '{}', which does not exist; its instance {} is dispatched without it",
                    job.id(), delivery.pool(), instanceId);
        }
        CallSlots.PoolLimits limits = pool.map(InstanceDispatcher::limitsOf).orElse(null);
        if (limits != null && poolsSeen.add(limits.name())) {
            poolListener.accept(limits.name());
        }
        int priority = fired.priority() != null ? fired.priority() : delivery.priority();
        CallSlots.Ticket ticket = new CallSlots.Ticket(instanceId, job.id(), priority, delivery.maxConcurrent(),
                delivery.overLimit() == DeliveryPolicy.OverLimit.SKIP, limits, target, targets.limitOf(target),
                admitted -> claims.submit(new ClaimBatcher.Admitted(admitted, job, fired.shard(), fired.armedForMs(),
                        fired.priority(), fired.firedAt())));
        switch (slots.acquire(ticket)) {
            case ADMITTED -> claims.submit(new ClaimBatcher.Admitted(ticket, job, fired.shard(), fired.armedForMs(),
                    fired.priority(), fired.firedAt()));
            case QUEUED -> log.debug("instance {} waits for a call slot ({})", instanceId, target);
            case SKIPPED -> fireWrites.add(() -> {
                skip(instanceId, job, fired.shard(), fired.priority());
                inHand.remove(instanceId);
            });
        }
    }

    /** Schedules a pool's wake-up; after close none is needed (its waiters stay WAITING for the next start). */
    private void wakeLater(long delayNanos, Runnable wakeup) {
        try {
            poolWakeups.schedule(wakeup, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            log.debug("a pool's wake-up after close is dropped; its instances stay WAITING");
        }
    }

    private static CallSlots.PoolLimits limitsOf(InstancePool pool) {
        InstancePool.Rate rate = pool.rate();
        return new CallSlots.PoolLimits(pool.name(), pool.maxConcurrent(), rate == null ? 0 : rate.intervalNanos());
    }

    private void skip(long instanceId, Job job, int shard, Integer priority) {
        DeliveryPolicy delivery = job.delivery();
        String reason = "skipped: job '" + job.name() + "'"
                + (delivery.limitsConcurrency() ? " (maxConcurrent " + delivery.maxConcurrent() + ")" : "")
                + (delivery.pool() != null ? " or its pool '" + delivery.pool() + "'" : "")
                + " was at its limit (overLimit SKIP)";
        try {
            if (instances.skip(instanceId, reason)) {
                listener.skipped();
                log.info("instance {} of job {} {}", instanceId, job.id(), reason);
            }
        } catch (RuntimeException e) {
            log.warn("skipping instance {} failed; re-arming it in {}: {}", instanceId, CLAIM_RETRY_DELAY,
                    e.toString());
            arm(instanceId, job.id(), shard, clock.instant().plus(CLAIM_RETRY_DELAY), priority);
        }
    }

    private void failOrphan(long instanceId, long jobId) {
        try {
            if (!instances.claimBatch(List.of(instanceId), clock.instant()).isEmpty()) {
                instances.markFailed(instanceId, "job " + jobId + " no longer exists");
            }
        } catch (RuntimeException e) {
            log.warn("failing instance {} of deleted job {} failed: {}", instanceId, jobId, e.toString());
        }
    }

    /** Runs on the claim thread for each claimed instance: from now until it is settled it counts for its shard. */
    private void claimed(Instance instance, ClaimBatcher.Admitted admitted) {
        claimedPerShard.incrementAndGet(instance.shard());
        inHand.remove(instance.id());
        callStarters.execute(() -> startCall(instance, admitted));
    }

    /** Runs on the outcome thread once an outcome is written (or given up): the claim is settled. */
    private void settled(OutcomeRecorder.Outcome outcome) {
        claimedPerShard.decrementAndGet(outcome.instance().shard());
    }

    /**
     * Runs on a call-start thread: starts the call of a claimed instance. Never blocks on the target. A call whose
     * shard lease lapsed or moved since the claim (this member was paused, or cannot renew) does not start: its claim
     * is given back if the store still lets this member, else the shard's new owner settles it. A shard that is only
     * draining still has its claimed calls made: the lease is kept until they are settled.
     */
    private void startCall(Instance instance, ClaimBatcher.Admitted admitted) {
        Job job = admitted.job();
        if (!ownership.mayFinish(instance.shard(), instance.claimEpoch())) {
            listener.fenced("call");
            log.info("instance {} was claimed under epoch {} of shard {}, which this member no longer holds; its"
                    + " call does not start", instance.id(), instance.claimEpoch(), instance.shard());
            try {
                instances.release(instance.id());
            } catch (RuntimeException e) {
                log.debug("giving back the claim of instance {} failed: {}", instance.id(), e.toString());
            }
            slots.callEnded(admitted.ticket());
            slots.release(admitted.ticket());
            claimedPerShard.decrementAndGet(instance.shard());
            return;
        }
        listener.fired(Duration.between(instance.expectedTriggerTime(), admitted.firedAt()));
        boolean byCallback = job.delivery().completion().byCallback();
        Function<CallbackAttempt, String> urls = callbackUrls;
        String callbackUrl = byCallback && urls != null
                ? urls.apply(new CallbackAttempt(instance.id(), instance.attempt(), instance.claimEpoch())) : null;
        JobContext context = new JobContext(instance.id(), job.id(), job.name(),
                instance.params() != null ? instance.params() : job.params(),
                instance.expectedTriggerTime(), instance.attempt(), instance.claimNode(), instance.claimEpoch(),
                instance.key(), callbackUrl, instance.workflow());
        CompletableFuture<String> call;
        long callStartNanos = System.nanoTime(); // a measurement for metrics only: no fake ticker needed
        try {
            call = byCallback && callbackUrl == null
                    ? CompletableFuture.failedFuture(new IllegalStateException("job '" + job.name() + "' completes by"
                            + " callback, but this server takes no callbacks: give it its public URL (--public-url)"))
                    : targets.invoke(job, context, job.delivery().timeoutOr(defaultTimeout));
        } catch (Throwable failure) { // an invoker must not throw; if one does, the attempt fails, nothing leaks
            call = CompletableFuture.failedFuture(failure);
        }
        call.whenComplete((output, failure) -> {
            // The call is over: the job and the target may take their next call now; the server slot stays until
            // the outcome is written, so DISPATCHING rows never outnumber the server's slots. A call accepted for a
            // later callback keeps its job's slot until the report (the job's limit counts the work).
            boolean accepted = failure == null && byCallback;
            if (accepted) {
                slots.callAccepted(admitted.ticket());
            } else {
                slots.callEnded(admitted.ticket());
            }
            listener.callEnded(job.id(), failure == null, Duration.ofNanos(System.nanoTime() - callStartNanos));
            outcomes.record(new OutcomeRecorder.Outcome(instance, job, admitted.ticket(),
                    failure == null ? null : InProcessHandlers.unwrap(failure),
                    failure == null && !byCallback ? output : null, accepted));
        });
    }

    /** Runs on the claim thread: admitted instances that were not claimed give their slots back. */
    private void notClaimed(List<ClaimBatcher.Admitted> admitted, boolean rearm) {
        Instant retryAt = clock.instant().plus(CLAIM_RETRY_DELAY);
        for (ClaimBatcher.Admitted a : admitted) {
            slots.release(a.ticket());
            inHand.remove(a.instanceId()); // first: arm skips what is in hand
            if (rearm) {
                arm(a.instanceId(), a.job().id(), a.shard(), retryAt, a.priority());
            } else if (!ownership.holds(a.shard())) {
                listener.fenced("claim");
            } else {
                listener.claimLost();
            }
        }
    }

    /** Runs on the outcome thread: a retry if the job's policy allows another attempt, else FAILED. */
    private void settleFailure(OutcomeRecorder.Outcome outcome) {
        Instance instance = outcome.instance();
        Job job = outcome.job();
        String error = describe(outcome.failure());
        if (job.retryPolicy().allowsAnotherAttempt(instance.attempt())) {
            Instant next = clock.instant().plusMillis(
                    job.retryPolicy().delayAfterAttempt(instance.id(), instance.attempt()));
            if (instances.retry(instance.id(), next, error)) {
                listener.retried(job.target().type());
                log.warn("instance {} of job {} failed (attempt {} of {}), retrying at {}: {}", instance.id(),
                        job.id(), instance.attempt(), job.retryPolicy().maxAttempts(), next, error);
                arm(instance.id(), job.id(), instance.shard(), next, instance.priority());
            }
            return;
        }
        boolean failed;
        if (instance.workflow() != null) {
            Optional<List<Instance>> next = instances.failStep(instance, error, workflowSteps.ids());
            next.ifPresent(created -> created.forEach(workflowSteps.created()));
            failed = next.isPresent();
        } else {
            failed = instances.markFailed(instance.id(), error);
        }
        if (failed) {
            listener.failed(job.target().type());
            log.warn("instance {} of job {} failed after {} attempt(s): {}", instance.id(), job.id(),
                    instance.attempt(), error);
            try {
                listener.instanceEnded(job, instance, InstanceStatus.FAILED, error);
            } catch (RuntimeException e) { // a listener must not throw; if one does, the outcome thread goes on
                log.error("the dispatch listener threw for instance {}", instance.id(), e);
            }
            outcomes.completed(outcome, clock.instant());
        }
    }

    /**
     * Stops claiming (fired but unclaimed instances stay WAITING), lets calls in flight end for up to
     * {@code wait}, and writes their outcomes. Call after the wheel has stopped. Idempotent.
     */
    public void close(Duration wait) {
        jobReads.close(wait.toMillis(), TimeUnit.MILLISECONDS); // what it still holds stays WAITING
        fireWrites.close(wait.toMillis(), TimeUnit.MILLISECONDS); // likewise: unwritten skips stay WAITING
        slots.drainWaiting(); // they are WAITING in the store; the next start arms them again
        claims.close();
        poolWakeups.shutdownNow(); // a pool's waiters were drained above: nothing is left to wake
        callStarters.shutdown(); // claimed instances already handed over still get their calls started
        long deadline = System.nanoTime() + wait.toNanos();
        while (slots.inFlight() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (slots.inFlight() > 0) {
            log.warn("{} calls still in flight {} after close; their instances stay DISPATCHING and are delivered"
                    + " again on the next start", slots.inFlight(), wait);
        }
        outcomes.close();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    static String describe(Throwable failure) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
        return message.length() <= MAX_ERROR_LENGTH ? message : message.substring(0, MAX_ERROR_LENGTH);
    }
}
