package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.StoreInUseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The node-id part of {@link ClusterStore#join}: picks a node id and takes it for one session, inside the join's
 * transaction.
 *
 * <p>A requested id is taken if it has no row, if the row is this session's, or if its row expired (by the
 * database's clock); a live holder refuses it. Without a request, the lowest id that has no row, or whose row expired
 * at least {@link ClusterStore#NODE_ID_REUSE_GRACE} ago, is taken: the grace keeps a paused member that has not
 * noticed it lost its id from minting IDs under it alongside the new holder. Each take is a compare-and-set on the
 * previous holder's session (or an insert that does nothing if a row appeared), so of members racing for an id exactly
 * one gets it, and the losers try the next candidate.
 *
 * <p>Stateless; thread-safe. Runs inside a transaction the caller owns.
 */
final class NodeIdTaker {

    /** Node ids are 0..1023: the node part of a Snowflake ID has 10 bits. */
    static final int NODE_IDS = 1024;

    private final ClusterSql sql;

    NodeIdTaker(ClusterSql sql) {
        this.sql = sql;
    }

    /**
     * Takes a node id for {@code session}, its row expiring at {@code nowMs + ttlMs}.
     *
     * @throws StoreInUseException if the requested id has a live holder, or no id is free
     */
    int take(Connection connection, OptionalInt requested, long session, String description, long nowMs,
             long ttlMs) throws SQLException {
        NodeRow row = new NodeRow(session, description, nowMs, nowMs + ttlMs);
        if (requested.isPresent()) {
            int nodeId = requested.getAsInt();
            ClusterView.Member holder = readNode(connection, nodeId);
            if (holder != null && holder.session() != session && holder.liveAt(nowMs)) {
                throw new StoreInUseException("node id " + nodeId + " is held by a live member (" + holder.description()
                        + ", session " + holder.session() + ", expires in " + (holder.expiresAtMs() - nowMs)
                        + " ms): pick another id, or none to be given a free one", null);
            }
            if (takeOne(connection, nodeId, holder, nowMs, row)) {
                return nodeId;
            }
            throw new StoreInUseException("node id " + nodeId + " was taken by another member while this one joined",
                    null);
        }
        long freeByMs = nowMs - ClusterStore.NODE_ID_REUSE_GRACE.toMillis();
        Map<Integer, ClusterView.Member> rows = readNodes(connection);
        for (ClusterView.Member holder : rows.values()) {
            if (holder.session() == session && takeOne(connection, holder.nodeId(), holder, Long.MAX_VALUE, row)) {
                return holder.nodeId(); // joined before, under this session: keep the id
            }
        }
        for (int nodeId = 0; nodeId < NODE_IDS; nodeId++) {
            ClusterView.Member holder = rows.get(nodeId);
            if (holder != null && holder.expiresAtMs() > freeByMs) {
                continue;
            }
            if (takeOne(connection, nodeId, holder, freeByMs, row)) {
                return nodeId;
            }
        }
        throw new StoreInUseException("all " + NODE_IDS + " node ids are held, or were held less than "
                + ClusterStore.NODE_ID_REUSE_GRACE.toSeconds() + " s ago", null);
    }

    /** One compare-and-set: insert if there was no row, else take it from {@code holder} if it expired by then. */
    private boolean takeOne(Connection connection, int nodeId, ClusterView.Member holder, long freeByMs, NodeRow row)
            throws SQLException {
        if (holder == null) {
            try (PreparedStatement ps = connection.prepareStatement(sql.insertNodeIfAbsent)) {
                ps.setInt(1, nodeId);
                ps.setLong(2, row.session());
                ps.setString(3, row.description());
                ps.setLong(4, row.nowMs());
                ps.setLong(5, row.nowMs());
                ps.setLong(6, row.expiresAtMs());
                return ps.executeUpdate() == 1;
            } catch (SQLException e) {
                // H2's MERGE reports a racing insert of the same id as a key violation (it does not abort the
                // transaction there); PostgreSQL's ON CONFLICT DO NOTHING never does.
                if (DuplicateIds.isUniqueViolation(e)) {
                    return false;
                }
                throw e;
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.TAKE_NODE)) {
            ps.setLong(1, row.session());
            ps.setString(2, row.description());
            ps.setLong(3, row.nowMs());
            ps.setLong(4, row.nowMs());
            ps.setLong(5, row.expiresAtMs());
            ps.setInt(6, nodeId);
            ps.setLong(7, holder.session());
            ps.setLong(8, holder.session() == row.session() ? Long.MAX_VALUE : freeByMs);
            return ps.executeUpdate() == 1;
        }
    }

    private static ClusterView.Member readNode(Connection connection, int nodeId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_NODE)) {
            ps.setInt(1, nodeId);
            List<ClusterView.Member> found = readMembers(ps);
            return found.isEmpty() ? null : found.get(0);
        }
    }

    private static Map<Integer, ClusterView.Member> readNodes(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_NODES)) {
            Map<Integer, ClusterView.Member> rows = new HashMap<>();
            for (ClusterView.Member member : readMembers(ps)) {
                rows.put(member.nodeId(), member);
            }
            return rows;
        }
    }

    /** Reads node rows over {@link ClusterSql#NODE_COLUMNS}. */
    static List<ClusterView.Member> readMembers(PreparedStatement ps) throws SQLException {
        List<ClusterView.Member> members = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                members.add(new ClusterView.Member(rs.getInt("node_id"), rs.getLong("session"),
                        rs.getString("description"), rs.getLong("started_at_ms"), rs.getLong("heartbeat_at_ms"),
                        rs.getLong("expires_at_ms")));
            }
        }
        return members;
    }

    /** What a taken node row holds. */
    private record NodeRow(long session, String description, long nowMs, long expiresAtMs) {
    }
}
