package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.Shards;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this member's shard leases: renews them, takes the shards {@link Rendezvous} prefers this member for once
 * nobody holds them, drains and releases the shards another live member is preferred for, and answers
 * {@link ShardOwnership} from what it holds. One round runs every check interval on the thread
 * {@code tickwheel-lease-1}.
 *
 * <pre>
 * A round:
 *   1. Shards whose local deadline has passed are lost (listener.lost).
 *   2. If renewInterval has passed since the last successful renewal was sent: store.renew(ttl). Every shard it
 *      returns is held until (ticker when the renewal was SENT) + ttl − safetyMargin. Shards it does not return, or
 *      returns under another epoch, are lost; shards it returns that are not held here (dropped after renewals
 *      failed) are held again (listener.acquired). If it throws, the round ends here: retried next round.
 *   3. store.view(): the live members (node rows unexpired by the view's database clock, and this member), and who
 *      Rendezvous prefers for each shard: among the live members for a free shard, among those that renewed since
 *      they joined (their rounds run) for a held one. Then, in this order:
 *      - a held shard the view shows under another owner or epoch is lost;
 *      - a draining shard this member is preferred for again is held again (listener.acquired, same epoch);
 *      - draining shards that are drained (listener.drained) or have drained for maxDrain are released;
 *      - held shards another live member is preferred for start draining: listener.lost at once, holds() false
 *        from then on, their leases still renewed;
 *      - shards this member is preferred for that nobody holds (by the database's clock) are acquired.
 * </pre>
 *
 * <p>Why it is safe. The store is the authority: a shard's epoch changes whenever it changes hands, and every claim and
 * settle is fenced by the epoch it was made under, so a member that acts on a lease it lost changes nothing. This
 * keeper only keeps the member from <em>starting</em> work it could not finish. Its local deadline is conservative: a
 * lease returned by a renewal was extended to (database now + ttl) when the renewal reached the database, which was
 * after it was sent; counting ttl from the send, on this member's monotonic ticker, ends no later than the store's
 * expiry as long as the two clocks run at about the same rate, and the safety margin absorbs the difference in rate
 * and small steps of the database's clock. {@link #holds} compares the deadline with the ticker on every call, so a
 * member resumed after a pause (SIGSTOP, a long GC) sees its shards as lost before its lease thread has even run.
 * Another member takes a shard only once the database says its lease expired or was released; an expired lease
 * means our deadline passed earlier still. A planned move drains first: the shard stops being acted on at once but
 * its lease is kept, renewed, until the listener says every call started under it has settled (a settle needs the
 * lease), or maxDrain has passed, and only then released; so a rebalance strands no settle of a call that ends within
 * maxDrain, and the new owner starts once the old one is done. Only a shard nobody holds is ever acquired, so at every moment a shard is held or
 * draining by at most one member; between a release and the preferred member's next round it is held by none.
 *
 * <p>The listener is told everything in order, on the lease thread (the caller's thread for {@link #start}'s first
 * round and for {@link #runOnce}); it must hand long work elsewhere.
 *
 * <p>Thread-safe: {@link #holds} and the other reads from any thread; rounds run one at a time.
 *
 * <p>Caveats: the deadline is only as good as the assumption that the database's clock and this member's ticker run
 * at the same rate to within the margin over a ttl; a database clock stepped forward by more than the margin can
 * expire a lease while this member still counts it as held (the store's fencing still refuses its settles).
 * {@link #close} does not drain: stop dispatching first. A member evicted (its node id taken after a very long pause)
 * stops for good: make a new keeper after joining again.
 */
public final class LeaseKeeper implements ShardOwnership, AutoCloseable {

    /** How long a lease lasts without renewal, by the database's clock: 5 s. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(5);
    /** How often leases are renewed: 1 s, so that with the defaults three renewals in a row may fail harmlessly. */
    public static final Duration DEFAULT_RENEW_INTERVAL = Duration.ofSeconds(1);
    /** How often a round runs: 250 ms, the most a free shard waits for its preferred member. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMillis(250);
    /** Subtracted from ttl for the local deadline: 1 s, far above clock-rate drift over 5 s (microseconds). */
    public static final Duration DEFAULT_SAFETY_MARGIN = Duration.ofSeconds(1);
    /** The longest a shard drains before it is released anyway: 30 s. */
    public static final Duration DEFAULT_MAX_DRAIN = Duration.ofSeconds(30);
    /** The longest duration a setting accepts: one day (nanosecond arithmetic stays far from overflow). */
    public static final Duration MAX_SETTING = Duration.ofDays(1);

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    /**
     * The keeper's timing.
     *
     * @param ttl           how long a lease lasts without renewal, by the database's clock
     * @param renewInterval how long after a successful renewal the next one is sent
     * @param checkInterval how often a round runs; at most renewInterval
     * @param safetyMargin  subtracted from ttl for the local deadline; renewInterval + checkInterval + safetyMargin
     *                      must be below ttl, so that a renewal is sent before the local deadline passes
     * @param maxDrain      how long a draining shard waits for the listener to say it is drained
     */
    public record Settings(Duration ttl, Duration renewInterval, Duration checkInterval, Duration safetyMargin,
                           Duration maxDrain) {

        public Settings {
            requireIn("ttl", ttl, false);
            requireIn("renewInterval", renewInterval, false);
            requireIn("checkInterval", checkInterval, false);
            requireIn("safetyMargin", safetyMargin, true);
            requireIn("maxDrain", maxDrain, false);
            if (renewInterval.compareTo(ttl) >= 0) {
                throw new IllegalArgumentException("renewInterval must be shorter than ttl: renewInterval="
                        + renewInterval + ", ttl=" + ttl);
            }
            if (checkInterval.compareTo(renewInterval) > 0) {
                throw new IllegalArgumentException("checkInterval must be at most renewInterval: checkInterval="
                        + checkInterval + ", renewInterval=" + renewInterval);
            }
            if (renewInterval.plus(checkInterval).plus(safetyMargin).compareTo(ttl) >= 0) {
                throw new IllegalArgumentException("safetyMargin leaves no time to renew: renewInterval + "
                        + "checkInterval + safetyMargin must be below ttl, got " + renewInterval + " + "
                        + checkInterval + " + " + safetyMargin + " >= " + ttl);
            }
        }

        /** 5 s ttl, renewed every 1 s, checked every 250 ms, 1 s margin, 30 s drain. */
        public static Settings defaults() {
            return new Settings(DEFAULT_TTL, DEFAULT_RENEW_INTERVAL, DEFAULT_CHECK_INTERVAL, DEFAULT_SAFETY_MARGIN,
                    DEFAULT_MAX_DRAIN);
        }

        private static void requireIn(String name, Duration value, boolean zeroAllowed) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || (!zeroAllowed && value.isZero()) || value.compareTo(MAX_SETTING) > 0) {
                throw new IllegalArgumentException(name + " must be in " + (zeroAllowed ? "[" : "(") + "PT0S, "
                        + MAX_SETTING + "]: " + value);
            }
        }
    }

    private enum State { NEW, RUNNING, EVICTED, CLOSED }

    private final ClusterStore store;
    private final int nodeId;
    private final int shardCount;
    private final Settings settings;
    private final LocalLeases local;
    private final LeaseRounds rounds;
    /** Lifecycle, changed by compare-and-set from start(), close() and a round that finds the member evicted. */
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    /** Serializes rounds: the lease thread's and those of runOnce() callers. */
    private final Object roundLock = new Object();
    /** Counted down by close(): wakes the lease thread from its wait between rounds. */
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Set by start(), read by close() on another thread to join it. */
    private volatile Thread thread;

    /**
     * @param store    this member's view of the cluster tables, already {@link ClusterStore#join joined}
     * @param nodeId   the node id {@code join} returned
     * @param ticker   this member's monotonic clock, for the local deadlines
     * @param listener told of every change of the shards held, on the lease thread
     */
    public LeaseKeeper(ClusterStore store, int nodeId, Settings settings, Ticker ticker, ShardListener listener) {
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(ticker, "ticker");
        Objects.requireNonNull(listener, "listener");
        if (nodeId < 0) {
            throw new IllegalArgumentException("nodeId must not be negative: " + nodeId);
        }
        this.nodeId = nodeId;
        this.shardCount = store.shardCount();
        this.local = new LocalLeases(shardCount, ticker);
        this.rounds = new LeaseRounds(store, nodeId, settings, ticker, listener, local);
    }

    /**
     * Runs the first round on the calling thread, so that a member alone in its cluster holds every free shard when
     * this returns, then starts the lease thread. A first round that fails (the database unreachable) is logged and
     * retried by the thread.
     *
     * @throws IllegalStateException if started before, closed, or evicted
     */
    public void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException(switch (state.get()) {
                case CLOSED -> "cannot be started once closed";
                case EVICTED -> "cannot be started once evicted";
                default -> "already started";
            });
        }
        log.info("node {}: lease keeper starting, {} shards, {}", nodeId, shardCount, settings);
        runGuarded();
        if (state.get() != State.RUNNING) {
            return; // evicted in the first round, or closed meanwhile
        }
        Thread t = new NamedThreadFactory("lease", true).newThread(this::loop);
        thread = t;
        t.start();
    }

    /**
     * One round (see the class comment). For tests and for a caller that drives the keeper without {@link #start};
     * after {@link #close} or eviction it does nothing.
     */
    public void runOnce() {
        synchronized (roundLock) {
            State current = state.get();
            if (current == State.CLOSED || current == State.EVICTED) {
                return;
            }
            if (!rounds.run()) {
                state.compareAndSet(current, State.EVICTED);
            }
        }
    }

    private void loop() {
        long checkNanos = settings.checkInterval().toNanos();
        try {
            while (!closing.await(checkNanos, TimeUnit.NANOSECONDS) && state.get() == State.RUNNING) {
                runGuarded();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // only close() interrupts, after its wait ran out: leave
        }
    }

    /** A round inside a catch-all: a throw is logged and counted, and the next round runs on schedule. */
    private void runGuarded() {
        try {
            runOnce();
        } catch (Throwable failure) { // Errors too: the leases must outlive any one round
            rounds.roundFailed();
            log.error("node {}: lease round failed; the next one runs in {}", nodeId, settings.checkInterval(),
                    failure);
        }
    }

    /** The counters, for metrics. */
    public LeaseStats stats() {
        return rounds.stats(local.held().size(), local.draining());
    }

    /** Sets what is told each successful renewal's latency in nanoseconds (a timer's record), on the lease thread. */
    public void onRenewLatency(LongConsumer latencyNanos) {
        rounds.onRenewLatency(Objects.requireNonNull(latencyNanos, "latencyNanos"));
    }

    @Override
    public int shardCount() {
        return shardCount;
    }

    @Override
    public int shardOf(long jobId) {
        return Shards.of(jobId, shardCount);
    }

    @Override
    public boolean holds(int shard) {
        return local.holds(shard);
    }

    @Override
    public boolean mayFinish(int shard, long epoch) {
        return local.mayFinish(shard, epoch);
    }

    @Override
    public Set<Integer> heldShards() {
        return local.held();
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    /**
     * Stops the lease thread (waiting up to a ttl for a round in progress), drops every shard locally ({@link #holds}
     * is false from then on) and leaves the cluster, releasing the leases at once. Does not call the listener, and
     * does not leave after an eviction (the node row is another member's). Idempotent.
     */
    @Override
    public void close() {
        State before = state.getAndSet(State.CLOSED);
        if (before == State.CLOSED) {
            return;
        }
        closing.countDown();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(settings.ttl().toMillis());
                if (t.isAlive()) {
                    log.warn("node {}: a lease round is stuck (a store call?); interrupting it", nodeId);
                    t.interrupt();
                    t.join(settings.ttl().toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        local.closeAll();
        if (before == State.EVICTED || rounds.evicted()) { // the latter when listener.evicted() closes the keeper
            return;
        }
        try {
            store.leave();
            log.info("node {}: left the cluster", nodeId);
        } catch (RuntimeException e) {
            log.warn("node {}: leaving the cluster failed; its leases expire within {} by the database's clock", nodeId,
                    settings.ttl(), e);
        }
    }
}
