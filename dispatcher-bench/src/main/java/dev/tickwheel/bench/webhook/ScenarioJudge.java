package dev.tickwheel.bench.webhook;

import dev.tickwheel.bench.e2e.EndToEndRun;
import dev.tickwheel.bench.e2e.Percentiles;
import dev.tickwheel.bench.e2e.RunResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a scenario run's store rows, receiver logs and server-side measures into a {@link ScenarioResult}: the
 * measures issue 10 asks for, and the invariants each scenario must keep.
 *
 * <p>Every scenario: every instance ended in time; 0 lost, 0 duplicate keys, 0 stray or malformed deliveries; the
 * DISPATCHING rows never more than the calls in flight plus one claim batch. Then per scenario: FAST and SLOW and
 * HEAP, every instance SUCCEEDED in one attempt; SLOW, calls in flight within the limit; STALLED, every healthy call
 * delivered within 1 s of its due time and every stalled one FAILED for its deadline within the deadline + 1 s;
 * HEAP, every call in flight at once when the heap was read. Throughput targets are reported, not required: the
 * machine is shared.
 *
 * <p>Stateless.
 */
final class ScenarioJudge {

    /**
     * The claim batch bound: {@code ClaimBatcher.DEFAULT_MAX_BATCH} in dispatcher-server (package-private there), a
     * claim statement's most rows.
     */
    static final int CLAIM_BATCH = 500;
    /** STALLED: a healthy call must arrive within this of its due time. */
    static final long HEALTHY_LATE_LIMIT_MS = 1_000;
    /** STALLED: a stalled call must have ended within its deadline plus this, from its due time. */
    static final long STALLED_END_SLACK_MS = 1_000;
    /** SLOW: arrivals in the first this-many ms (at most a quarter of the run) are not counted as sustained. */
    private static final long SLOW_WARM_UP_MS = 5_000;

    private ScenarioJudge() {
    }

    static ScenarioResult judge(WebhookScenario scenario, ScenarioSettings s, Map<String, String> server,
                                List<Instance> rows, List<LoadReceiver> receivers) {
        int expected = scenario.instances(s);
        DeliveryCheck check = new DeliveryCheck(rows, expected, receivers.stream().map(LoadReceiver::deliveries)
                .toList());
        ScenarioResult.Builder result = new ScenarioResult.Builder(scenario);
        switch (scenario) {
            case FAST -> fast(result, rows, check, expected, server);
            case SLOW -> slow(result, s, rows, check, server);
            case STALLED -> stalled(result, s, rows, check);
            case HEAP -> heap(result, s, rows, check, server);
        }
        long malformed = receivers.stream().mapToLong(LoadReceiver::malformed).sum();
        int maxExcess = Integer.parseInt(server.get("maxExcess"));
        result.number("instances", expected).number("deliveries", check.deliveries())
                .number("lost", check.lost()).number("duplicateKeys", check.duplicateKeys())
                .number("maxDispatching", Integer.parseInt(server.get("maxDispatching")))
                .number("maxInFlight", Integer.parseInt(server.get("maxInFlight")))
                .number("maxExcess", maxExcess)
                .number("samples", Integer.parseInt(server.get("samples")))
                .require(Boolean.parseBoolean(server.get("settled")), "not every instance ended in time (ends "
                        + server.get("ends") + " of " + expected + ")")
                .require(check.lost() == 0, "lost " + check.lost() + " of " + expected)
                .require(check.duplicateKeys() == 0, check.duplicateKeys() + " duplicate keys")
                .require(check.stray() == 0, check.stray() + " deliveries of keys no instance had")
                .require(malformed == 0, malformed + " malformed requests")
                .require(Integer.parseInt(server.get("samples")) > 0, "DISPATCHING rows were never sampled")
                .require(maxExcess <= CLAIM_BATCH, "DISPATCHING rows exceeded the calls in flight by " + maxExcess
                        + ", more than one claim batch (" + CLAIM_BATCH + ")");
        return result.build();
    }

    private static void fast(ScenarioResult.Builder result, List<Instance> rows, DeliveryCheck check, int expected,
                             Map<String, String> server) {
        RunResult run = EndToEndRun.measure(rows, expected, Long.parseLong(server.get("serverStartMs")),
                check.duplicateKeys());
        result.number("dispatchPerSec", run.dispatchPerSec()).number("createPerSec", run.createPerSec())
                .number("endToEndPerSec", run.endToEndPerSec()).number("lateP50Ms", run.latenessP50Ms())
                .number("lateP99Ms", run.latenessP99Ms()).number("lateMaxMs", run.latenessMaxMs())
                .require(run.notSucceeded() == 0, run.notSucceeded() + " instances not SUCCEEDED in one attempt");
        callLateness(result, rows, check);
    }

    private static void slow(ScenarioResult.Builder result, ScenarioSettings s, List<Instance> rows,
                             DeliveryCheck check, Map<String, String> server) {
        long firstDueMs = Long.MAX_VALUE;
        long lastDueMs = Long.MIN_VALUE;
        for (Instance row : rows) {
            firstDueMs = Math.min(firstDueMs, row.expectedTriggerTime().toEpochMilli());
            lastDueMs = Math.max(lastDueMs, row.expectedTriggerTime().toEpochMilli());
        }
        long warmUpMs = Math.min(SLOW_WARM_UP_MS, (lastDueMs - firstDueMs) / 4);
        long windowStartMs = firstDueMs + warmUpMs;
        long windowEndMs = lastDueMs;
        long inWindow = rows.stream().mapToLong(check::firstArrivalMs)
                .filter(at -> at >= windowStartMs && at < windowEndMs).count();
        double capacityPerSec = s.slowLimit() * 1000.0 / Math.max(1, s.slowLatencyMs());
        result.number("sustainedPerSec", inWindow * 1000.0 / Math.max(1, lastDueMs - windowStartMs))
                .number("targetPerSec", 0.9 * Math.min(s.slowRatePerSec(), capacityPerSec))
                .number("dispatchPerSec", dispatchPerSec(rows));
        callLateness(result, rows, check);
        requireAllSucceeded(result, rows);
        int maxInFlight = Integer.parseInt(server.get("maxInFlight"));
        result.require(maxInFlight <= s.slowLimit(), maxInFlight + " calls in flight, above the limit "
                + s.slowLimit());
    }

    private static void stalled(ScenarioResult.Builder result, ScenarioSettings s, List<Instance> rows,
                                DeliveryCheck check) {
        List<Long> healthyLateMs = new ArrayList<>();
        List<Long> stalledEndMs = new ArrayList<>();
        int healthyNotSucceeded = 0;
        int stalledNotTimedOut = 0;
        int stalledNotEnded = 0;
        int stalledSeen = 0;
        for (Instance row : rows) {
            long dueMs = row.expectedTriggerTime().toEpochMilli();
            int receiver = check.receiverOf(row);
            if (receiver == 1) {
                healthyLateMs.add(check.firstArrivalMs(row) - dueMs);
                healthyNotSucceeded += row.status() == InstanceStatus.SUCCEEDED ? 0 : 1;
            } else if (receiver == 0) {
                boolean ended = row.status() == InstanceStatus.FAILED;
                if (ended) {
                    stalledEndMs.add(row.updatedAt().toEpochMilli() - dueMs);
                } else {
                    stalledNotEnded++;
                }
                stalledSeen++;
                String error = row.error() == null ? "" : row.error().toLowerCase(Locale.ROOT);
                stalledNotTimedOut += !ended || error.contains("timed out") || error.contains("timeout") ? 0 : 1;
            }
        }
        double healthyLateMaxMs = percentile(healthyLateMs, 100);
        double stalledEndMaxMs = percentile(stalledEndMs, 100);
        long stalledLimitMs = s.stallTimeoutMs() + STALLED_END_SLACK_MS;
        result.number("healthyLateP50Ms", percentile(healthyLateMs, 50))
                .number("healthyLateMaxMs", healthyLateMaxMs)
                .number("stalledEndMinMs", percentile(stalledEndMs, 0.001))
                .number("stalledEndMaxMs", stalledEndMaxMs)
                .number("stalledNotEnded", stalledNotEnded)
                .text("stallMode", s.stallMode().toString())
                .require(healthyLateMs.size() == s.healthyCalls(), "the healthy receiver got " + healthyLateMs.size()
                        + " of " + s.healthyCalls() + " calls")
                .require(stalledSeen == s.stalledCalls(), "the stalled receiver got " + stalledSeen + " of "
                        + s.stalledCalls() + " calls")
                .require(healthyNotSucceeded == 0, healthyNotSucceeded + " healthy calls not SUCCEEDED")
                .require(healthyLateMaxMs <= HEALTHY_LATE_LIMIT_MS, "a healthy call arrived "
                        + Math.round(healthyLateMaxMs) + " ms after its due time (limit " + HEALTHY_LATE_LIMIT_MS
                        + ")")
                .require(stalledNotTimedOut == 0, stalledNotTimedOut + " stalled calls ended without a timeout"
                        + " error (" + statusesOf(rows, check) + ")")
                .require(stalledNotEnded == 0, stalledNotEnded + " stalled calls never ended ("
                        + statusesOf(rows, check) + ")")
                .require(stalledEndMs.isEmpty() || stalledEndMaxMs <= stalledLimitMs, "a stalled call ended "
                        + Math.round(stalledEndMaxMs) + " ms after its due time (limit: deadline + 1 s = "
                        + stalledLimitMs + " ms)");
    }

    private static String statusesOf(List<Instance> rows, DeliveryCheck check) {
        Map<InstanceStatus, Long> counts = new java.util.EnumMap<>(InstanceStatus.class);
        rows.stream().filter(r -> check.receiverOf(r) == 0).forEach(r -> counts.merge(r.status(), 1L, Long::sum));
        String firstError = rows.stream().filter(r -> check.receiverOf(r) == 0 && r.error() != null)
                .map(Instance::error).findFirst().orElse("none");
        return "stalled rows " + counts + ", first error: " + firstError;
    }

    private static void heap(ScenarioResult.Builder result, ScenarioSettings s, List<Instance> rows,
                             DeliveryCheck check, Map<String, String> server) {
        int inFlight = Integer.parseInt(server.getOrDefault("heapInFlight", "0"));
        long measuredAtMs = Long.parseLong(server.getOrDefault("heapMeasuredAtMs", "0"));
        long arrivedBefore = rows.stream().mapToLong(check::firstArrivalMs)
                .filter(at -> at >= 0 && at <= measuredAtMs).count();
        result.number("heapBytesPerCall", Double.parseDouble(server.getOrDefault("heapBytesPerCall", "NaN")))
                .number("heapUsedBytesPerCall", Double.parseDouble(server.getOrDefault("heapUsedBytesPerCall", "NaN")))
                .number("heapInFlight", inFlight)
                .number("arrivedAtMeasure", arrivedBefore)
                .number("heapBaselineMiB", Long.parseLong(server.getOrDefault("heapBaselineBytes", "0")) / 1048576.0)
                .number("heapLoadedMiB", Long.parseLong(server.getOrDefault("heapLoadedBytes", "0")) / 1048576.0)
                .text("heapTopGrowth", server.getOrDefault("heapTopGrowth", "none"))
                .require(inFlight >= s.heapCalls(), "only " + inFlight + " of " + s.heapCalls()
                        + " calls were in flight when the heap was read");
        requireAllSucceeded(result, rows);
    }

    private static void requireAllSucceeded(ScenarioResult.Builder result, List<Instance> rows) {
        long bad = rows.stream().filter(r -> r.status() != InstanceStatus.SUCCEEDED || r.attempt() != 1).count();
        result.require(bad == 0, bad + " instances not SUCCEEDED in one attempt");
    }

    /** Receiver arrival minus due time, over every delivered instance. */
    private static void callLateness(ScenarioResult.Builder result, List<Instance> rows, DeliveryCheck check) {
        List<Long> lateMs = new ArrayList<>(rows.size());
        for (Instance row : rows) {
            long at = check.firstArrivalMs(row);
            if (at >= 0) {
                lateMs.add(at - row.expectedTriggerTime().toEpochMilli());
            }
        }
        result.number("callLateP50Ms", percentile(lateMs, 50)).number("callLateP99Ms", percentile(lateMs, 99))
                .number("callLateMaxMs", percentile(lateMs, 100));
    }

    /** Instances per second from the first claim to the last SUCCEEDED write. */
    private static double dispatchPerSec(List<Instance> rows) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long n = 0;
        for (Instance row : rows) {
            if (row.status() == InstanceStatus.SUCCEEDED && row.actualTriggerTime() != null) {
                first = Math.min(first, row.actualTriggerTime().toEpochMilli());
                last = Math.max(last, row.updatedAt().toEpochMilli());
                n++;
            }
        }
        return n == 0 ? 0 : n * 1000.0 / Math.max(1, last - first);
    }

    private static double percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        return new Percentiles(values.stream().mapToLong(Long::longValue).toArray()).at(p);
    }
}
