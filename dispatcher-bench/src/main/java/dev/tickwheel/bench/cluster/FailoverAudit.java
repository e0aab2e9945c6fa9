package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.Summary;
import dev.tickwheel.bench.webhook.DeliveryCheck;
import dev.tickwheel.bench.webhook.DeliveryLog;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a take-over run's instances say, matched against its rounds: for each round, how soon the victim's shards
 * fired again; over the whole run, instances lost and keys delivered twice.
 *
 * <p>Definitions (times are wall-clock ms on one machine: the receiver's arrival, the server's due time, the
 * benchmark's signal):
 * <ul>
 *   <li><b>take-over</b> of a round: from the signal to the first arrival of an instance of the victim's shards that
 *       was due at or after the signal. It includes the wait for such an instance to fall due, reported apart as
 *       <b>first due</b> (with a run due every 20-50 ms over all shards and the victim holding a third of them,
 *       about 0.1 s);
 *   <li><b>lateness</b> of a round: arrival minus due time of the victim-shard instances due in
 *       {@code [signal, signal + observe)}; an instance never delivered counts as lost, not here;
 *   <li><b>lost</b>: instances the API created (201) that are missing from the store, or whose key never arrived;
 *   <li><b>keys delivered twice</b>: arrivals beyond the first of any {@code Idempotency-Key} (a call cut by a
 *       kill and repeated by the new owner with the same key, as at-least-once allows);
 *   <li><b>outside the windows</b>: lateness of every other instance, split into those due while a restarted
 *       member was joining ({@code [restart, shards spread again]}, which includes its JVM's start), those again
 *       by who claimed them (the joiner: a shard handed over to it; another member), and the rest (steady state),
 *       to show that only the victim's shards, and only for the take-over, were late; instances due during
 *       a round in which another client restarted PostgreSQL
 *       ({@link dev.tickwheel.fixtures.postgres.PostgresWatch}) are in neither.
 * </ul>
 *
 * <p>Immutable after construction.
 */
final class FailoverAudit {

    /** Due times this long before a signal still count as the victim's window for "outside the windows". */
    private static final long BEFORE_SIGNAL_MS = 1_000;

    /**
     * One round's instances.
     *
     * @param round            the round
     * @param jobShards        how many of the victim's shards hold jobs of the run
     * @param takeoverMs       see the class comment; NaN if no such instance arrived
     * @param firstDueMs       from the signal to the first such instance's due time; NaN if none
     * @param windowInstances  victim-shard instances due in the lateness window
     * @param windowDelivered  of those, delivered
     * @param lateP50Ms        their lateness, median; NaN if none delivered
     * @param lateMaxMs        their lateness, maximum; NaN if none delivered
     */
    record RoundMeasure(FailoverRound round, int jobShards, double takeoverMs, double firstDueMs, int windowInstances,
                        int windowDelivered, double lateP50Ms, double lateMaxMs) {
    }

    /**
     * An instance outside the victims' windows, for the report's list of the latest (their ids lead to the servers'
     * logs).
     *
     * @param instanceId the instance
     * @param shard      its shard
     * @param dueMs      when it was due (wall clock)
     * @param lateMs     its first arrival minus that
     * @param claimNode  the node of its (last) claim, from the row
     * @param claimEpoch the lease epoch of that claim
     * @param where      {@code steady}, or the round whose restarted member was joining
     */
    record LateInstance(long instanceId, int shard, long dueMs, long lateMs, int claimNode, long claimEpoch,
                        String where) {
    }

    /** How many of the latest instances outside the victims' windows the report lists. */
    static final int LATEST_SHOWN = 5;

    private final List<RoundMeasure> rounds = new ArrayList<>();
    private final List<LateInstance> latestOutside;
    private final long created;
    private final long lost;
    private final long notInStore;
    private final long duplicateKeys;
    private final long stray;
    private final Map<InstanceStatus, Long> statuses = new EnumMap<>(InstanceStatus.class);
    private final long[] rejoinLateMs;
    private final long[] handedOverLateMs;
    private final long[] steadyLateMs;
    private final int inDisturbedRounds;

    /**
     * @param roundsDone every round, in order
     * @param runs       every run the API created
     * @param rows       every instance row at the end
     * @param deliveries the receiver's log
     * @param observeMs  the lateness window after each signal
     */
    FailoverAudit(List<FailoverRound> roundsDone, List<RunStream.Run> runs, List<Instance> rows,
                  DeliveryLog deliveries, long observeMs) {
        Map<Long, Long> firstArrival = new HashMap<>();
        deliveries.forEach((instanceId, attempt, arrivalMs) -> firstArrival.merge(instanceId, arrivalMs, Math::min));
        Set<Long> stored = new HashSet<>();
        rows.forEach(row -> {
            stored.add(row.id());
            statuses.merge(row.status(), 1L, Long::sum);
        });
        DeliveryCheck check = new DeliveryCheck(rows, rows.size(), List.of(deliveries));
        this.created = runs.size();
        this.notInStore = runs.stream().filter(run -> !stored.contains(run.instanceId())).count();
        this.lost = check.lost() + notInStore;
        this.duplicateKeys = check.duplicateKeys();
        this.stray = check.stray();

        Set<Integer> jobShards = new HashSet<>();
        runs.forEach(run -> jobShards.add(run.job().shard()));
        Set<Long> inSomeWindow = new HashSet<>();
        for (FailoverRound round : roundsDone) {
            rounds.add(measure(round, runs, firstArrival, jobShards, observeMs, inSomeWindow));
        }
        Map<Long, Instance> rowsById = new HashMap<>();
        rows.forEach(row -> rowsById.put(row.id(), row));
        List<LateInstance> outside = new ArrayList<>();
        List<Long> rejoin = new ArrayList<>();
        List<Long> handedOver = new ArrayList<>();
        List<Long> steady = new ArrayList<>();
        int disturbedCount = 0;
        for (RunStream.Run run : runs) {
            Long arrival = firstArrival.get(run.instanceId());
            if (arrival == null || inSomeWindow.contains(run.instanceId())) {
                continue;
            }
            if (roundsDone.stream().anyMatch(r -> r.disturbed() && run.dueMs() >= r.signalAtMs() - BEFORE_SIGNAL_MS
                    && run.dueMs() <= r.spreadAtMs())) {
                disturbedCount++;
                continue;
            }
            FailoverRound joining = roundsDone.stream().filter(r -> run.dueMs() >= r.restartAtMs()
                    && run.dueMs() <= r.spreadAtMs()).findFirst().orElse(null);
            long lateMs = arrival - run.dueMs();
            Instance row = rowsById.get(run.instanceId());
            int claimNode = row == null ? -1 : row.claimNode();
            if (joining == null) {
                steady.add(lateMs);
            } else {
                rejoin.add(lateMs);
                if (claimNode == joining.joinedNode()) {
                    handedOver.add(lateMs);
                }
            }
            outside.add(new LateInstance(run.instanceId(), run.job().shard(), run.dueMs(), lateMs, claimNode,
                    row == null ? -1 : row.claimEpoch(), joining == null ? "steady"
                    : "round " + joining.number() + " rejoin (node " + joining.joinedNode() + ")"));
        }
        outside.sort(Comparator.comparingLong(LateInstance::lateMs).reversed());
        this.latestOutside = List.copyOf(outside.subList(0, Math.min(LATEST_SHOWN, outside.size())));
        this.rejoinLateMs = rejoin.stream().mapToLong(Long::longValue).sorted().toArray();
        this.handedOverLateMs = handedOver.stream().mapToLong(Long::longValue).sorted().toArray();
        this.steadyLateMs = steady.stream().mapToLong(Long::longValue).sorted().toArray();
        this.inDisturbedRounds = disturbedCount;
    }

    private static RoundMeasure measure(FailoverRound round, List<RunStream.Run> runs, Map<Long, Long> firstArrival,
                                        Set<Integer> jobShards, long observeMs, Set<Long> inSomeWindow) {
        long signalMs = round.signalAtMs();
        long firstDelivery = Long.MAX_VALUE;
        long firstDue = Long.MAX_VALUE;
        int windowInstances = 0;
        List<Long> lateMs = new ArrayList<>();
        for (RunStream.Run run : runs) {
            if (!round.victimShards().contains(run.job().shard())) {
                continue;
            }
            Long arrival = firstArrival.get(run.instanceId());
            if (run.dueMs() >= signalMs - BEFORE_SIGNAL_MS && run.dueMs() < signalMs + observeMs) {
                inSomeWindow.add(run.instanceId());
            }
            if (run.dueMs() < signalMs) {
                continue;
            }
            firstDue = Math.min(firstDue, run.dueMs());
            if (arrival != null) {
                firstDelivery = Math.min(firstDelivery, arrival);
            }
            if (run.dueMs() < signalMs + observeMs) {
                windowInstances++;
                if (arrival != null) {
                    lateMs.add(arrival - run.dueMs());
                }
            }
        }
        long[] sorted = lateMs.stream().mapToLong(Long::longValue).sorted().toArray();
        int held = (int) round.victimShards().stream().filter(jobShards::contains).count();
        return new RoundMeasure(round, held,
                firstDelivery == Long.MAX_VALUE ? Double.NaN : firstDelivery - signalMs,
                firstDue == Long.MAX_VALUE ? Double.NaN : firstDue - signalMs, windowInstances, sorted.length,
                Summary.percentile(sorted, 50), sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]);
    }

    List<RoundMeasure> rounds() {
        return List.copyOf(rounds);
    }

    /** Instances the API created (201s). */
    long created() {
        return created;
    }

    long lost() {
        return lost;
    }

    /** Created (201) but no row in the store: part of {@link #lost()}. */
    long notInStore() {
        return notInStore;
    }

    long duplicateKeys() {
        return duplicateKeys;
    }

    /** Arrivals of a key no row has had. */
    long stray() {
        return stray;
    }

    /** Rows by status at the end. */
    Map<InstanceStatus, Long> statuses() {
        return new EnumMap<>(statuses);
    }

    /**
     * Lateness (ms) of the instances outside every victim's window, sorted: those due while a restarted member joined
     * ({@code joining}) or the rest.
     */
    long[] outsideLateMs(boolean joining) {
        return (joining ? rejoinLateMs : steadyLateMs).clone();
    }

    /** The latest instances outside the victims' windows, latest first, at most {@link #LATEST_SHOWN}. */
    List<LateInstance> latestOutside() {
        return latestOutside;
    }

    /** Of {@code outsideLateMs(true)}, the lateness (ms, sorted) of those the joining member claimed. */
    long[] handedOverLateMs() {
        return handedOverLateMs.clone();
    }

    /** Instances outside the victims' windows but due during a disturbed round: in neither lateness figure. */
    int inDisturbedRounds() {
        return inDisturbedRounds;
    }

    /** The take-over times (ms) of the rounds that measured one. */
    double[] takeoverMs() {
        return rounds.stream().mapToDouble(RoundMeasure::takeoverMs).filter(v -> !Double.isNaN(v)).toArray();
    }

    /** Each round's maximum lateness (ms), of the rounds that measured one. */
    double[] lateMaxMs() {
        return rounds.stream().mapToDouble(RoundMeasure::lateMaxMs).filter(v -> !Double.isNaN(v)).toArray();
    }

    @Override
    public String toString() {
        return "created " + created + ", lost " + lost + " (not in store " + notInStore + "), keys delivered twice "
                + duplicateKeys + ", stray " + stray + ", rows " + statuses + ", rounds "
                + Arrays.toString(takeoverMs());
    }
}
