package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.Summary;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The cluster benchmark's results as Markdown, ready for docs/cluster.md: a table per mode (a row per round or run)
 * and the medians (for rounds: p50 and max over the rounds, as the targets are stated).
 *
 * <p>Stateless.
 */
public final class ClusterReport {

    /** TAKEOVER's targets: p50 and max of the take-over time over the kills. */
    static final double KILL_P50_TARGET_S = 6;
    static final double KILL_MAX_TARGET_S = 8;
    /** GRACEFUL's target: the take-over after a SIGTERM. */
    static final double STOP_TARGET_S = 1;

    private ClusterReport() {
    }

    /** A take-over run: a row per round, then p50 and max over the rounds, then the whole run's audit. */
    public static String failover(ClusterSettings settings, FailoverRun.Outcome outcome) {
        boolean graceful = outcome.mode() == ClusterSettings.Mode.GRACEFUL;
        FailoverAudit audit = outcome.audit();
        StringBuilder s = new StringBuilder();
        s.append("### ").append(graceful ? "Graceful stop (SIGTERM)" : "Take-over after kill -9").append("\n\n");
        s.append(settings.describe(outcome.mode())).append(".\n\n");
        s.append(header("round", "victim (node)", "shards held (with jobs)", graceful ? "stop took s" : null,
                "leases moved s", "take-over s", "first due s", "late p50 s", "late max s", "instances in window",
                "rejoin s", "load 1/5/15"));
        for (FailoverAudit.RoundMeasure m : audit.rounds()) {
            FailoverRound r = m.round();
            s.append(row(r.number() + (r.disturbed() ? " (disturbed)" : ""), r.victim() + " (" + r.victimNode() + ")",
                    r.victimShards().size() + " (" + m.jobShards() + ")",
                    graceful ? seconds(r.stopTookMs()) : null,
                    r.leasesMovedMs() < 0 ? "never" : seconds(r.leasesMovedMs()), seconds(m.takeoverMs()),
                    seconds(m.firstDueMs()), seconds(m.lateP50Ms()), seconds(m.lateMaxMs()),
                    m.windowDelivered() + "/" + m.windowInstances(), seconds(r.rejoinMs()),
                    shortLoad(r.loadAverage())));
        }
        s.append('\n');
        // A round in which another process restarted PostgreSQL measured the outage: shown above, not counted here.
        List<FailoverAudit.RoundMeasure> rounds = audit.rounds().stream().filter(m -> !m.round().disturbed()).toList();
        audit.rounds().stream().filter(m -> m.round().disturbed()).forEach(m -> s.append("- round ")
                .append(m.round().number()).append(" is left out of the figures below: ")
                .append(m.round().disturbance()).append('\n'));
        String targets = graceful ? "target ≤ " + fmt(STOP_TARGET_S) + " s"
                : "targets p50 ≤ " + fmt(KILL_P50_TARGET_S) + " s, max ≤ " + fmt(KILL_MAX_TARGET_S) + " s";
        s.append("- **take-over** (signal → first arrival of a victim-shard instance due after it), over ")
                .append(rounds.size()).append(" rounds: ").append(p50AndMax(rounds, FailoverAudit.RoundMeasure::takeoverMs))
                .append(" (").append(targets).append("); of which waiting for the first such instance to fall due: ")
                .append(p50AndMax(rounds, FailoverAudit.RoundMeasure::firstDueMs)).append('\n');
        if (graceful) {
            s.append("- **stop took** (SIGTERM → process ended): ")
                    .append(p50AndMax(rounds, m -> m.round().stopTookMs())).append('\n');
        }
        s.append("- leases moved (GET /api/cluster polled every 100 ms): ")
                .append(p50AndMax(rounds, m -> m.round().leasesMovedMs() < 0 ? Double.NaN : m.round().leasesMovedMs()))
                .append('\n');
        s.append("- max lateness of the victim's instances due in the ").append(settings.observeMs() / 1000)
                .append(" s after the signal: ").append(p50AndMax(rounds, FailoverAudit.RoundMeasure::lateMaxMs))
                .append('\n');
        s.append("- restarted member back in, shards spread again (JVM start included): ")
                .append(p50AndMax(rounds, m -> m.round().rejoinMs())).append('\n');
        s.append("- lateness of the other instances: due while a restarted member joined (restart → spread again) ")
                .append(percentiles(audit.outsideLateMs(true))).append(", of which claimed by the joiner (shards handed"
                        + " over to it) ").append(percentiles(audit.handedOverLateMs()))
                .append("; the rest (steady state) ")
                .append(percentiles(audit.outsideLateMs(false)))
                .append(audit.inDisturbedRounds() > 0 ? "; " + audit.inDisturbedRounds()
                        + " instances due in disturbed rounds are in neither" : "").append('\n');
        List<String> latest = new ArrayList<>();
        audit.latestOutside().forEach(l -> latest.add(String.format(Locale.ROOT, "%d (shard %d, due %s, %s s late,"
                        + " claimed by node %d under epoch %d, %s)", l.instanceId(), l.shard(),
                DateTimeFormatter.ISO_LOCAL_TIME.format(Instant.ofEpochMilli(l.dueMs()).atZone(ZoneOffset.UTC)),
                seconds(l.lateMs()), l.claimNode(), l.claimEpoch(), l.where())));
        s.append("- the latest of those: ").append(latest.isEmpty() ? "none" : String.join("; ", latest))
                .append('\n');
        s.append(String.format(Locale.ROOT, "- instances created through the API: %,d; **lost: %d** (not in the"
                        + " store: %d); **keys delivered twice: %d**; stray: %d; rows at the end: %s; runs that"
                        + " failed: %d%n", audit.created(), audit.lost(), audit.notInStore(), audit.duplicateKeys(),
                audit.stray(), audit.statuses(), outcome.runFailures().size()));
        if (outcome.disturbed() != null) {
            s.append("- during the run: ").append(outcome.disturbed()).append("; API runs that failed meanwhile: ")
                    .append(outcome.runFailures().size()).append('\n');
        }
        s.append("- took ").append(outcome.tookS()).append(" s; load average at start ").append(outcome.loadAtStart())
                .append(", at end ").append(outcome.loadAtEnd()).append('\n');
        appendVerdict(s, outcome.violations());
        return s.toString();
    }

    /** Throughput runs: a row per run, then median (min–max) per cluster size and the ratio of the medians. */
    /** The cancel section: latency percentiles of the cancel call, and what the audit found. */
    public static String cancel(ClusterSettings settings, CancelRun.Outcome o) {
        StringBuilder s = new StringBuilder("### Cancel through another member\n\n");
        s.append(settings.describe(ClusterSettings.Mode.CANCEL)).append(". Latency from the client's request to the"
                + " response, over a kept-alive loopback connection (target p99 <= 20 ms).\n\n");
        s.append(header("members", "cancels", "p50 ms", "p90 ms", "p99 ms", "max ms", "delivered anyway",
                "not CANCELLED in the store", "failed calls", "load (1 min) at start / end"));
        s.append(row(Integer.toString(o.members()), Integer.toString(o.latenciesUs().length),
                fmt1(o.percentileMs(50)), fmt1(o.percentileMs(90)), fmt1(o.percentileMs(99)), fmt1(o.maxMs()),
                Long.toString(o.delivered()), Long.toString(o.notCancelled()), Integer.toString(o.failures().size()),
                oneMinuteLoad(o.loadAtStart()) + " / " + oneMinuteLoad(o.loadAtEnd())));
        return s.append('\n').toString();
    }

    private static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    public static String throughput(ClusterSettings settings, List<ThroughputRun.Outcome> runs) {
        StringBuilder s = new StringBuilder("### Dispatch throughput, one node and several\n\n");
        s.append(settings.describe(ClusterSettings.Mode.THROUGHPUT)).append(". All members, the receiver, the"
                + " benchmark and PostgreSQL share the machine's ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores: more members on the same cores measure the cluster's overhead, not its"
                        + " scaling.\n\n");
        String label = runs.isEmpty() ? "statements" : runs.get(0).activity().statementsLabel();
        s.append(header("members", "dispatch/s (rows)", "received/s", "late p50 / p99 / max ms",
                label + "/instance (db-wide)", "net of background", "rows inserted / updated per instance",
                "index scans/instance", "WAL bytes/instance", "member CPU ms/1000", "claims by node",
                "spread after s", "load at end"));
        for (ThroughputRun.Outcome o : runs) {
            s.append(row(o.nodes() + (o.disturbance() != null ? " (disturbed)" : ""), fmt(o.store().dispatchPerSec()), fmt(o.receivedPerSec()),
                    o.store().latenessP50Ms() + " / " + o.store().latenessP99Ms() + " / " + o.store().latenessMaxMs(),
                    fmt2(o.statementsPerInstance()), fmt2(o.statementsPerInstanceNetOfBackground()),
                    fmt2(o.perInstance("inserted")) + " / " + fmt2(o.perInstance("updated")),
                    fmt2(o.perInstance("idxScans")), fmt(o.perInstance("walBytes")),
                    fmt(o.memberCpuMsPerThousand()), o.claimsByNode().toString(),
                    o.spreadAfterMs() < 0 ? "late" : seconds(o.spreadAfterMs()), shortLoad(o.loadAtEnd())));
        }
        s.append('\n');
        Map<Integer, List<ThroughputRun.Outcome>> byNodes = new TreeMap<>();
        for (ThroughputRun.Outcome o : runs) {
            if (o.disturbance() != null) {
                s.append("- a ").append(o.nodes()).append("-member run is left out of the medians: ")
                        .append(o.disturbance()).append('\n');
            } else {
                byNodes.computeIfAbsent(o.nodes(), n -> new ArrayList<>()).add(o);
            }
        }
        Map<Integer, Double> medians = new TreeMap<>();
        byNodes.forEach((nodes, list) -> {
            Summary rate = Summary.of(values(list, o -> o.store().dispatchPerSec()));
            medians.put(nodes, rate.median());
            s.append("- **").append(nodes).append(nodes == 1 ? " member" : " members").append("**: dispatch ")
                    .append(rate.format("%,.0f")).append("/s (median (min–max) of ").append(list.size())
                    .append(" runs; received ").append(Summary.of(values(list, ThroughputRun.Outcome::receivedPerSec))
                            .format("%,.0f")).append("/s); ").append(label).append(" per instance ")
                    .append(Summary.of(values(list, ThroughputRun.Outcome::statementsPerInstance)).format("%.2f"))
                    .append(" db-wide, ").append(Summary.of(values(list,
                            ThroughputRun.Outcome::statementsPerInstanceNetOfBackground)).format("%.2f"))
                    .append(" net of other clients (background ")
                    .append(Summary.of(values(list, ThroughputRun.Outcome::backgroundPerSec)).format("%.0f"))
                    .append("/s); rows updated per instance ")
                    .append(Summary.of(values(list, o -> o.perInstance("updated"))).format("%.2f"))
                    .append(", index scans per instance ")
                    .append(Summary.of(values(list, o -> o.perInstance("idxScans"))).format("%.2f"))
                    .append(", WAL bytes per instance ")
                    .append(Summary.of(values(list, o -> o.perInstance("walBytes"))).format("%,.0f"))
                    .append(", members' CPU per 1 000 instances ")
                    .append(Summary.of(values(list, ThroughputRun.Outcome::memberCpuMsPerThousand)).format("%,.0f"))
                    .append(" ms\n");
        });
        if (medians.size() > 1) {
            int smallest = medians.keySet().iterator().next();
            medians.forEach((nodes, median) -> {
                if (nodes != smallest) {
                    s.append(String.format(Locale.ROOT, "- %d members ÷ %d: %.2f (medians)%n", nodes, smallest,
                            median / medians.get(smallest)));
                }
            });
        }
        if (!runs.isEmpty() && !runs.get(0).activity().statementsCounted()) {
            s.append("- pg_stat_statements is not in shared_preload_libraries on this server, so the database's work"
                    + " is counted in transactions (pg_stat_database: xact_commit + xact_rollback), not statements;"
                    + " it covers the members' whole life (start-up, recovery, lease upkeep) and any other client of"
                    + " the database; row counts are the run's schema's alone\n");
        }
        List<String> violations = new ArrayList<>();
        runs.forEach(o -> o.violations().forEach(v -> violations.add(o.nodes() + " member(s): " + v)));
        appendVerdict(s, violations);
        return s.toString();
    }

    private static void appendVerdict(StringBuilder s, List<String> violations) {
        if (violations.isEmpty()) {
            s.append("- checks: passed\n");
        } else {
            s.append("- **FAILED**:\n");
            violations.forEach(v -> s.append("  - ").append(v.replace('\n', ' ')).append('\n'));
        }
    }

    private static <T> double[] values(List<T> items, ToDoubleFunction<T> f) {
        return items.stream().mapToDouble(f).toArray();
    }

    private static <T> String p50AndMax(List<T> items, ToDoubleFunction<T> ms) {
        double[] v = Arrays.stream(values(items, ms)).filter(x -> !Double.isNaN(x) && x >= 0).toArray();
        if (v.length == 0) {
            return "n/a";
        }
        Summary summary = Summary.of(v);
        return "p50 " + seconds(summary.median()) + " s, max " + seconds(summary.max()) + " s (min "
                + seconds(summary.min()) + " s, " + v.length + " values)";
    }

    /** {@code p50 / p99 / max} of sorted milliseconds, in seconds, and how many. */
    private static String percentiles(long[] sortedMs) {
        if (sortedMs.length == 0) {
            return "(none)";
        }
        return String.format(Locale.ROOT, "p50 %s s, p99 %s s, max %s s (%,d instances)",
                seconds(Summary.percentile(sortedMs, 50)), seconds(Summary.percentile(sortedMs, 99)),
                seconds(sortedMs[sortedMs.length - 1]), sortedMs.length);
    }

    static String header(String... cells) {
        List<String> present = Arrays.stream(cells).filter(c -> c != null).toList();
        StringBuilder s = new StringBuilder(row(present.toArray(String[]::new)));
        s.append('|');
        for (int i = 0; i < present.size(); i++) {
            s.append(i == 0 ? " --- |" : " ---: |");
        }
        return s.append('\n').toString();
    }

    /** A table row; null cells are left out (a column not shown in this mode). */
    static String row(String... cells) {
        return "| " + String.join(" | ", Arrays.stream(cells).filter(c -> c != null).toList()) + " |\n";
    }

    private static String seconds(double ms) {
        return Double.isNaN(ms) ? "–" : String.format(Locale.ROOT, "%.2f", ms / 1000.0);
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, value == Math.rint(value) ? "%,.0f" : "%,.1f", value);
    }

    private static String fmt2(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** {@code 1.23 / 2.34 / 3.45 (1 / 5 / 15 min)} → {@code 1.23 / 2.34 / 3.45}. */
    private static String oneMinuteLoad(String loadAverage) {
        String load = shortLoad(loadAverage);
        int slash = load.indexOf(" /");
        return slash < 0 ? load : load.substring(0, slash);
    }

    private static String shortLoad(String loadAverage) {
        int paren = loadAverage.indexOf(" (");
        return paren < 0 ? loadAverage : loadAverage.substring(0, paren);
    }
}
