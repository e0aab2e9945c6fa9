package dev.tickwheel.server.cluster.process;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.cluster.RunStream.CancelAnswer;
import dev.tickwheel.fixtures.cluster.RunStream.Run;
import dev.tickwheel.fixtures.cluster.StoredInstances.Stored;
import dev.tickwheel.fixtures.webhook.LedgerReceiver;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.Delivery;
import dev.tickwheel.fixtures.webhook.LedgerReceiver.ShardEpoch;
import dev.tickwheel.server.store.Shards;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.function.Executable;

/**
 * Holds what the target received (the {@link LedgerReceiver}) against what the store ended with and what the test
 * asked for (runs and cancels), once everything has ended. Each check returns its violations, one line each, so a
 * test asserts exactly the ones its scenario promises and a failure names the instances.
 *
 * <p>The checks, and why each is a guarantee of the cluster:
 * <ul>
 *   <li>{@link #lost}: nothing lost: an instance that was not cancelled ended SUCCEEDED and reached the target.</li>
 *   <li>{@link #keyProblems}: one key per instance, {@code <id>-<attempt>}: a repeat after a crash or a take-over is
 *       the same attempt (a crash consumes no attempt), so a target can deduplicate it.</li>
 *   <li>{@link #cancelledButDelivered}: a cancel that answered CANCELLED wins: the instance is never called.</li>
 *   <li>{@link #earlyDispatches}: a cancel that found the instance already dispatched was answered after the
 *       instance was due: the claim precedes the cancel's compare-and-set, and nothing fires before it is due.</li>
 *   <li>{@link #sharedEpochs}: a (shard, epoch) names one owner: calls under one epoch all come from one node.</li>
 *   <li>{@link #epochRegressions}: once an instance was delivered under an epoch, it is never again delivered under
 *       a lower one: a member that lost the shard (a paused one waking up) sends nothing.</li>
 *   <li>{@link #shardInterleavings}: the same for a whole shard: once any delivery of a newer epoch arrived, none of
 *       an older one does; this holds when shards move by a graceful hand-over (the old owner drains first).</li>
 *   <li>{@link #claimMismatches}: the last delivery of a SUCCEEDED instance came from the claim the store kept
 *       ({@code claimNode}, {@code claimEpoch}).</li>
 * </ul>
 *
 * <p>Immutable after construction (it copies the ledger and the lists it is given).
 */
final class DeliveryAudit {

    /**
     * Slack for comparing a server's due time with a test-JVM answer time: both are this machine's wall clock, read
     * by different processes, so they can disagree by a clock-read granularity, not more.
     */
    private static final long SAME_CLOCK_SLACK_MS = 50;
    private static final int EXAMPLES = 10;

    /** Latencies of a set of instances: how many, median, 90th percentile and worst, in milliseconds. */
    record LatencySummary(int count, long p50Ms, long p90Ms, long maxMs, long worstInstanceId) {
        static LatencySummary of(Map<Long, Long> latencyMsById) {
            if (latencyMsById.isEmpty()) {
                return new LatencySummary(0, 0, 0, 0, 0);
            }
            List<Map.Entry<Long, Long>> sorted = new ArrayList<>(latencyMsById.entrySet());
            sorted.sort(Map.Entry.comparingByValue());
            Map.Entry<Long, Long> worst = sorted.get(sorted.size() - 1);
            return new LatencySummary(sorted.size(), nearestRank(sorted, 50), nearestRank(sorted, 90),
                    worst.getValue(), worst.getKey());
        }

        private static long nearestRank(List<Map.Entry<Long, Long>> sorted, int percentile) {
            int rank = (int) Math.ceil(percentile / 100.0 * sorted.size());
            return sorted.get(Math.max(0, rank - 1)).getValue();
        }

        @Override
        public String toString() {
            return "n=" + count + " p50=" + p50Ms + " ms p90=" + p90Ms + " ms max=" + maxMs + " ms (instance "
                    + worstInstanceId + ")";
        }
    }

    private final Map<Long, Stored> stored;
    private final List<Run> runs;
    private final List<CancelAnswer> cancels;
    private final Map<Long, List<Delivery>> deliveries = new HashMap<>(); // by instance, in arrival order
    private final List<Delivery> byArrival;
    private final Map<ShardEpoch, Set<Integer>> nodesByShardEpoch;
    private final int repeatsWithSameKey;

    DeliveryAudit(LedgerReceiver ledger, Map<Long, Stored> stored, List<Run> runs, List<CancelAnswer> cancels) {
        this.stored = Map.copyOf(stored);
        this.runs = List.copyOf(runs);
        this.cancels = List.copyOf(cancels);
        for (Long id : ledger.deliveredInstanceIds()) {
            deliveries.put(id, ledger.deliveriesOf(id));
        }
        List<Delivery> all = new ArrayList<>(ledger.all());
        all.sort(Comparator.comparingLong(Delivery::receivedAtNanos));
        this.byArrival = List.copyOf(all);
        this.nodesByShardEpoch = ledger.nodesByShardEpoch();
        this.repeatsWithSameKey = ledger.repeatsWithSameKey();
    }

    /** Instances the API created (a 201) that the store does not list. */
    List<String> notInStore() {
        return runs.stream().filter(r -> !stored.containsKey(r.instanceId()))
                .map(r -> r.instanceId() + " (created via " + r.via() + ") is not in the store").toList();
    }

    /** Deliveries of instances the store does not have. */
    List<String> phantoms() {
        return deliveries.keySet().stream().filter(id -> !stored.containsKey(id)).sorted()
                .map(id -> id + " was delivered but is not in the store: " + deliveries.get(id)).toList();
    }

    /** Instances not cancelled that did not end SUCCEEDED, or ended SUCCEEDED without reaching the target. */
    List<String> lost() {
        List<String> lost = new ArrayList<>();
        for (Stored s : sorted(stored.values())) {
            if (s.status().equals("CANCELLED")) {
                continue;
            }
            if (!s.status().equals("SUCCEEDED")) {
                lost.add(s.id() + " ended " + s.status() + " (attempt " + s.attempt() + ", error " + s.error()
                        + ", shard " + s.shard() + ", claim node " + s.claimNode() + " epoch " + s.claimEpoch() + ")");
            } else if (deliveriesOf(s.id()).isEmpty()) {
                lost.add(s.id() + " is SUCCEEDED but never reached the target (shard " + s.shard() + ", claim node "
                        + s.claimNode() + " epoch " + s.claimEpoch() + ")");
            }
        }
        return lost;
    }

    /** Instances delivered under more than one key, or under a key other than {@code <id>-<attempt>}. */
    List<String> keyProblems() {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Long, List<Delivery>> e : new TreeMap<>(deliveries).entrySet()) {
            Set<String> keys = new TreeSet<>();
            e.getValue().forEach(d -> keys.add(d.idempotencyKey()));
            Stored s = stored.get(e.getKey());
            if (keys.size() > 1) {
                problems.add(e.getKey() + " was delivered under " + keys.size() + " keys: " + keys);
            } else if (s != null && !keys.contains(s.id() + "-" + s.attempt())) {
                problems.add(e.getKey() + " was delivered under " + keys + ", the store says attempt " + s.attempt());
            }
        }
        return problems;
    }

    /** Instances that ended CANCELLED, or whose cancel answered CANCELLED, and reached the target anyway. */
    List<String> cancelledButDelivered() {
        List<String> problems = new ArrayList<>();
        for (CancelAnswer cancel : cancels) {
            if (!cancel.cancelled()) {
                continue;
            }
            Stored s = stored.get(cancel.instanceId());
            if (!deliveriesOf(cancel.instanceId()).isEmpty()) {
                problems.add(cancel.instanceId() + ": cancel via " + cancel.via() + " answered CANCELLED, then it was"
                        + " delivered: " + deliveriesOf(cancel.instanceId()));
            } else if (s != null && !s.status().equals("CANCELLED")) {
                problems.add(cancel.instanceId() + ": cancel via " + cancel.via() + " answered CANCELLED, the store"
                        + " says " + s.status());
            }
        }
        for (Stored s : sorted(stored.values())) {
            if (s.status().equals("CANCELLED") && !deliveriesOf(s.id()).isEmpty()) {
                problems.add(s.id() + " ended CANCELLED but was delivered: " + deliveriesOf(s.id()));
            }
        }
        return problems.stream().distinct().toList();
    }

    /** Cancels answered "already dispatched or finished" before the instance was even due. */
    List<String> earlyDispatches() {
        return cancels.stream().filter(c -> c.status() == 409)
                .filter(c -> c.answeredAtMs() < c.dueMs() - SAME_CLOCK_SLACK_MS)
                .map(c -> c.instanceId() + ": cancel via " + c.via() + " answered " + c.outcome() + " at "
                        + c.answeredAtMs() + ", " + (c.dueMs() - c.answeredAtMs())
                        + " ms before it was due")
                .toList();
    }

    /** (shard, epoch) pairs delivered under by more than one node. */
    List<String> sharedEpochs() {
        return new TreeMap<>(nodesByShardEpoch).entrySet().stream().filter(e -> e.getValue().size() > 1)
                .map(e -> "shard " + e.getKey().shard() + " epoch " + e.getKey().epoch() + " was delivered under by"
                        + " nodes " + e.getValue())
                .toList();
    }

    /** Instances delivered under an epoch lower than one they had already been delivered under. */
    List<String> epochRegressions() {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Long, List<Delivery>> e : new TreeMap<>(deliveries).entrySet()) {
            long highest = Long.MIN_VALUE;
            for (Delivery d : e.getValue()) {
                if (d.epoch() < highest) {
                    problems.add(e.getKey() + " went back to epoch " + d.epoch() + " (node " + d.node() + ") after "
                            + highest + ": " + e.getValue());
                    break;
                }
                highest = d.epoch();
            }
        }
        return problems;
    }

    /** Deliveries that arrived after a delivery of a newer epoch of the same shard. */
    List<String> shardInterleavings() {
        Map<Integer, Delivery> newest = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Delivery d : byArrival) {
            Delivery seen = newest.get(d.shard());
            if (seen != null && d.epoch() < seen.epoch()) {
                problems.add("shard " + d.shard() + ": instance " + d.instanceId() + " under epoch " + d.epoch()
                        + " (node " + d.node() + ") arrived " + (d.receivedAtNanos() - seen.receivedAtNanos())
                        / 1_000_000 + " ms after instance " + seen.instanceId() + " under epoch " + seen.epoch()
                        + " (node " + seen.node() + ")");
            } else if (seen == null || d.epoch() > seen.epoch()) {
                newest.put(d.shard(), d);
            }
        }
        return problems;
    }

    /** SUCCEEDED instances whose last delivery is not from the claim the store kept. */
    List<String> claimMismatches() {
        List<String> problems = new ArrayList<>();
        for (Stored s : sorted(stored.values())) {
            List<Delivery> ofInstance = deliveriesOf(s.id());
            if (!s.status().equals("SUCCEEDED") || ofInstance.isEmpty()) {
                continue;
            }
            Delivery last = ofInstance.get(ofInstance.size() - 1);
            if (s.claimNode() == null || s.claimEpoch() == null || last.node() != s.claimNode()
                    || last.epoch() != s.claimEpoch()) {
                problems.add(s.id() + ": claim node " + s.claimNode() + " epoch " + s.claimEpoch()
                        + ", last delivery from node " + last.node() + " epoch " + last.epoch());
            }
        }
        return problems;
    }

    /**
     * The guarantees every process test's audit checks, as assertions for {@code assertAll}: each created instance
     * stored, nothing delivered that is not stored, nothing lost, one key per instance, each (shard, epoch) one
     * node's and never a fenced one's, the ledger agreeing with the lease table ({@code holders}), the store's claim
     * naming the last delivery, and each instance on its own shard.
     */
    List<Executable> guarantees(Map<ShardEpoch, Set<Integer>> holders) {
        return List.of(
                () -> assertTrue(notInStore().isEmpty(), () -> "created but not stored: " + show(notInStore())),
                () -> assertTrue(phantoms().isEmpty(), () -> "delivered but not stored: " + show(phantoms())),
                () -> assertTrue(lost().isEmpty(), () -> "lost: " + show(lost())),
                () -> assertTrue(keyProblems().isEmpty(), () -> "not one key per instance: " + show(keyProblems())),
                () -> assertTrue(sharedEpochs().isEmpty(), () -> "one epoch, several nodes: " + show(sharedEpochs())),
                () -> assertTrue(epochRegressions().isEmpty(), () -> "delivered from a fenced epoch: "
                        + show(epochRegressions())),
                () -> assertTrue(leaseDisagreements(holders).isEmpty(), () -> "ledger vs leases: "
                        + show(leaseDisagreements(holders))),
                () -> assertTrue(claimMismatches().isEmpty(), () -> "store's claim vs last delivery: "
                        + show(claimMismatches())),
                () -> assertTrue(shardMismatches().isEmpty(), () -> "instance shard: " + show(shardMismatches())));
    }

    /**
     * Instances whose {@code shard} is not their own ({@link Shards#ofInstance}: the audited jobs spread their
     * instances).
     */
    List<String> shardMismatches() {
        return sorted(stored.values()).stream()
                .filter(s -> s.shard() != Shards.ofInstance(s.id(), s.jobId(), true, null, Shards.DEFAULT_COUNT))
                .map(s -> s.id() + " of job " + s.jobId() + " shows shard " + s.shard() + ", expected "
                        + Shards.ofInstance(s.id(), s.jobId(), true, null, Shards.DEFAULT_COUNT))
                .toList();
    }

    /** (shard, epoch) pairs the ledger and the lease table disagree on, or the lease table showed two holders of. */
    List<String> leaseDisagreements(Map<ShardEpoch, Set<Integer>> observedHolders) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<ShardEpoch, Set<Integer>> e : new TreeMap<>(observedHolders).entrySet()) {
            Set<Integer> delivering = nodesByShardEpoch.get(e.getKey());
            if (e.getValue().size() > 1) {
                problems.add("the lease table showed shard " + e.getKey().shard() + " epoch " + e.getKey().epoch()
                        + " held by nodes " + e.getValue());
            } else if (delivering != null && !e.getValue().containsAll(delivering)) {
                problems.add("shard " + e.getKey().shard() + " epoch " + e.getKey().epoch() + " was held by node "
                        + e.getValue() + " but delivered under by nodes " + delivering);
            }
        }
        return problems;
    }

    /**
     * How late the first delivery of the runs of {@code shards} due in [{@code dueFromMillis}, {@code dueToMillis})
     * was, counted from their due time or from {@code sinceMillis}, whichever is later: first delivery − max(due,
     * since). Runs that had reached the target before {@code sinceMillis}, and runs not SUCCEEDED (cancelled, or
     * lost: {@link #lost} reports those), are left out.
     */
    LatencySummary lateness(Set<Integer> shards, long sinceMillis, long dueFromMillis, long dueToMillis) {
        return lateness(shards, sinceMillis, dueFromMillis, dueToMillis, Set.of());
    }

    /** As {@link #lateness(Set, long, long, long)}, leaving out the instances {@code excluded} names. */
    LatencySummary lateness(Set<Integer> shards, long sinceMillis, long dueFromMillis, long dueToMillis,
                            Set<Long> excluded) {
        Map<Long, Long> latencyMsById = new HashMap<>();
        for (Run run : runs) {
            if (excluded.contains(run.instanceId())) {
                continue;
            }
            Stored s = stored.get(run.instanceId());
            List<Delivery> ofInstance = deliveriesOf(run.instanceId());
            if (!shards.contains(run.shard()) || run.dueMs() < dueFromMillis || run.dueMs() >= dueToMillis
                    || s == null || !s.status().equals("SUCCEEDED") || ofInstance.isEmpty()) {
                continue;
            }
            long firstMillis = ofInstance.get(0).receivedAtMs();
            if (firstMillis < sinceMillis) {
                continue;
            }
            latencyMsById.put(run.instanceId(), firstMillis - Math.max(run.dueMs(), sinceMillis));
        }
        return LatencySummary.of(latencyMsById);
    }

    /** Node ids that made at least one delivery. */
    Set<Integer> deliveringNodes() {
        Set<Integer> nodes = new TreeSet<>();
        byArrival.forEach(d -> nodes.add(d.node()));
        return nodes;
    }

    /** Deliveries beyond the first of a key: calls repeated after a crash or a take-over. */
    int repeatsWithSameKey() {
        return repeatsWithSameKey;
    }

    /** Counts for the test's report. */
    String summary() {
        Map<String, Integer> byStatus = new TreeMap<>();
        stored.values().forEach(s -> byStatus.merge(s.status(), 1, Integer::sum));
        return "store: " + stored.size() + " instances " + byStatus + "; ledger: " + byArrival.size()
                + " deliveries of " + deliveries.size() + " instances by nodes " + deliveringNodes() + ", "
                + repeatsWithSameKey + " repeats with the same key, " + nodesByShardEpoch.size()
                + " (shard, epoch) pairs";
    }

    /** A violation list for an assertion message: how many, and the first few. */
    static String show(List<String> problems) {
        return problems.size() + (problems.size() > EXAMPLES ? ", the first " + EXAMPLES : "") + ":\n  "
                + String.join("\n  ", problems.subList(0, Math.min(EXAMPLES, problems.size())));
    }

    private List<Delivery> deliveriesOf(long instanceId) {
        return deliveries.getOrDefault(instanceId, List.of());
    }

    private static List<Stored> sorted(java.util.Collection<Stored> values) {
        return values.stream().sorted(Comparator.comparingLong(Stored::id)).toList();
    }
}
