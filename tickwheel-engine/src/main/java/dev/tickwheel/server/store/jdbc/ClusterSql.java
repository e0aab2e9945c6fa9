package dev.tickwheel.server.store.jdbc;

import java.util.List;

/**
 * The SQL text of the cluster store ({@code tw_cluster}, {@code tw_node}, {@code tw_shard_lease}); the same on H2
 * and PostgreSQL except the node insert, built from the {@link SqlDialect}. Times are bound as parameters: each
 * cluster transaction reads the database's now once ({@link DatabaseClock#read}) and judges all its statements by it.
 *
 * <p>Every compare-and-set names the state it expects in its {@code WHERE}; under PostgreSQL's READ COMMITTED, a row
 * another transaction changed meanwhile is re-checked against its new version before it is changed, so of two
 * members racing for a row exactly one changes it. Statements that change several lease rows first lock them with
 * one of the {@code LOCK_*} queries, which lock in shard order: two members' multi-row statements then take their
 * row locks in the same order and cannot deadlock.
 *
 * <p>Immutable; thread-safe.
 */
final class ClusterSql {

    /** No parameters. */
    static final String SELECT_SHARD_COUNT = "SELECT shard_count FROM tw_cluster WHERE id = 1";

    /**
     * Parameters: a new key as stored (hex, or sealed: {@link SecretColumns}). Sets the callback key if no member has
     * yet; the row lock orders two that race.
     */
    static final String SET_CALLBACK_KEY_IF_NONE = "UPDATE tw_cluster SET callback_key = ? WHERE id = 1"
            + " AND callback_key IS NULL";

    /** The callback key as stored (hex, or sealed), NULL before the first member made it. */
    static final String SELECT_CALLBACK_KEY = "SELECT callback_key FROM tw_cluster WHERE id = 1";

    /** Parameters: the key re-encrypted, the key as read. A compare-and-set: of members racing, one writes. */
    static final String RESEAL_CALLBACK_KEY = "UPDATE tw_cluster SET callback_key = ? WHERE id = 1"
            + " AND callback_key = ?";

    static final String NODE_COLUMNS = "node_id, session, description, started_at_ms, heartbeat_at_ms, expires_at_ms";

    static final String LEASE_COLUMNS = "shard, owner_node, owner_session, epoch, acquired_at_ms, expires_at_ms";

    /** No parameters. Every node row, by id. */
    static final String SELECT_NODES = "SELECT " + NODE_COLUMNS + " FROM tw_node ORDER BY node_id";

    /** Parameters: node id. */
    static final String SELECT_NODE = "SELECT " + NODE_COLUMNS + " FROM tw_node WHERE node_id = ?";

    /**
     * Parameters: session, description, started at, heartbeat at, expires at, node id, previous session, free by.
     * Takes a node id from its previous holder if that holder still has it and its row expired by {@code free by}
     * (now for a requested id, now minus the reuse grace otherwise).
     */
    static final String TAKE_NODE = "UPDATE tw_node SET session = ?, description = ?, started_at_ms = ?,"
            + " heartbeat_at_ms = ?, expires_at_ms = ? WHERE node_id = ? AND session = ? AND expires_at_ms <= ?";

    /** Parameters: heartbeat at, expires at, node id, session. The heartbeat; 0 rows: the id is no longer ours. */
    static final String RENEW_NODE = "UPDATE tw_node SET heartbeat_at_ms = ?, expires_at_ms = ?"
            + " WHERE node_id = ? AND session = ?";

    /** Parameters: expires at (now), session, now. Ends this member's row unless it already ended. */
    static final String END_NODE = "UPDATE tw_node SET expires_at_ms = ? WHERE session = ? AND expires_at_ms > ?";

    /** Parameters: session. A single-process store's join: the rows of earlier processes are gone. */
    static final String DELETE_OTHER_NODES = "DELETE FROM tw_node WHERE session <> ?";

    /** Parameters: session. This member's leases, locked in shard order. */
    static final String LOCK_OWN_LEASES = "SELECT shard, epoch FROM tw_shard_lease WHERE owner_session = ?"
            + " ORDER BY shard FOR UPDATE";

    /** Parameters: shards (an INTEGER array), session. Those of the shards this member holds, locked in order. */
    static final String LOCK_OWN_LEASES_OF = "SELECT shard, epoch FROM tw_shard_lease"
            + " WHERE shard = ANY(?) AND owner_session = ? ORDER BY shard FOR UPDATE";

    /**
     * Parameters: shards (an INTEGER array), now. Those of the shards nobody holds (never held, released, or
     * expired), locked in shard order.
     */
    static final String LOCK_FREE_LEASES_OF = "SELECT shard, epoch FROM tw_shard_lease WHERE shard = ANY(?)"
            + " AND (owner_session = 0 OR expires_at_ms <= ?) ORDER BY shard FOR UPDATE";

    /** Parameters: session. Leases of other members (a single-process store's join), locked in shard order. */
    static final String LOCK_OTHERS_LEASES = "SELECT shard, epoch FROM tw_shard_lease"
            + " WHERE owner_session <> 0 AND owner_session <> ? ORDER BY shard FOR UPDATE";

    /**
     * Parameters: owner node, session, acquired at (now), expires at, shard, now. One shard's compare-and-set: taken
     * only if nobody holds it, and its epoch grows by one.
     */
    static final String TAKE_LEASE = "UPDATE tw_shard_lease SET owner_node = ?, owner_session = ?,"
            + " epoch = epoch + 1, acquired_at_ms = ?, expires_at_ms = ?"
            + " WHERE shard = ? AND (owner_session = 0 OR expires_at_ms <= ?)";

    /** Parameters: shards (an INTEGER array). Epochs after a take, read under the take's locks. */
    static final String SELECT_EPOCHS_OF = "SELECT shard, epoch FROM tw_shard_lease WHERE shard = ANY(?)";

    /**
     * Parameters: expires at, session. Every lease of this member, expired or not: one that expired is still its
     * own until another member takes it (which changes the owner, so it no longer matches).
     */
    static final String RENEW_LEASES = "UPDATE tw_shard_lease SET expires_at_ms = ? WHERE owner_session = ?";

    /**
     * Parameters: expires at (now), shards (an INTEGER array), session. Released leases are acquirable at once; the
     * epoch stays, and the next taker bumps it.
     */
    static final String RELEASE_LEASES_OF = "UPDATE tw_shard_lease SET owner_node = -1, owner_session = 0,"
            + " expires_at_ms = ? WHERE shard = ANY(?) AND owner_session = ?";

    /** Parameters: expires at (now), session. Every lease of this member released. */
    static final String RELEASE_OWN_LEASES = "UPDATE tw_shard_lease SET owner_node = -1, owner_session = 0,"
            + " expires_at_ms = ? WHERE owner_session = ?";

    /** Parameters: expires at (now), session. A single-process store's join: other members' leases released. */
    static final String RELEASE_OTHERS_LEASES = "UPDATE tw_shard_lease SET owner_node = -1, owner_session = 0,"
            + " expires_at_ms = ? WHERE owner_session <> 0 AND owner_session <> ?";

    /** No parameters. Every lease, by shard. */
    static final String SELECT_LEASES = "SELECT " + LEASE_COLUMNS + " FROM tw_shard_lease ORDER BY shard";

    /**
     * Parameters: node id, session, description, started at, heartbeat at, expires at. Inserts a node row unless
     * the id has one (update count 0 then).
     */
    final String insertNodeIfAbsent;

    ClusterSql(SqlDialect dialect) {
        insertNodeIfAbsent = dialect.insertIfAbsent("tw_node", List.of("node_id", "session", "description",
                "started_at_ms", "heartbeat_at_ms", "expires_at_ms"), List.of("node_id"));
    }
}
