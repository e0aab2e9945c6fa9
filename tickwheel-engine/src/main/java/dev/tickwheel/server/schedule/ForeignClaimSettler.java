package dev.tickwheel.server.schedule;

import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.ForeignClaim;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles the claims another owner left DISPATCHING in the shards this member holds: a member that was killed, stopped
 * while calls ran past its stop timeout, or paused until its leases moved (or this member's own earlier self). A crash
 * never consumes an attempt: the claim is released as the same attempt (WAITING again, armed, so the call is made again
 * with the same {@code Idempotency-Key}), unless the job is AT_MOST_ONCE and the call had been marked started: then it
 * ends INTERRUPTED.
 *
 * <p>When: the old owner started its calls, if at all, while it still held the lease, so before this member acquired
 * it ({@link ForeignClaim#leaseAcquiredAtMs()}, by the database's clock), and each call's deadline ends it at most the
 * job's timeout after its start. So a claim is settled once the database's clock has passed the acquisition plus the
 * job's timeout plus a margin: the old call can no longer be running, and delivering again cannot overlap it. On a
 * store only one process can open (H2) the old owner is known to be gone, and claims are settled at once.
 *
 * <p>Not thread-safe: runs on the loader thread (after each recovery and each loader pass, and when the first claim
 * a pass left waiting can be settled, see {@link Report#nextInMs()}).
 */
public final class ForeignClaimSettler {

    /** Added to the job's timeout before a foreign claim is settled: clock-rate drift, connection teardown. */
    static final Duration MARGIN = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(ForeignClaimSettler.class);
    private static final int PAGE = 1_000;

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final InstanceDispatcher dispatcher;
    private final Duration defaultTimeout;
    private final boolean previousOwnersGone;
    private final DispatchListener listener;

    /**
     * What one pass did. {@code waiting}: foreign claims whose old calls may still run, to be settled by a later pass;
     * {@code nextInMs}: how long (by the database's clock) until the first of them can be, or -1 if none waits.
     */
    public record Report(int released, int interrupted, int waiting, long nextInMs) {
    }

    /**
     * @param defaultTimeout     the call deadline of jobs that set none
     * @param previousOwnersGone true on a store one process at a time can open: settle without waiting
     * @param listener           told of each instance this ends INTERRUPTED (alerts)
     */
    public ForeignClaimSettler(InstanceStore instances, JobCatalog jobs, InstanceDispatcher dispatcher,
                               Duration defaultTimeout, boolean previousOwnersGone, DispatchListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.defaultTimeout = Objects.requireNonNull(defaultTimeout, "defaultTimeout");
        this.previousOwnersGone = previousOwnersGone;
    }

    /** One pass over every foreign claim of the shards this member holds. */
    public Report settle() {
        int released = 0;
        int interrupted = 0;
        int waiting = 0;
        long nextInMs = -1;
        long after = 0;
        while (true) {
            List<ForeignClaim> page = instances.findForeignClaims(after, PAGE);
            for (ForeignClaim claim : page) {
                Instance instance = claim.instance();
                Optional<Job> job = jobs.get(instance.jobId());
                Duration timeout = job.map(j -> j.delivery().timeoutOr(defaultTimeout)).orElse(defaultTimeout);
                boolean oldCallOver = previousOwnersGone
                        || claim.dbNowMs() >= claim.leaseAcquiredAtMs() + timeout.plus(MARGIN).toMillis();
                if (!oldCallOver) {
                    waiting++;
                    long inMs = claim.leaseAcquiredAtMs() + timeout.plus(MARGIN).toMillis() - claim.dbNowMs();
                    nextInMs = nextInMs < 0 ? inMs : Math.min(nextInMs, inMs);
                    continue;
                }
                boolean atMostOnce = job.isPresent()
                        && job.get().delivery().guarantee() == DeliveryPolicy.Guarantee.AT_MOST_ONCE;
                if (atMostOnce && instance.callStartedAt() != null) {
                    String reason = "the server making the call (node " + instance.claimNode() + ", epoch "
                            + instance.claimEpoch() + ") stopped during it (attempt " + instance.attempt()
                            + "); AT_MOST_ONCE: not repeated, the target may or may not have run it";
                    if (instances.interruptForeign(instance.id(), instance.claimEpoch(), reason)) {
                        interrupted++;
                        listener.instanceEnded(job.get(), instance, InstanceStatus.INTERRUPTED, reason);
                    }
                } else if (instances.releaseForeign(instance.id(), instance.claimEpoch())) {
                    released++;
                    dispatcher.armIfUnknown(instance.id(), instance.jobId(), instance.shard(),
                            instance.expectedTriggerTime(), instance.priority());
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).instance().id();
        }
        if (released + interrupted > 0) {
            log.info("claims left by another owner: {} to be made again (same attempt), {} AT_MOST_ONCE calls"
                    + " interrupted, {} still waiting for their old calls' deadlines", released, interrupted, waiting);
        }
        return new Report(released, interrupted, waiting, nextInMs);
    }
}
