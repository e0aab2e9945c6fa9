package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.Instance;
import java.util.Objects;

/**
 * A DISPATCHING instance claimed under an earlier epoch of its shard than the one this member holds.
 *
 * <p>Its claimant started the call, if at all, while it still held the lease, so before {@code leaseAcquiredAtMs}
 * (this member took the shard only once the old lease had expired or been released, by the database's clock); the
 * call's own deadline ends it at most its timeout later. Released once {@code dbNowMs} has passed
 * {@code leaseAcquiredAtMs} plus the job's timeout, it is delivered again only after the old call can no longer run.
 *
 * <p>Immutable.
 *
 * @param instance          the row as read
 * @param leaseAcquiredAtMs when this member acquired the shard's current lease (database clock)
 * @param dbNowMs           the database's clock when read
 */
public record ForeignClaim(Instance instance, long leaseAcquiredAtMs, long dbNowMs) {

    public ForeignClaim {
        Objects.requireNonNull(instance, "instance");
    }
}
