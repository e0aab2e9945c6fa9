package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.ForeignClaim;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The claims this member inherited with a shard: DISPATCHING rows of shards it holds, claimed under an earlier epoch
 * (by a member that died, stopped or was paused, or by this member's earlier self). Finds them with the lease's
 * acquisition time and the database's now (one query), and settles one at a time, fenced by
 * {@link InstanceSql#shardTakenOver}: the row is still DISPATCHING under the epoch the caller saw, and this member
 * holds its shard, unexpired, under another epoch.
 *
 * <p>Thread-safe: every call runs on its own pooled connection, in auto-commit mode.
 */
final class ForeignClaimStatements {

    private final TransactionRunner runner;
    private final InstanceSql sql;
    private final Clock clock;
    private final Fence fence;

    ForeignClaimStatements(TransactionRunner runner, InstanceSql sql, Clock clock, Fence fence) {
        this.runner = runner;
        this.sql = sql;
        this.clock = clock;
        this.fence = fence;
    }

    List<ForeignClaim> find(long afterId, int limit) {
        QueryLimits.checkPageSize(limit);
        return runner.autoCommit("find foreign claims", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.selectForeignClaims)) {
                fence.clock().bind(ps, 1);
                fence.leaseHeld().bind(ps, 2);
                ps.setString(4, InstanceStatus.DISPATCHING.name());
                ps.setLong(5, afterId);
                ps.setInt(6, limit);
                List<ForeignClaim> claims = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claims.add(new ForeignClaim(InstanceRowMapper.read(rs), rs.getLong("lease_acquired_at_ms"),
                                rs.getLong("db_now_ms")));
                    }
                }
                return claims;
            }
        });
    }

    boolean release(long instanceId, long claimEpoch) {
        long nowMs = clock.millis();
        return runner.autoCommit("release foreign claim of instance " + instanceId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.releaseForeign)) {
                TransitionBinding.releaseForeign(ps, nowMs, instanceId, claimEpoch, fence.leaseHeld());
                return ps.executeUpdate() == 1;
            }
        });
    }

    boolean interrupt(long instanceId, long claimEpoch, String reason) {
        long nowMs = clock.millis();
        String stored = InstanceTransitions.truncate(reason);
        return runner.autoCommit("interrupt foreign claim of instance " + instanceId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql.interruptForeign)) {
                TransitionBinding.interruptForeign(ps, stored, nowMs, instanceId, claimEpoch, fence.leaseHeld());
                return ps.executeUpdate() == 1;
            }
        });
    }
}
