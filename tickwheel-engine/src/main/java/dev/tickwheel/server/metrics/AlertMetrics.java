package dev.tickwheel.server.metrics;

import dev.tickwheel.server.dispatch.alert.AlertKind;
import dev.tickwheel.server.dispatch.alert.AlertListener;
import dev.tickwheel.server.dispatch.alert.AlertOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts failure alerts by how they ended: {@code tickwheel.alerts} (Prometheus {@code tickwheel_alerts_total}) tagged
 * {@code kind} (INSTANCE_FAILED, MISFIRE_SKIPPED, FAILURE_THRESHOLD) and {@code outcome} (sent, failed: every attempt
 * failed; suppressed: rate-limited; dropped: the queue was full or the server stopped). Every alert that has a URL to
 * go to ends in exactly one of them.
 *
 * <p>Thread-safe: every counter is registered in the constructor (all twelve series exist from the start, at 0), so
 * each alert is one lock-free increment.
 */
public final class AlertMetrics implements AlertListener {

    private final Map<AlertKind, Map<AlertOutcome, Counter>> counters = new EnumMap<>(AlertKind.class);

    public AlertMetrics(MeterRegistry registry) {
        for (AlertKind kind : AlertKind.values()) {
            Map<AlertOutcome, Counter> byOutcome = new EnumMap<>(AlertOutcome.class);
            for (AlertOutcome outcome : AlertOutcome.values()) {
                byOutcome.put(outcome, Counter.builder("tickwheel.alerts")
                        .description("failure alerts by kind and outcome: sent (2xx), failed (the call and its"
                                + " retries failed), suppressed (rate limit), dropped (queue full or server stopping)")
                        .tag("kind", kind.name())
                        .tag("outcome", outcome.label())
                        .register(registry));
            }
            counters.put(kind, byOutcome);
        }
    }

    @Override
    public void alertEnded(AlertKind kind, AlertOutcome outcome) {
        counters.get(kind).get(outcome).increment();
    }
}
