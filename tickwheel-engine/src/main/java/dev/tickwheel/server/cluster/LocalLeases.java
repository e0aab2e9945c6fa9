package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The shards this member holds as far as its lease round knows: each with its epoch, its local validity deadline and
 * whether it is draining. Answers "may this member act on the shard now" by reading the ticker on every call, so the
 * answer turns false the moment a deadline passes, whether or not the lease round has run since.
 *
 * <p>Thread-safe: one writer (the lease round, serialized by {@link LeaseKeeper}) and any number of readers. Each
 * shard's entry is one immutable {@link Lease} in an {@link AtomicReferenceArray}, so a reader never sees one
 * renewal's epoch with another's deadline. Writes and {@link #closeAll} synchronize on this object, so that nothing is
 * written once the table is closed.
 *
 * <p>Caveats: deadlines are ticker values and are compared by their difference, like {@link System#nanoTime()}; they
 * stay correct across the ticker's wrap-around but not for spans beyond 292 years.
 */
final class LocalLeases {

    /**
     * One held shard.
     *
     * @param epoch              the lease's epoch in the store
     * @param deadlineNanos      the ticker value from which the lease may have expired in the store
     * @param draining           moving to another member: still renewed, no longer acted on
     * @param drainingSinceNanos the ticker value when draining began; 0 unless draining
     */
    record Lease(long epoch, long deadlineNanos, boolean draining, long drainingSinceNanos) {

        static Lease active(long epoch, long deadlineNanos) {
            return new Lease(epoch, deadlineNanos, false, 0);
        }

        boolean validAt(long nowNanos) {
            return nowNanos - deadlineNanos < 0; // a difference, not a comparison: tickers may wrap
        }

        Lease extendedTo(long newDeadlineNanos) {
            return new Lease(epoch, newDeadlineNanos, draining, drainingSinceNanos);
        }

        Lease drainingFrom(long nowNanos) {
            return new Lease(epoch, deadlineNanos, true, nowNanos);
        }

        Lease resumed() {
            return active(epoch, deadlineNanos);
        }
    }

    private final AtomicReferenceArray<Lease> leases;
    /** Per shard, the epoch it was last held under here, 0 if never; written and read by the lease round only. */
    private final long[] lastEpochs;
    private final Ticker ticker;
    /** Guarded by this: set once by closeAll(), after which put() and remove() do nothing. */
    private boolean closed;

    LocalLeases(int shardCount, Ticker ticker) {
        this.leases = new AtomicReferenceArray<>(shardCount);
        this.lastEpochs = new long[shardCount];
        this.ticker = ticker;
    }

    int shardCount() {
        return leases.length();
    }

    /** True while the shard is held, not draining, and its deadline has not passed. */
    boolean holds(int shard) {
        Lease lease = leases.get(checkShard(shard));
        return lease != null && !lease.draining() && lease.validAt(ticker.read());
    }

    /** Held under {@code epoch} with its deadline not passed, draining or not. */
    boolean mayFinish(int shard, long epoch) {
        Lease lease = leases.get(checkShard(shard));
        return lease != null && lease.epoch() == epoch && lease.validAt(ticker.read());
    }

    /** The shards {@link #holds(int)} is true for now, ascending. */
    Set<Integer> held() {
        long nowNanos = ticker.read();
        Set<Integer> held = new TreeSet<>();
        for (int shard = 0; shard < leases.length(); shard++) {
            Lease lease = leases.get(shard);
            if (lease != null && !lease.draining() && lease.validAt(nowNanos)) {
                held.add(shard);
            }
        }
        return Collections.unmodifiableSet(held);
    }

    /** How many shards are draining now (deadline not passed). */
    int draining() {
        long nowNanos = ticker.read();
        int count = 0;
        for (int shard = 0; shard < leases.length(); shard++) {
            Lease lease = leases.get(shard);
            if (lease != null && lease.draining() && lease.validAt(nowNanos)) {
                count++;
            }
        }
        return count;
    }

    /** The entry of a shard, or null; for the lease round. */
    Lease get(int shard) {
        return leases.get(shard);
    }

    /** Every entry, deadline passed or not, by ascending shard; for the lease round. */
    Map<Integer, Lease> entries() {
        Map<Integer, Lease> entries = new TreeMap<>();
        for (int shard = 0; shard < leases.length(); shard++) {
            Lease lease = leases.get(shard);
            if (lease != null) {
                entries.put(shard, lease);
            }
        }
        return entries;
    }

    synchronized void put(int shard, Lease lease) {
        if (!closed) {
            leases.set(shard, lease);
            lastEpochs[shard] = lease.epoch();
        }
    }

    /**
     * The epoch this member last held {@code shard} under, held now or not, or 0 if never: a lease still at that epoch
     * was not taken over since. For the lease round.
     */
    long lastEpoch(int shard) {
        return lastEpochs[shard];
    }

    synchronized void remove(int shard) {
        if (!closed) {
            leases.set(shard, null);
        }
    }

    /** Empties the table for good and returns what it held. Idempotent: later calls return nothing. */
    synchronized Map<Integer, Lease> closeAll() {
        Map<Integer, Lease> entries = entries();
        for (int shard : entries.keySet()) {
            leases.set(shard, null);
        }
        closed = true;
        return entries;
    }

    private int checkShard(int shard) {
        if (shard < 0 || shard >= leases.length()) {
            throw new IllegalArgumentException("shard must be in [0, " + leases.length() + "): " + shard);
        }
        return shard;
    }
}
