package dev.tickwheel.server.cluster;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.StoreException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One member's {@link ClusterStore} over a shared {@link FakeClusterDatabase}, with faults a test switches on: every
 * call failing as if the database were unreachable, and a hook that runs before each call reaches the database (to
 * let time pass during a call).
 *
 * <p>Thread-safe.
 */
final class FakeClusterStore implements ClusterStore {

    private final FakeClusterDatabase db;
    private final long session;
    /** Names of the calls made, in order: "renew", "view", "acquire", "release", "leave". */
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** Set by tests on the test thread, read by whichever thread runs the round. */
    private volatile boolean failing;
    /** Set by tests on the test thread, read by whichever thread runs the round. */
    private volatile Runnable beforeCall = () -> { };
    /** Set by tests on the test thread, read by whichever thread runs the round. */
    private volatile Runnable afterCall = () -> { };
    private volatile int nodeId = -1;

    FakeClusterStore(FakeClusterDatabase db, long session) {
        this.db = db;
        this.session = session;
    }

    /** From now on every call throws {@link StoreException}, or none does. */
    void failing(boolean failing) {
        this.failing = failing;
    }

    /**
     * Runs before each call reaches the database, after the failure check: e.g. advancing the clocks to model the
     * latency of the request.
     */
    void beforeCall(Runnable hook) {
        this.beforeCall = hook;
    }

    /** Runs after each successful call left the database: e.g. advancing the clocks to model the latency of the answer. */
    void afterCall(Runnable hook) {
        this.afterCall = hook;
    }

    int joinedNodeId() {
        return nodeId;
    }

    long count(String call) {
        return calls.stream().filter(call::equals).count();
    }

    private void enter(String call) {
        calls.add(call);
        if (failing) {
            throw new StoreException(call + " failed: the database is unreachable", null);
        }
        beforeCall.run();
    }

    /** Returns a call's result after the answer's latency. */
    private <T> T answered(T result) {
        afterCall.run();
        return result;
    }

    private int requireJoined() {
        if (nodeId < 0) {
            throw new IllegalStateException("not joined");
        }
        return nodeId;
    }

    @Override
    public int shardCount() {
        return db.shardCount();
    }

    @Override
    public byte[] callbackKey() {
        return new byte[32];
    }

    @Override
    public long session() {
        return session;
    }

    @Override
    public boolean singleProcess() {
        return false;
    }

    @Override
    public int join(OptionalInt requested, String description, Duration ttl) {
        enter("join");
        nodeId = db.join(session, requested, description, ttl);
        afterCall.run();
        return nodeId;
    }

    @Override
    public Renewal renew(Duration ttl) {
        enter("renew");
        return answered(db.renew(session, requireJoined(), ttl));
    }

    @Override
    public Map<Integer, Long> acquire(Collection<Integer> shards, Duration ttl) {
        enter("acquire");
        return answered(db.acquire(session, requireJoined(), shards, ttl));
    }

    @Override
    public void release(Collection<Integer> shards) {
        enter("release");
        db.release(session, shards);
        afterCall.run();
    }

    @Override
    public void leave() {
        enter("leave");
        db.leave(session, requireJoined());
        afterCall.run();
    }

    @Override
    public ClusterView view() {
        enter("view");
        return answered(db.view());
    }
}
