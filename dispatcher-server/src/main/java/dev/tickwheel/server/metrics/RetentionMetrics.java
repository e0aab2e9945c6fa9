package dev.tickwheel.server.metrics;

import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.schedule.RetentionStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
 * <p>Thread-safe (stateless; the stats supplier is thread-safe).
 */
public final class RetentionMetrics {

    private RetentionMetrics() {
    }

    /** Registers the meters above over {@code stats}, read at every scrape. */
    public static void bind(MeterRegistry registry, Supplier<RetentionStats> stats) {
        FunctionCounter.builder("tickwheel.instances.purged", stats, s -> s.get().purged())
                .description("finished instances deleted by the retention purge").register(registry);
        for (RetentionPurge.Outcome outcome : RetentionPurge.Outcome.values()) {
            FunctionCounter.builder("tickwheel.retention.runs", stats, s -> s.get().runs(outcome))
                    .tag("outcome", outcome.tag())
                    .description("retention purge runs: caught_up (nothing left past its retention), budget_spent"
                            + " (stopped at the batch budget; the next run goes on), failed")
                    .register(registry);
        }
        FunctionTimer.builder("tickwheel.retention.duration", stats, s -> s.get().runs(),
                        s -> s.get().totalNanos(), TimeUnit.NANOSECONDS)
                .description("time spent in retention purge runs").register(registry);
    }
}
