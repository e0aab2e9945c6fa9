package dev.tickwheel.bench.cluster;

import java.util.Set;

/**
 * One round of a take-over run as it happened: who was signalled, what it held, and what the cluster did about it.
 * The instances' side (when the victim's shards fired again) is {@link FailoverAudit}'s.
 *
 * <p>Immutable.
 *
 * @param number          1, 2, ...
 * @param graceful        SIGTERM (true) or SIGKILL (false)
 * @param victim          the member slot's name
 * @param victimNode      its node id
 * @param victimShards    the shards it held just before the signal
 * @param signalAtMs      when the signal was sent (wall clock)
 * @param stopTookMs      SIGTERM: from the signal to the process's end; -1 for SIGKILL
 * @param exitCode        the process's exit code (137 for SIGKILL)
 * @param leasesMovedAtMs when {@code GET /api/cluster} (polled every 100 ms) first showed every one of the victim's
 *                        shards held by another node; -1 if it never did within the round
 * @param restartAtMs     when the victim's new process was started (wall clock)
 * @param joinedNode      the node id the restarted process joined as
 * @param spreadAtMs      when the shards were seen spread over the members again, the restarted one included, and
 *                        stable (no shard changing hands) for a second
 * @param loadAverage     the machine's load average at the signal
 * @param disturbance     what another client did to PostgreSQL during the round
 *                        ({@link dev.tickwheel.fixtures.postgres.PostgresWatch}), or null: a disturbed round is
 *                        shown but left out of the medians
 */
record FailoverRound(int number, boolean graceful, String victim, int victimNode, Set<Integer> victimShards,
                     long signalAtMs, long stopTookMs, int exitCode, long leasesMovedAtMs, long restartAtMs,
                     int joinedNode, long spreadAtMs, String loadAverage, String disturbance) {

    FailoverRound {
        victimShards = Set.copyOf(victimShards);
    }

    boolean disturbed() {
        return disturbance != null;
    }

    /** From the restart to the shards being spread again, the new process's start included. */
    long rejoinMs() {
        return spreadAtMs - restartAtMs;
    }

    /** From the signal to the leases having moved, or -1. */
    long leasesMovedMs() {
        return leasesMovedAtMs < 0 ? -1 : leasesMovedAtMs - signalAtMs;
    }
}
