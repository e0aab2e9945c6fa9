package dev.tickwheel.bench.webhook;

import dev.tickwheel.bench.CommandLine;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sizes of the four webhook scenarios ({@link WebhookScenario}); {@link #FULL} is what issue 10 asks for and
 * {@link #tiny()} what the smoke test runs.
 *
 * <p>Immutable.
 *
 * @param fastInstances  FAST: one-shot jobs, due evenly over {@code [start + fastLeadMs − fastSpreadMs,
 *                       start + fastLeadMs)}, as in the in-process end-to-end benchmark
 * @param fastLeadMs     FAST: see above
 * @param fastSpreadMs   FAST: see above
 * @param fastLimit      FAST: the server's calls in flight, at most, and per host too; 0 for the server's defaults
 * @param slowRatePerSec SLOW: one-shot jobs due per second, evenly, for {@code slowDurationS} from
 *                       {@code start + leadMs}
 * @param slowDurationS  SLOW: see above
 * @param slowLatencyMs  SLOW: the receiver answers after this
 * @param slowLimit      SLOW: the server's calls in flight, at most, and per host too
 * @param stalledCalls   STALLED: one-shot jobs to the stalled receiver, due at {@code start + leadMs}, each with a
 *                       job deadline ({@code timeoutMs}) of {@code stallTimeoutMs}
 * @param healthyCalls   STALLED: one-shot jobs to a fast receiver (another port: another host), due at the same time
 * @param stallTimeoutMs STALLED: see above
 * @param stallMode      STALLED: how the stalled receiver stalls ({@code stall} or {@code stall-headers})
 * @param heapCalls      HEAP: instances of one job due one per ms from {@code start + leadMs}; also the server's
 *                       limits (calls in flight, per host)
 * @param heapHoldMs     HEAP: the receiver answers after this
 * @param leadMs         SLOW, STALLED, HEAP: the first instance is due this long after the server starts
 * @param timeout        how long one scenario may take before it is given up as failed
 */
public record ScenarioSettings(int fastInstances, long fastLeadMs, long fastSpreadMs, int fastLimit,
                               int slowRatePerSec, int slowDurationS, long slowLatencyMs, int slowLimit,
                               int stalledCalls, int healthyCalls, long stallTimeoutMs, ReceiverMode stallMode,
                               int heapCalls, long heapHoldMs, long leadMs, Duration timeout) {

    /** Issue 10's sizes. */
    public static final ScenarioSettings FULL = new ScenarioSettings(100_000, 10_000, 2_000, 0,
            1_000, 30, 1_000, 1_000,
            32, 200, 5_000, ReceiverMode.stall(),
            10_000, 20_000, 5_000, Duration.ofMinutes(5));

    public ScenarioSettings {
        positive("fastInstances", fastInstances);
        positive("slowRatePerSec", slowRatePerSec);
        positive("slowDurationS", slowDurationS);
        positive("slowLimit", slowLimit);
        positive("stalledCalls", stalledCalls);
        positive("healthyCalls", healthyCalls);
        positive("stallTimeoutMs", stallTimeoutMs);
        positive("heapCalls", heapCalls);
        positive("heapHoldMs", heapHoldMs);
        if (fastSpreadMs < 0 || fastSpreadMs > fastLeadMs) {
            throw new IllegalArgumentException("fastSpreadMs must be in 0..fastLeadMs (" + fastLeadMs + "): "
                    + fastSpreadMs);
        }
        if (fastLimit < 0) {
            throw new IllegalArgumentException("fastLimit must not be negative (0: the server's defaults): "
                    + fastLimit);
        }
        if (slowLatencyMs < 0 || leadMs < 0) {
            throw new IllegalArgumentException("slowLatencyMs and leadMs must not be negative: " + slowLatencyMs
                    + ", " + leadMs);
        }
        Objects.requireNonNull(stallMode, "stallMode");
        if (stallMode.kind() != ReceiverMode.Kind.STALL && stallMode.kind() != ReceiverMode.Kind.STALL_HEADERS) {
            throw new IllegalArgumentException("stallMode must be stall or stall-headers: " + stallMode);
        }
        Objects.requireNonNull(timeout, "timeout");
    }

    /** A size each scenario runs in a second or two: for the smoke test. */
    public static ScenarioSettings tiny() {
        return new ScenarioSettings(200, 2_000, 200, 0,
                100, 2, 50, 10,
                4, 20, 1_000, ReceiverMode.stall(),
                200, 2_000, 2_000, Duration.ofSeconds(60));
    }

    /** SLOW: instances in all. */
    public int slowInstances() {
        return slowRatePerSec * slowDurationS;
    }

    /** The command-line options {@link #with} reads, each with a value. */
    public static final Set<String> OPTIONS = Set.of("--fast-instances", "--fast-lead-ms", "--fast-spread-ms",
            "--fast-limit", "--slow-rate", "--slow-duration-s", "--slow-latency-ms", "--slow-limit", "--stalled-calls",
            "--healthy-calls", "--stall-timeout-ms", "--stall-mode", "--heap-calls", "--heap-hold-ms", "--lead-ms",
            "--timeout-s");

    /**
     * These settings with the given options (names from {@link #OPTIONS}) applied.
     *
     * @throws IllegalArgumentException naming the option if a name is unknown or a value bad
     */
    public ScenarioSettings with(Map<String, String> options) {
        CommandLine o = CommandLine.of(options, OPTIONS);
        return new ScenarioSettings(o.integer("--fast-instances", fastInstances),
                o.number("--fast-lead-ms", fastLeadMs), o.number("--fast-spread-ms", fastSpreadMs),
                o.integer("--fast-limit", fastLimit), o.integer("--slow-rate", slowRatePerSec),
                o.integer("--slow-duration-s", slowDurationS), o.number("--slow-latency-ms", slowLatencyMs),
                o.integer("--slow-limit", slowLimit), o.integer("--stalled-calls", stalledCalls),
                o.integer("--healthy-calls", healthyCalls), o.number("--stall-timeout-ms", stallTimeoutMs),
                o.has("--stall-mode") ? ReceiverMode.parse(o.text("--stall-mode", null)) : stallMode,
                o.integer("--heap-calls", heapCalls), o.number("--heap-hold-ms", heapHoldMs),
                o.number("--lead-ms", leadMs), Duration.ofSeconds(o.number("--timeout-s", timeout.toSeconds())));
    }

    /** These settings as the options {@link #with} reads, for a child JVM. */
    public Map<String, String> toOptions() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("--fast-instances", Integer.toString(fastInstances));
        o.put("--fast-lead-ms", Long.toString(fastLeadMs));
        o.put("--fast-spread-ms", Long.toString(fastSpreadMs));
        o.put("--fast-limit", Integer.toString(fastLimit));
        o.put("--slow-rate", Integer.toString(slowRatePerSec));
        o.put("--slow-duration-s", Integer.toString(slowDurationS));
        o.put("--slow-latency-ms", Long.toString(slowLatencyMs));
        o.put("--slow-limit", Integer.toString(slowLimit));
        o.put("--stalled-calls", Integer.toString(stalledCalls));
        o.put("--healthy-calls", Integer.toString(healthyCalls));
        o.put("--stall-timeout-ms", Long.toString(stallTimeoutMs));
        o.put("--stall-mode", stallMode.toString());
        o.put("--heap-calls", Integer.toString(heapCalls));
        o.put("--heap-hold-ms", Long.toString(heapHoldMs));
        o.put("--lead-ms", Long.toString(leadMs));
        o.put("--timeout-s", Long.toString(timeout.toSeconds()));
        return o;
    }

    private static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }
}
