package dev.tickwheel.server.dispatch;

import dev.tickwheel.concurrent.Batcher;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims admitted instances in batches and starts their calls: the dispatcher {@link #submit}s an instance once it
 * holds its call slots; the claim thread ({@code tickwheel-claim-1}, a {@link Batcher}) claims whatever has queued up
 * with one {@link InstanceStore#claimArmed} statement that returns the claimed rows, and starts their calls.
 *
 * <p>Why exactly-once holds: batching changes how many rows one statement moves, not the condition. The claim is still
 * {@code status = 'WAITING'} per row under the row lock, so an instance cancelled first is never claimed, and of any
 * number of racing claims exactly one gets it back. An instance the statement did not claim gives its slots back.
 *
 * <p>AT_MOST_ONCE instances get their call-started mark ({@link InstanceStore#markCallStarted}) written before their
 * calls start; if that write fails they are released (WAITING again, same attempt) and re-armed, never called
 * unmarked; one the mark's fence refused (its shard moved since the claim) is not called at all.
 *
 * <p>Thread-safe: {@link #submit} from any thread.
 *
 * <p>Caveats: instances still queued at {@link #close()} are not claimed; they stay WAITING in the store, and their
 * slots are handed to {@code onNotClaimed}.
 */
final class ClaimBatcher implements AutoCloseable {

    static final int DEFAULT_MAX_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(ClaimBatcher.class);

    /**
     * An instance that holds its call slots, with its job as read when its timer fired and the due time that timer was
     * armed for (epoch ms), which the claim names (see {@link InstanceStore#claimArmed}).
     */
    record Admitted(CallSlots.Ticket ticket, Job job, int shard, long armedForMs, Integer priority, Instant firedAt) {
        long instanceId() {
            return ticket.instanceId();
        }
    }

    /** Starts the call of a claimed instance. Must not block. */
    @FunctionalInterface
    interface CallStarter {
        void start(Instance claimed, Admitted admitted);
    }

    /** Told about admitted instances this batcher did not claim; {@code retry} when they should be re-armed. */
    @FunctionalInterface
    interface NotClaimed {
        void notClaimed(List<Admitted> admitted, boolean retry);
    }

    private final InstanceStore instances;
    private final Clock clock;
    private final CallStarter calls;
    private final NotClaimed notClaimed;
    private final Batcher<Admitted> batcher;
    /** Set by close(), read by the claim thread: from then on nothing more is claimed. */
    private volatile boolean closing;

    ClaimBatcher(InstanceStore instances, Clock clock, int maxBatch, CallStarter calls, NotClaimed notClaimed) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.calls = Objects.requireNonNull(calls, "calls");
        this.notClaimed = Objects.requireNonNull(notClaimed, "notClaimed");
        this.batcher = new Batcher<>("claim", maxBatch, this::claim, (batch, failure) -> {
            log.error("claim of {} instances failed; re-arming them", batch.size(), failure);
            notClaimed.notClaimed(batch, true);
        });
    }

    /** Queues an admitted instance for the next claim. Never blocks. */
    void submit(Admitted admitted) {
        batcher.add(admitted);
    }

    private void claim(List<Admitted> batch) {
        if (closing) {
            notClaimed.notClaimed(batch, false);
            return;
        }
        Instant now = clock.instant();
        Map<Long, Long> armedFor = new HashMap<>();
        batch.forEach(a -> armedFor.merge(a.instanceId(), a.armedForMs(), Math::max)); // admitted twice: the later
        Map<Long, Instance> claimed = new HashMap<>();
        for (Instance instance : instances.claimArmed(armedFor, now)) { // a throw: nothing claimed, re-armed
            claimed.put(instance.id(), instance);
        }
        List<Admitted> lost = new ArrayList<>();
        List<Admitted> atMostOnce = new ArrayList<>();
        Map<Long, Instance> atMostOnceRows = new HashMap<>();
        for (Admitted admitted : batch) {
            // remove: an instance admitted twice (two timers raced, e.g. a sweep and an arm) is claimed once, and
            // only its first admission gets the call; the second is a lost claim like any other.
            Instance instance = claimed.remove(admitted.instanceId());
            if (instance == null) {
                lost.add(admitted);
            } else if (admitted.job().delivery().guarantee() == DeliveryPolicy.Guarantee.AT_MOST_ONCE) {
                atMostOnce.add(admitted);
                atMostOnceRows.put(instance.id(), instance);
            } else {
                calls.start(instance, admitted);
            }
        }
        if (!lost.isEmpty()) {
            notClaimed.notClaimed(lost, false); // cancelled, finished or claimed elsewhere
        }
        if (!atMostOnce.isEmpty()) {
            startAtMostOnce(atMostOnce, atMostOnceRows, now);
        }
    }

    private void startAtMostOnce(List<Admitted> batch, Map<Long, Instance> claimed, Instant now) {
        Set<Long> marked;
        try {
            marked = instances.markCallStarted(batch.stream().map(Admitted::instanceId).toList(), now);
        } catch (RuntimeException e) {
            log.error("marking {} AT_MOST_ONCE calls as started failed; releasing them unstarted", batch.size(), e);
            for (Admitted admitted : batch) {
                try {
                    instances.release(admitted.instanceId());
                } catch (RuntimeException releaseFailure) {
                    // Still DISPATCHING without the mark: the next start dispatches it again, which is correct for
                    // a call that never started.
                    log.error("instance {} stays DISPATCHING until the next start", admitted.instanceId(),
                            releaseFailure);
                }
            }
            notClaimed.notClaimed(batch, true);
            return;
        }
        List<Admitted> fenced = new ArrayList<>();
        for (Admitted admitted : batch) {
            if (marked.contains(admitted.instanceId())) {
                calls.start(claimed.get(admitted.instanceId()), admitted);
            } else {
                fenced.add(admitted); // the shard moved since the claim: its new owner settles the row
            }
        }
        if (!fenced.isEmpty()) {
            log.info("{} AT_MOST_ONCE claims lost their shard before their calls started; not calling them",
                    fenced.size());
            notClaimed.notClaimed(fenced, false);
        }
    }

    /** Stops claiming; hands what is still queued to {@code notClaimed} (it stays WAITING). Idempotent. */
    @Override
    public void close() {
        closing = true;
        List<Admitted> left = batcher.close(30, TimeUnit.SECONDS);
        if (!left.isEmpty()) {
            log.info("{} fired instances were not claimed before close; they stay WAITING", left.size());
            notClaimed.notClaimed(left, false);
        }
    }
}
