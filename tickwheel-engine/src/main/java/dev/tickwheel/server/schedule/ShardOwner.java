package dev.tickwheel.server.schedule;

import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.server.cluster.ClusterBus;
import dev.tickwheel.server.cluster.ClusterEvent;
import dev.tickwheel.server.cluster.ShardListener;
import dev.tickwheel.server.cluster.ShardOwnership;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.WaitingCursor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this member does as the owner of the shards it holds, and how it tells the owner of a shard it does not hold.
 *
 * <ul>
 *   <li><b>Shards arrive</b> ({@link #acquired}, from the lease thread): {@link ShardRecovery} for them, then the
 *       {@link ForeignClaimSettler}, on the loader thread.</li>
 *   <li><b>Every loader period</b> ({@link #periodicPass}, loader thread): a loader pass over the held shards, the
 *       horizon pass ({@link #armAhead}: the waiting instances that came within the horizon since the last pass),
 *       the foreign-claim settler, and a sweep that arms overdue waiting instances this member does not know (a
 *       prompt that was lost, an instance created by a member that had just lost the shard).</li>
 *   <li><b>Any member changed something</b> (the services call {@link #stored}, {@link #cancelled},
 *       {@link #jobChanged}, {@link #jobDeleted}): the owner acts at once; when that is another member, it is
 *       prompted over the {@link ClusterBus} ({@link #onEvent} on its side). A prompt is a hint: the store's row is
 *       the truth, and the sweep catches what a lost prompt missed.</li>
 * </ul>
 *
 * <p>Loader passes, recoveries and sweeps all run on the one loader thread, so they never interleave.
 *
 * <p>Thread-safe.
 */
public final class ShardOwner implements ShardListener {

    private static final Logger log = LoggerFactory.getLogger(ShardOwner.class);
    private static final int SWEEP_PAGE = 1_000;
    /** Added to the wait for a foreign claim's deadline: the database's clock and this member's may tick apart. */
    private static final Duration SETTLE_SLACK = Duration.ofMillis(100);

    private final ShardOwnership ownership;
    private final JobStore jobs;
    private final InstanceStore instances;
    private final JobCatalog catalog;
    private final InstanceDispatcher dispatcher;
    private final InstanceLoader loader;
    private final ShardRecovery recovery;
    private final ForeignClaimSettler settler;
    private final ClusterBus bus;
    private final OwnerArming arming;
    private final PeriodicTaskScheduler loaderThread;
    private final Clock clock;
    private final Duration horizon;
    private final Runnable onEvicted;
    /** A follow-up settle is queued on the loader thread; read and written on the loader thread only. */
    private boolean settleScheduled;

    public ShardOwner(ShardOwnership ownership, JobStore jobs, InstanceStore instances, JobCatalog catalog,
                      InstanceDispatcher dispatcher, InstanceLoader loader, ShardRecovery recovery,
                      ForeignClaimSettler settler, ClusterBus bus, OwnerArming arming,
                      PeriodicTaskScheduler loaderThread, Clock clock, Duration horizon, Runnable onEvicted) {
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.loader = Objects.requireNonNull(loader, "loader");
        this.recovery = Objects.requireNonNull(recovery, "recovery");
        this.settler = Objects.requireNonNull(settler, "settler");
        this.bus = Objects.requireNonNull(bus, "bus");
        this.arming = Objects.requireNonNull(arming, "arming");
        this.loaderThread = Objects.requireNonNull(loaderThread, "loaderThread");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.horizon = Objects.requireNonNull(horizon, "horizon");
        this.onEvicted = Objects.requireNonNull(onEvicted, "onEvicted");
    }

    // ---- shards arriving and leaving (lease thread) ----

    @Override
    public void acquired(Map<Integer, Long> shards) {
        Set<Integer> arrived = Set.copyOf(shards.keySet());
        log.info("node {} now holds {} more shard(s), {} in all", ownership.nodeId(), arrived.size(),
                ownership.heldShards().size());
        onLoaderThread("recovery", () -> {
            recovery.run(arrived, () -> loader.createDue(arrived));
            settleForeignClaims();
        });
    }

    @Override
    public void lost(Set<Integer> shards) {
        dispatcher.forgetHorizon(shards);
        log.info("node {} no longer acts on {} shard(s); {} held", ownership.nodeId(), shards.size(),
                ownership.heldShards().size());
    }

    @Override
    public boolean drained(Set<Integer> shards) {
        return dispatcher.claimedIn(shards) == 0;
    }

    @Override
    public void evicted(RuntimeException cause) {
        log.error("node {} was evicted from the cluster (its node id was taken after it stopped renewing); stopping:"
                + " {}", ownership.nodeId(), cause.getMessage());
        onEvicted.run();
    }

    // ---- the periodic pass (loader thread) ----

    /** A loader pass over the held shards, then the horizon pass, the foreign-claim settler and the sweep. */
    public void periodicPass() {
        loader.loadDue();
        armAhead();
        settleForeignClaims();
        sweep();
    }

    /**
     * Settles the foreign claims whose old calls are over; if some still wait for their calls' deadlines, settles
     * again as soon as the first can be, rather than at the next loader period: the calls a dead member's crash cut
     * are made again about the job's timeout after the take-over, not up to a loader period later. One such
     * follow-up at a time. Loader thread.
     */
    private void settleForeignClaims() {
        ForeignClaimSettler.Report report = settler.settle();
        if (report.waiting() > 0 && !settleScheduled) {
            settleScheduled = true;
            Duration in = Duration.ofMillis(Math.max(0, report.nextInMs())).plus(SETTLE_SLACK);
            try {
                loaderThread.runOnceAfter("settle foreign claims", () -> {
                    settleScheduled = false;
                    settleForeignClaims();
                }, in);
            } catch (RejectedExecutionException closing) {
                settleScheduled = false;
            }
        }
    }

    /**
     * The horizon pass: moves the horizon of the held shards to now + the horizon and arms their waiting instances
     * that came within it since the last pass, in pages in due order. The horizon moves first: an instance written
     * or moved from then on, and due within it, is armed when its owner hears of it; one written before is read here
     * (its write committed before its prompt was sent). Returns how many it armed.
     */
    int armAhead() {
        Collection<Integer> held = recoveredShards();
        if (held.isEmpty()) {
            return 0;
        }
        Instant until = clock.instant().plus(horizon);
        long from = Long.MAX_VALUE;
        List<Integer> behind = new ArrayList<>();
        for (int shard : held) {
            long armedUntil = dispatcher.horizonOf(shard);
            if (armedUntil < until.toEpochMilli()) {
                behind.add(shard);
                from = Math.min(from, armedUntil);
            }
        }
        if (behind.isEmpty()) {
            return 0;
        }
        dispatcher.extendHorizon(behind, until);
        // Due beyond the last horizon, so not yet fired: whether this member knows one is all there is to check.
        return armUnknown(behind, WaitingCursor.dueAfter(from), until, false);
    }

    /**
     * The held shards whose recovery has run (it sets their horizon): a shard that has just arrived is left to its
     * recovery, queued on this thread, which weighs its missed triggers under their misfire policy before arming
     * anything; a pass that armed them first would fire what the policy drops.
     */
    private List<Integer> recoveredShards() {
        List<Integer> recovered = new ArrayList<>();
        for (int shard : ownership.heldShards()) {
            if (dispatcher.horizonOf(shard) != Long.MIN_VALUE) {
                recovered.add(shard);
            }
        }
        return recovered;
    }

    /** Arms every overdue waiting instance of the held shards that this member does not know. */
    void sweep() {
        Collection<Integer> held = recoveredShards();
        if (held.isEmpty()) {
            return;
        }
        int armed = armUnknown(held, WaitingCursor.FIRST, clock.instant(), true);
        if (armed > 0) {
            log.info("sweep armed {} overdue waiting instance(s) nobody had armed", armed);
        }
    }

    /**
     * Arms the waiting instances of {@code shards} after {@code from} and due by {@code dueBy} that this member does
     * not know; returns how many it armed.
     *
     * @param recheck read each row again before arming it: for rows already due, which their own timers may have
     *                fired and claimed since the page was read
     */
    private int armUnknown(Collection<Integer> shards, WaitingCursor from, Instant dueBy, boolean recheck) {
        int armed = 0;
        WaitingCursor after = from;
        while (true) {
            List<Instance> page = instances.findWaiting(shards, after, dueBy, SWEEP_PAGE);
            for (Instance instance : page) {
                if (!dispatcher.isKnown(instance.id()) && (!recheck || stillWaiting(instance.id()))
                        && dispatcher.armIfUnknown(instance.id(), instance.jobId(), instance.shard(),
                        instance.expectedTriggerTime(), instance.priority())) {
                    armed++;
                }
            }
            if (page.size() < SWEEP_PAGE) {
                return armed;
            }
            Instance last = page.get(page.size() - 1);
            after = WaitingCursor.after(last.expectedTriggerTime(), last.id());
        }
    }

    /**
     * The waiting instances of a job that came to need one owner were moved to its shard (or its pool's): their owner
     * arms them.
     */
    private void armGathered(Job job) {
        int shard = Shards.ofOwner(job.id(), job.delivery().pool(), ownership.shardCount());
        if (ownership.holds(shard)) {
            int armed = armUnknown(List.of(shard), WaitingCursor.FIRST,
                    Instant.ofEpochMilli(dispatcher.horizonOf(shard)), true);
            log.info("job {} now needs one owner; {} of its waiting instance(s) moved to shard {} and armed here",
                    job.id(), armed, shard);
        }
    }

    /**
     * Read again: under load many rows of a page are claimed between the page's read and their turn here, and an
     * instance claimed (no longer in hand) must not be armed a second time.
     */
    private boolean stillWaiting(long instanceId) {
        return instances.get(instanceId).map(i -> i.status() == InstanceStatus.WAITING).orElse(false);
    }

    // ---- prompts from other members (bus thread) ----

    /** An event from another member. */
    public void onEvent(ClusterEvent event) {
        if (event instanceof ClusterEvent.Arm arm) {
            if (ownership.holds(arm.shard())) {
                dispatcher.armIfUnknown(arm.instanceId(), arm.jobId(), arm.shard(),
                        Instant.ofEpochMilli(arm.triggerAtMs()), arm.priority());
            }
        } else if (event instanceof ClusterEvent.Rescheduled moved) {
            if (ownership.holds(moved.shard())) {
                dispatcher.rearm(moved.instanceId(), moved.jobId(), moved.shard(),
                        Instant.ofEpochMilli(moved.triggerAtMs()), moved.priority());
            }
        } else if (event instanceof ClusterEvent.Cancelled cancelled) {
            dispatcher.disarm(cancelled.instanceId());
        } else if (event instanceof ClusterEvent.CallbackSettled settled) {
            dispatcher.callbackEnded(settled.instanceId());
        } else if (event instanceof ClusterEvent.JobChanged changed) {
            catalog.invalidate(changed.jobId());
            if (ownership.holds(ownership.shardOf(changed.jobId()))) {
                onLoaderThread("load job", () -> jobs.get(changed.jobId()).ifPresent(loader::loadJob));
            }
        } else if (event instanceof ClusterEvent.Gathered gathered) {
            catalog.invalidate(gathered.jobId());
            // The job's owner loads it; the owner of its instances' shard (its own, or its pool's) arms them.
            onLoaderThread("arm gathered", () -> jobs.get(gathered.jobId()).ifPresent(job -> {
                loader.loadJob(job); // does nothing unless this member holds the job's shard
                armGathered(job);
            }));
        } else if (event instanceof ClusterEvent.Resync) {
            catalog.invalidateAll(); // prompts were lost meanwhile, job changes among them
            onLoaderThread("sweep", this::sweep);
        }
    }

    // ---- changes made on this member (API threads) ----

    /** An on-demand instance was stored: armed here if this member owns its shard, else its owner is prompted. */
    public void stored(Instance instance) {
        arming.arm(instance.id(), instance.jobId(), instance.shard(), instance.expectedTriggerTime(),
                instance.priority());
    }

    /**
     * A waiting instance was moved to another due time in the store: its owner replaces its timer (this member, or the
     * owner, prompted; a lost prompt leaves the old timer, whose claim the store refuses, and the sweep arms the moved
     * instance once it is overdue).
     */
    public void rescheduled(Instance instance) {
        arming.rearm(instance);
    }

    /** An instance was cancelled in the store: its timer goes, here and on whichever member armed it. */
    public void cancelled(long instanceId) {
        boolean armedHere = dispatcher.isKnown(instanceId);
        dispatcher.disarm(instanceId);
        if (!armedHere) {
            bus.publish(new ClusterEvent.Cancelled(instanceId, 0));
        }
    }

    /**
     * A job was created: loaded here if this member owns it, else its owner is prompted. No other member can have a
     * copy to forget, so a member that owns the job's shard (every job, on a one-member cluster) sends nothing.
     */
    public void jobCreated(Job job) {
        if (ownership.holds(ownership.shardOf(job.id()))) {
            loader.loadJob(job);
        } else {
            bus.publish(new ClusterEvent.JobChanged(job.id()));
        }
    }

    /**
     * A job was changed: loaded here if this member owns it; every other member forgets its copy.
     *
     * @param gathered true if the change made the job need one owner and the store moved its waiting instances to
     *                 its shard: the shard's owner (here, or prompted) arms them
     */
    public void jobChanged(Job job, boolean gathered) {
        catalog.invalidate(job.id());
        loader.loadJob(job); // does nothing unless this member holds the job's shard
        if (gathered) {
            onLoaderThread("arm gathered", () -> armGathered(job));
            bus.publish(new ClusterEvent.Gathered(job.id()));
        } else {
            bus.publish(new ClusterEvent.JobChanged(job.id()));
        }
    }

    /** A job was deleted and these of its waiting instances cancelled. */
    public void jobDeleted(long jobId, Collection<Long> cancelledInstanceIds) {
        catalog.invalidate(jobId);
        cancelledInstanceIds.forEach(dispatcher::disarm);
        bus.publish(new ClusterEvent.JobChanged(jobId));
    }

    private void onLoaderThread(String what, Runnable task) {
        try {
            loaderThread.runOnce(what, task);
        } catch (RejectedExecutionException closing) {
            log.debug("{} not run: the server is stopping", what);
        }
    }

    /** Waits until every task handed to the loader thread so far has run (start-up recovery). */
    public void awaitLoaderThread(Duration bound) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        loaderThread.runOnce("barrier", done::countDown);
        if (!done.await(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn("start-up recovery still running after {}; starting anyway", bound);
        }
    }
}
