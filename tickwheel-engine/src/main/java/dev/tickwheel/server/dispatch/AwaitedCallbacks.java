package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The job slots this member keeps for calls accepted for a later callback, of jobs with a {@code maxConcurrent}: a
 * job's limit counts its work until the target reports it ({@link CallSlots#callAccepted}).
 *
 * <p>A slot is freed when the report is settled on this member ({@link #ended}), when another member that settled it
 * says so (a cluster prompt), or at the latest by {@link #reconcile}, which compares what is kept with what the store
 * says still awaits a callback in the shards this member holds: it frees what no longer awaits (a lost prompt, a
 * shard that left) and adopts what awaits but is not kept (after a restart or a take-over), so a job's count is right
 * within one loader period whatever was missed.
 *
 * <p>Why reconciling cannot free a slot it should keep: an entry is freed only if it was kept before the store was
 * read ({@code keptAtNanos} earlier than the read's start), so an accept written after the read began is left for the
 * next round. Adopting a row that a report settles just after the read keeps one slot too many until the next round.
 *
 * <p>Thread-safe.
 */
final class AwaitedCallbacks {

    /** A kept slot: the ticket holding it and when it was kept (ticker nanoseconds). */
    private record Kept(CallSlots.Ticket ticket, long keptAtNanos) {
    }

    private final CallSlots slots;
    private final LongSupplier ticker;
    private final Map<Long, Kept> kept = new ConcurrentHashMap<>();

    AwaitedCallbacks(CallSlots slots, LongSupplier ticker) {
        this.slots = slots;
        this.ticker = ticker;
    }

    /** The call of {@code instanceId} was accepted; its ticket keeps its job's slot (if its job has a limit). */
    void keep(long instanceId, CallSlots.Ticket ticket) {
        kept.put(instanceId, new Kept(ticket, ticker.getAsLong()));
    }

    /** The instance no longer awaits a callback: its job slot, if kept, goes back. Idempotent. */
    void ended(long instanceId) {
        Kept gone = kept.remove(instanceId);
        if (gone != null) {
            slots.callbackEnded(gone.ticket());
        }
    }

    /**
     * Makes the kept slots match the store.
     *
     * @param readStartNanos when the read of {@code awaiting} began (ticker nanoseconds)
     * @param awaiting       what the store says awaits a callback in the held shards, of jobs with a limit
     * @param jobs           the job of an instance, if it still exists (cached or read)
     */
    void reconcile(long readStartNanos, List<Instance> awaiting, LongFunction<Optional<Job>> jobs) {
        Set<Long> stillAwaiting = new HashSet<>();
        for (Instance instance : awaiting) {
            stillAwaiting.add(instance.id());
            if (kept.containsKey(instance.id())) {
                continue;
            }
            jobs.apply(instance.jobId()).ifPresent(job -> {
                CallSlots.Ticket adopted = slots.adoptAccepted(instance.id(), job.id(),
                        job.delivery().maxConcurrent());
                if (adopted != null && kept.putIfAbsent(instance.id(), new Kept(adopted, readStartNanos)) != null) {
                    slots.callbackEnded(adopted); // kept meanwhile by this member's own accept
                }
            });
        }
        kept.forEach((instanceId, entry) -> {
            if (!stillAwaiting.contains(instanceId) && entry.keptAtNanos() - readStartNanos < 0
                    && kept.remove(instanceId, entry)) {
                slots.callbackEnded(entry.ticket());
            }
        });
    }
}
