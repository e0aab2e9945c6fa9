package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.MemberEvictedException;
import dev.tickwheel.server.store.SecretBox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link ClusterStore} over JDBC, for H2 and PostgreSQL: this member's node row and shard leases in
 * {@code tw_node} and {@code tw_shard_lease} (statements in {@link ClusterSql}).
 *
 * <p>Every operation is one transaction that reads the database's now once ({@link DatabaseClock#read}) and judges
 * all its statements by that instant; a transaction retried after a transient conflict reads it again. Each change
 * of a lease is a compare-and-set on the lease row, and several rows are locked in shard order first, so racing
 * members neither both win a shard nor deadlock (see {@link ClusterSql}).
 *
 * <p>Thread-safe: every call runs on its own pooled connection; the node id is the one piece of state, written by
 * {@link #join} and {@link #leave}.
 *
 * <p>Caveats: one member per store object: {@link #join} once (again only after {@link #leave}); {@link #renew},
 * {@link #acquire} need a joined member.
 */
final class JdbcClusterStore implements ClusterStore {

    /** Longest description a node row keeps ({@code tw_node.description}). */
    static final int MAX_DESCRIPTION_LENGTH = 200;

    private final TransactionRunner runner;
    private final DatabaseClock clock;
    private final NodeIdTaker nodeIds;
    private final long session;
    private final int shardCount;
    private final boolean singleProcess;
    /** -1 until joined and after leaving; volatile: written by the lease thread, read by any caller of acquire. */
    private volatile int nodeId = -1;

    /** Read once by {@link #callbackKey}; a race reads the same stored key twice. */
    private volatile byte[] callbackKey;
    /** Seals the callback key this member makes, opens the one it reads. */
    private final SecretBox secrets;

    JdbcClusterStore(TransactionRunner runner, SqlDialect dialect, DatabaseClock clock, long session, int shardCount,
                     boolean singleProcess, SecretBox secrets) {
        this.runner = runner;
        this.secrets = secrets;
        this.clock = clock;
        this.nodeIds = new NodeIdTaker(new ClusterSql(dialect));
        this.session = session;
        this.shardCount = shardCount;
        this.singleProcess = singleProcess;
    }

    @Override
    public int shardCount() {
        return shardCount;
    }

    @Override
    public byte[] callbackKey() {
        byte[] key = callbackKey;
        if (key == null) {
            byte[] fresh = new byte[32];
            new java.security.SecureRandom().nextBytes(fresh);
            String stored = runner.inTransaction("read or make the callback key", connection -> {
                try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SET_CALLBACK_KEY_IF_NONE)) {
                    ps.setString(1, SecretColumns.sealCallbackKey(secrets, java.util.HexFormat.of().formatHex(fresh))
                            .stored());
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_CALLBACK_KEY);
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            key = java.util.HexFormat.of().parseHex(SecretColumns.openCallbackKey(secrets, stored));
            callbackKey = key;
        }
        return key.clone();
    }

    @Override
    public long session() {
        return session;
    }

    @Override
    public boolean singleProcess() {
        return singleProcess;
    }

    @Override
    public int join(OptionalInt requested, String description, Duration ttl) {
        Objects.requireNonNull(requested, "requested");
        Objects.requireNonNull(description, "description");
        if (description.length() > MAX_DESCRIPTION_LENGTH) {
            throw new IllegalArgumentException("description must be at most " + MAX_DESCRIPTION_LENGTH
                    + " characters: " + description.length());
        }
        if (requested.isPresent() && (requested.getAsInt() < 0 || requested.getAsInt() >= NodeIdTaker.NODE_IDS)) {
            throw new IllegalArgumentException("requested node id must be between 0 and "
                    + (NodeIdTaker.NODE_IDS - 1) + ": " + requested.getAsInt());
        }
        long ttlMs = ttlMs(ttl);
        if (nodeId >= 0) {
            throw new IllegalStateException("already joined as node " + nodeId + "; leave first");
        }
        int joined = runner.inTransaction("join the cluster", connection -> {
            long nowMs = clock.read(connection);
            if (singleProcess) {
                endOtherMembers(connection, nowMs);
            }
            return nodeIds.take(connection, requested, session, description, nowMs, ttlMs);
        });
        nodeId = joined;
        return joined;
    }

    /**
     * A single-process store: every other node row and lease belongs to a process that no longer runs, so its node
     * rows are deleted (their ids are free at once, and a renewal from a stale store object finds its row gone) and
     * its leases released (their claims become foreign claims of the next owner).
     */
    private void endOtherMembers(Connection connection, long nowMs) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.DELETE_OTHER_NODES)) {
            ps.setLong(1, session);
            ps.executeUpdate();
        }
        try (PreparedStatement lock = connection.prepareStatement(ClusterSql.LOCK_OTHERS_LEASES)) {
            lock.setLong(1, session);
            readEpochs(lock);
        }
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RELEASE_OTHERS_LEASES)) {
            ps.setLong(1, nowMs);
            ps.setLong(2, session);
            ps.executeUpdate();
        }
    }

    @Override
    public Renewal renew(Duration ttl) {
        long ttlMs = ttlMs(ttl);
        int node = joinedNodeId("renew");
        return runner.inTransaction("renew node " + node + " and its leases", connection -> {
            long nowMs = clock.read(connection);
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RENEW_NODE)) {
                ps.setLong(1, nowMs);
                ps.setLong(2, nowMs + ttlMs);
                ps.setInt(3, node);
                ps.setLong(4, session);
                if (ps.executeUpdate() == 0) {
                    throw new MemberEvictedException("node id " + node + " no longer belongs to this member (session "
                            + session + "): another member took it after this one stopped renewing for longer than "
                            + NODE_ID_REUSE_GRACE.toSeconds() + " s; IDs this member mints could collide");
                }
            }
            Map<Integer, Long> held;
            try (PreparedStatement lock = connection.prepareStatement(ClusterSql.LOCK_OWN_LEASES)) {
                lock.setLong(1, session);
                held = readEpochs(lock);
            }
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RENEW_LEASES)) {
                ps.setLong(1, nowMs + ttlMs);
                ps.setLong(2, session);
                ps.executeUpdate();
            }
            return new Renewal(nowMs, held);
        });
    }

    @Override
    public Map<Integer, Long> acquire(Collection<Integer> shards, Duration ttl) {
        long ttlMs = ttlMs(ttl);
        Integer[] wanted = checkedShards(shards);
        int node = joinedNodeId("acquire");
        if (wanted.length == 0) {
            return Map.of();
        }
        return runner.inTransaction("acquire up to " + wanted.length + " shards", connection -> {
            long nowMs = clock.read(connection);
            List<Long> free;
            try (PreparedStatement lock = connection.prepareStatement(ClusterSql.LOCK_FREE_LEASES_OF)) {
                lock.setArray(1, connection.createArrayOf("integer", wanted));
                lock.setLong(2, nowMs);
                free = new ArrayList<>();
                for (int shard : readEpochs(lock).keySet()) {
                    free.add((long) shard);
                }
            }
            // The rows are locked, so the compare-and-sets cannot lose; they are still compare-and-sets, and their
            // per-row counts, not the lock query, say what was taken.
            List<Long> taken = new ArrayList<>(RowByRowCas.apply(connection, free, ClusterSql.TAKE_LEASE,
                    (ps, shard) -> {
                        ps.setInt(1, node);
                        ps.setLong(2, session);
                        ps.setLong(3, nowMs);
                        ps.setLong(4, nowMs + ttlMs);
                        ps.setInt(5, (int) shard);
                        ps.setLong(6, nowMs);
                    }));
            if (taken.isEmpty()) {
                return Map.<Integer, Long>of();
            }
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_EPOCHS_OF)) {
                ps.setArray(1, connection.createArrayOf("integer",
                        taken.stream().map(Long::intValue).toArray(Integer[]::new)));
                return readEpochs(ps);
            }
        });
    }

    @Override
    public void release(Collection<Integer> shards) {
        Integer[] released = checkedShards(shards);
        if (released.length == 0) {
            return;
        }
        runner.inTransaction("release " + released.length + " shards", connection -> {
            long nowMs = clock.read(connection);
            try (PreparedStatement lock = connection.prepareStatement(ClusterSql.LOCK_OWN_LEASES_OF)) {
                lock.setArray(1, connection.createArrayOf("integer", released));
                lock.setLong(2, session);
                readEpochs(lock);
            }
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RELEASE_LEASES_OF)) {
                ps.setLong(1, nowMs);
                ps.setArray(2, connection.createArrayOf("integer", released));
                ps.setLong(3, session);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void leave() {
        runner.inTransaction("leave the cluster", connection -> {
            long nowMs = clock.read(connection);
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.END_NODE)) {
                ps.setLong(1, nowMs);
                ps.setLong(2, session);
                ps.setLong(3, nowMs);
                ps.executeUpdate();
            }
            try (PreparedStatement lock = connection.prepareStatement(ClusterSql.LOCK_OWN_LEASES)) {
                lock.setLong(1, session);
                readEpochs(lock);
            }
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RELEASE_OWN_LEASES)) {
                ps.setLong(1, nowMs);
                ps.setLong(2, session);
                return ps.executeUpdate();
            }
        });
        nodeId = -1;
    }

    @Override
    public ClusterView view() {
        return runner.autoCommit("read the cluster view", connection -> {
            long nowMs = clock.read(connection);
            List<ClusterView.Member> members;
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_NODES)) {
                members = NodeIdTaker.readMembers(ps);
            }
            List<ClusterView.ShardLease> leases = new ArrayList<>(shardCount);
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_LEASES);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    leases.add(new ClusterView.ShardLease(rs.getInt("shard"), rs.getInt("owner_node"),
                            rs.getLong("owner_session"), rs.getLong("epoch"), rs.getLong("acquired_at_ms"),
                            rs.getLong("expires_at_ms")));
                }
            }
            return new ClusterView(nowMs, members, leases);
        });
    }

    private int joinedNodeId(String operation) {
        int node = nodeId;
        if (node < 0) {
            throw new IllegalStateException(operation + " needs a joined member: call join first");
        }
        return node;
    }

    private Integer[] checkedShards(Collection<Integer> shards) {
        TreeSet<Integer> sorted = new TreeSet<>(shards);
        for (int shard : sorted) {
            if (shard < 0 || shard >= shardCount) {
                throw new IllegalArgumentException("shard must be between 0 and " + (shardCount - 1) + ": " + shard);
            }
        }
        return sorted.toArray(new Integer[0]);
    }

    private static long ttlMs(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("ttl must be positive and at most a day: " + ttl);
        }
        return ttl.toMillis();
    }

    /** Reads (shard, epoch) rows, by shard. */
    private static Map<Integer, Long> readEpochs(PreparedStatement ps) throws SQLException {
        Map<Integer, Long> epochs = new TreeMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                epochs.put(rs.getInt("shard"), rs.getLong("epoch"));
            }
        }
        return epochs;
    }
}
