package dev.tickwheel.server.cluster;

/**
 * A lease keeper's counters at one moment, for metrics and the health check.
 *
 * <p>Immutable snapshot; the counters grow from 0 at the keeper's construction.
 *
 * @param shardsHeld            shards this member may act on now ({@link ShardOwnership#holds})
 * @param shardsDraining        shards moving to another member: renewed, not acted on, not yet released
 * @param renewals              successful renewals
 * @param renewFailures         renewals that threw (the database unreachable, a statement failed)
 * @param lastRenewLatencyNanos how long the last successful renewal took, or -1 before the first
 * @param sinceLastRenewNanos   time since the last successful renewal was sent, or since the keeper was made if none
 *                              was; above the lease's TTL this member holds nothing
 * @param takeovers             shards acquired whose lease another member had held before (expired or released)
 * @param shardsReleased        shards this member released after draining them
 * @param roundFailures         rounds that ended in an unexpected throw (a bug or a throwing listener), logged
 */
public record LeaseStats(int shardsHeld, int shardsDraining, long renewals, long renewFailures,
                         long lastRenewLatencyNanos, long sinceLastRenewNanos, long takeovers, long shardsReleased,
                         long roundFailures) {
}
