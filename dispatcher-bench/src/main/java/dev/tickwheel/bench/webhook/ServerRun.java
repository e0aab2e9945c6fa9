package dev.tickwheel.bench.webhook;

import dev.tickwheel.bench.HeapHistogram;
import dev.tickwheel.bench.e2e.ApiJobInstances;
import dev.tickwheel.bench.e2e.OneShotJobs;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.job.TargetType;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The server side of one webhook scenario: writes the scenario's jobs into a prepared store, starts a
 * {@link TickwheelServer} on it with the scenario's limits, samples DISPATCHING rows ({@link DispatchSampler}),
 * measures the heap (HEAP), waits until every instance has ended or the scenario's time is up, and stops the server.
 * The store and the receivers belong to the caller ({@link ScenarioRun}), which reads the outcome from them.
 *
 * <p>In the benchmark this runs in a child JVM of its own; in the smoke test, in the test's JVM.
 *
 * <p>Returns what only this JVM sees, as {@code key -> value} (no spaces): {@code serverStartMs}, {@code settled}
 * (every instance ended in time), {@code ends}, {@code samples}, {@code maxDispatching}, {@code maxInFlight},
 * {@code maxExcess} and, for HEAP, {@code heapBaselineBytes}, {@code heapLoadedBytes}, {@code heapInFlight},
 * {@code heapMeasuredAtMs}, {@code heapBytesPerCall}, {@code heapUsedBytesPerCall}, {@code heapTopGrowth}.
 *
 * <p>Not thread-safe: confined to the calling thread.
 */
public final class ServerRun {

    /** How often DISPATCHING rows are counted. */
    public static final long SAMPLE_PERIOD_MS = 100;
    /** STALLED gives up this long after its stalled calls' deadline: they must have ended by then. */
    private static final long STALLED_GRACE_MS = 15_000;

    private ServerRun() {
    }

    /** Counts instances that reached an end (succeeded, failed for good, or skipped). Thread-safe (an adder). */
    private static final class EndCounter implements DispatchListener {
        private final LongAdder ends = new LongAdder();

        @Override
        public void succeeded(TargetType type) {
            ends.increment();
        }

        @Override
        public void failed(TargetType type) {
            ends.increment();
        }

        @Override
        public void skipped() {
            ends.increment();
        }

        long ends() {
            return ends.sum();
        }
    }

    public static Map<String, String> run(WebhookScenario scenario, ScenarioSettings settings, String jdbcUrl,
                                          List<String> receiverUrls) {
        if (receiverUrls.size() != scenario.receivers(settings).size()) {
            throw new IllegalArgumentException(scenario.id() + " needs " + scenario.receivers(settings).size()
                    + " receiver URLs: " + receiverUrls);
        }
        Clock clock = Clock.systemUTC();
        long fixtureNowMs;
        try (JdbcStores stores = JdbcStores.open(jdbcUrl)) {
            fixtureNowMs = writeJobs(stores, scenario, settings, receiverUrls, clock);
        }
        EndCounter ends = new EndCounter();
        TickwheelServer.Builder builder = TickwheelServer.builder().jdbcUrl(jdbcUrl)
                .dispatchListener(ends);
        switch (scenario) {
            case FAST -> {
                if (settings.fastLimit() > 0) {
                    builder.maxCallsInFlight(settings.fastLimit()).maxCallsPerHost(settings.fastLimit());
                }
            }
            case SLOW -> builder.maxCallsInFlight(settings.slowLimit()).maxCallsPerHost(settings.slowLimit());
            case HEAP -> builder.maxCallsInFlight(settings.heapCalls()).maxCallsPerHost(settings.heapCalls())
                    .callTimeout(Duration.ofMillis(settings.heapHoldMs()).plusMinutes(1));
            default -> { } // the server's defaults
        }
        Map<String, String> result = new LinkedHashMap<>();
        long startNanos = System.nanoTime();
        long serverStartMs = clock.millis();
        result.put("serverStartMs", Long.toString(serverStartMs));
        TickwheelServer server = builder.build().start();
        try {
            DispatchSampler sampler = new DispatchSampler(jdbcUrl, server::callsInFlight, SAMPLE_PERIOD_MS);
            boolean settled;
            try {
                if (scenario == WebhookScenario.HEAP) {
                    measureHeap(server, settings, clock, fixtureNowMs + settings.leadMs(), result);
                }
                int expected = scenario.instances(settings);
                settled = await(() -> ends.ends() >= expected, startNanos + timeLimit(scenario, settings).toNanos(),
                        () -> "ends " + ends.ends() + " of " + expected + ", in flight " + server.callsInFlight());
            } finally {
                sampler.close();
            }
            result.put("settled", Boolean.toString(settled));
            result.put("ends", Long.toString(ends.ends()));
            result.put("samples", Integer.toString(sampler.samples()));
            result.put("maxDispatching", Integer.toString(sampler.maxDispatching()));
            result.put("maxInFlight", Integer.toString(sampler.maxInFlight()));
            result.put("maxExcess", Integer.toString(sampler.maxExcess()));
        } finally {
            server.close();
        }
        return result;
    }

    /** Writes the scenario's jobs; returns the now (epoch ms) their due times count from. */
    private static long writeJobs(JdbcStores stores, WebhookScenario scenario, ScenarioSettings s, List<String> urls,
                                  Clock clock) {
        Target first = Target.webhook(urls.get(0));
        return switch (scenario) {
            case FAST -> OneShotJobs.insert(stores, List.of(new OneShotJobs.Group("fast-", s.fastInstances(), first,
                    DeliveryPolicy.DEFAULT, s.fastLeadMs() - s.fastSpreadMs(), s.fastSpreadMs())), clock);
            case SLOW -> OneShotJobs.insert(stores, List.of(new OneShotJobs.Group("slow-", s.slowInstances(), first,
                    DeliveryPolicy.DEFAULT, s.leadMs(), s.slowDurationS() * 1000L)), clock);
            case STALLED -> OneShotJobs.insert(stores, List.of(
                    new OneShotJobs.Group("stalled-", s.stalledCalls(), first,
                            new DeliveryPolicy(DeliveryPolicy.Guarantee.AT_LEAST_ONCE, s.stallTimeoutMs(), 0,
                                    DeliveryPolicy.OverLimit.WAIT), s.leadMs(), 0),
                    new OneShotJobs.Group("healthy-", s.healthyCalls(), Target.webhook(urls.get(1)),
                            DeliveryPolicy.DEFAULT, s.leadMs(), 0)), clock);
            case HEAP -> ApiJobInstances.insert(stores, "heap", 1, s.heapCalls(), first, DeliveryPolicy.DEFAULT,
                    s.leadMs(), s.heapCalls(), clock); // one job, one instance per ms
        };
    }

    /** How long the scenario may run from the server's start before it is given up. */
    static Duration timeLimit(WebhookScenario scenario, ScenarioSettings s) {
        if (scenario == WebhookScenario.STALLED) {
            Duration stalledEnd = Duration.ofMillis(s.leadMs() + s.stallTimeoutMs() + STALLED_GRACE_MS);
            return stalledEnd.compareTo(s.timeout()) < 0 ? stalledEnd : s.timeout();
        }
        return s.timeout();
    }

    /**
     * HEAP: live heap (after a full GC) with every instance armed and none due, then with all of them in flight;
     * the difference divided by the calls in flight is the heap per call in flight, net of the wheel entry each
     * instance held before it fired.
     */
    private static void measureHeap(TickwheelServer server, ScenarioSettings s, Clock clock, long firstDueMs,
                                    Map<String, String> result) {
        HeapHistogram before = HeapHistogram.take();
        long usedBefore = usedAfterGc();
        if (clock.millis() >= firstDueMs) {
            throw new IllegalStateException("the baseline heap was taken after the first instance was due; raise"
                    + " --lead-ms (" + s.leadMs() + ")");
        }
        int calls = s.heapCalls();
        long deadlineNanos = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(firstDueMs - clock.millis() + calls + s.heapHoldMs());
        if (!await(() -> server.callsInFlight() >= calls, deadlineNanos,
                () -> "calls in flight " + server.callsInFlight() + " of " + calls)) {
            throw new IllegalStateException("only " + server.callsInFlight() + " of " + calls + " calls were in"
                    + " flight at once");
        }
        // Let the last requests leave (connections open, bodies written) before the heap is read.
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(2_000, s.heapHoldMs() / 4)));
        int inFlightBefore = server.callsInFlight();
        long measuredAtMs = clock.millis();
        HeapHistogram during = HeapHistogram.take();
        long usedDuring = usedAfterGc();
        int inFlight = Math.min(inFlightBefore, server.callsInFlight());
        result.put("heapBaselineBytes", Long.toString(before.totalBytes()));
        result.put("heapLoadedBytes", Long.toString(during.totalBytes()));
        result.put("heapInFlight", Integer.toString(inFlight));
        result.put("heapMeasuredAtMs", Long.toString(measuredAtMs));
        result.put("heapBytesPerCall",
                Long.toString((during.totalBytes() - before.totalBytes()) / Math.max(1, inFlight)));
        result.put("heapUsedBytesPerCall", Long.toString((usedDuring - usedBefore) / Math.max(1, inFlight)));
        result.put("heapTopGrowth", during.topGrowth(before, 6, Math.max(1, inFlight)));
    }

    private static long usedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Polls {@code done} every 20 ms until it holds (true) or the deadline passes (false); reports every 5 s. */
    private static boolean await(BooleanSupplier done, long deadlineNanos, Supplier<String> status) {
        long lastReportNanos = System.nanoTime();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadlineNanos > 0) {
                System.err.println("  ... gave up: " + status.get());
                return false;
            }
            if (System.nanoTime() - lastReportNanos > TimeUnit.SECONDS.toNanos(5)) {
                System.err.println("  ... " + status.get());
                lastReportNanos = System.nanoTime();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return true;
    }
}
