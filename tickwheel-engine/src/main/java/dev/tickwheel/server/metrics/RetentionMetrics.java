package dev.tickwheel.server.metrics;

import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.schedule.RetentionStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Binds the retention purge's counters to a registry, read at scrape time:
 *
 * <table>
 *   <caption>Meters (Prometheus names)</caption>
 *   <tr><td>{@code tickwheel_instances_purged_total}</td><td>finished instances deleted after their retention</td></tr>
 *   <tr><td>{@code tickwheel_retention_runs_total{outcome}}</td><td>purge runs by how they ended: {@code caught_up},
 *       {@code budget_spent} (more to delete, the next run goes on), {@code failed}</td></tr>
 *   <tr><td>{@code tickwheel_retention_duration_seconds_count|sum}</td><td>purge runs and the time they took</td></tr>
 * </table>
 *
 * <p>Micrometer's function meters hold their state object through a weak reference, so the state must be an object
 * the caller keeps alive (the engine), never a lambda or method reference made for the call: that one is collected at
 * the next GC and the meters then read 0 for ever.
 *
 * <p>Thread-safe (stateless; the stats function is thread-safe).
 */
public final class RetentionMetrics {

    private RetentionMetrics() {
    }

    /**
     * Registers the meters above over {@code stats} of {@code source}, read at every scrape.
     *
     * @param source an object that lives as long as the registry (held weakly by Micrometer, see above)
     */
    public static <T> void bind(MeterRegistry registry, T source, Function<T, RetentionStats> stats) {
        FunctionCounter.builder("tickwheel.instances.purged", source, s -> stats.apply(s).purged())
                .description("finished instances deleted by the retention purge").register(registry);
        for (RetentionPurge.Outcome outcome : RetentionPurge.Outcome.values()) {
            FunctionCounter.builder("tickwheel.retention.runs", source, s -> stats.apply(s).runs(outcome))
                    .tag("outcome", outcome.tag())
                    .description("retention purge runs: caught_up (nothing left past its retention), budget_spent"
                            + " (stopped at the batch budget; the next run goes on), failed")
                    .register(registry);
        }
        FunctionTimer.builder("tickwheel.retention.duration", source, s -> stats.apply(s).runs(),
                        s -> stats.apply(s).totalNanos(), TimeUnit.NANOSECONDS)
                .description("time spent in retention purge runs").register(registry);
    }
}
