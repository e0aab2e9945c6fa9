package dev.tickwheel.server.metrics;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.cluster.LeaseKeeper;
import dev.tickwheel.server.wheel.InstanceTimeWheelService;
import dev.tickwheel.timer.TimerStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Binds the engine's own counters to a registry, read at scrape time (no extra work on the hot path):
 *
 * <table>
 *   <caption>Meters (Prometheus names)</caption>
 *   <tr><td>{@code tickwheel_timer_scheduled_total{wheel}}</td><td>timers accepted by the precise/coarse wheel</td></tr>
 *   <tr><td>{@code tickwheel_timer_fired_total{wheel}}</td><td>timers expired: precise = fired to the dispatch
 *       executor, coarse = handed over to the precise wheel</td></tr>
 *   <tr><td>{@code tickwheel_timer_cancelled_total{wheel}}</td><td>timers cancelled</td></tr>
 *   <tr><td>{@code tickwheel_timer_deferred_total{wheel}}</td><td>hand-offs refused by a saturated executor and
 *       retried a tick later</td></tr>
 *   <tr><td>{@code tickwheel_wheel_pending{wheel}}</td><td>timers waiting in each wheel</td></tr>
 *   <tr><td>{@code tickwheel_instances_armed}</td><td>instances armed in either wheel (the cancel index)</td></tr>
 *   <tr><td>{@code tickwheel_dispatch_queue_depth}</td><td>instances handed to the dispatch executor and not
 *       started (due, or within the dispatch lead of their deadline)</td></tr>
 *   <tr><td>{@code tickwheel_calls_in_flight}, {@code tickwheel_calls_waiting}</td><td>calls admitted and not yet
 *       recorded; fired instances waiting for a call slot</td></tr>
 *   <tr><td>{@code tickwheel_pool_calls_in_flight{pool}}, {@code tickwheel_pool_waiting{pool}}</td><td>a pool's
 *       calls in flight and instances waiting for its concurrency or rate, on the member that dispatches it;
 *       registered when its first instance fires there</td></tr>
 *   <tr><td>{@code tickwheel_loader_runs_total}, {@code tickwheel_loader_failures_total}</td><td>loader passes</td></tr>
 *   <tr><td>{@code tickwheel_loader_duration_seconds_count|sum}</td><td>loader passes and the time they took</td></tr>
 *   <tr><td>{@code tickwheel_cluster_shards_held}, {@code tickwheel_cluster_shards_draining}</td><td>shards this
 *       member acts on; shards it is handing over</td></tr>
 *   <tr><td>{@code tickwheel_cluster_lease_renew_seconds}</td><td>lease renewals and how long each took</td></tr>
 *   <tr><td>{@code tickwheel_cluster_lease_renew_failures_total}</td><td>renewals that failed</td></tr>
 *   <tr><td>{@code tickwheel_cluster_lease_age_seconds}</td><td>since the last successful renewal was sent</td></tr>
 *   <tr><td>{@code tickwheel_cluster_takeovers_total}</td><td>shards acquired that another member had held</td></tr>
 *   <tr><td>{@code tickwheel_cluster_shards_released_total}</td><td>shards handed over after draining</td></tr>
 * </table>
 *
 * <p>Claims and calls refused by the shard fence are counted by {@link DispatchMetrics}
 * ({@code tickwheel_cluster_fenced_total}); the retention purge's meters are bound by {@link RetentionMetrics}.
 *
 * <p>Thread-safe (stateless; the engine's accessors are thread-safe).
 *
 * <p>Caveats: after the engine is closed its accessors throw; Micrometer then reports NaN for gauges and keeps the
 * last counter value, so scrape before closing.
 */
public final class EngineMetrics {

    private EngineMetrics() {
    }

    /** Registers the meters above for a started engine. */
    public static void bind(MeterRegistry registry, TickwheelServer engine) {
        InstanceTimeWheelService wheel = engine.wheel();
        bindWheel(registry, "precise", wheel, InstanceTimeWheelService::preciseWheelStats);
        bindWheel(registry, "coarse", wheel, InstanceTimeWheelService::coarseWheelStats);
        Gauge.builder("tickwheel.instances.armed", wheel, InstanceTimeWheelService::pendingCount)
                .description("instances armed in either wheel").register(registry);
        Gauge.builder("tickwheel.instances.held", wheel, InstanceTimeWheelService::heldCount)
                .description("instances whose memory the wheels hold: the armed ones, and cancelled ones until their"
                        + " bucket or a sweep releases them").register(registry);
        Gauge.builder("tickwheel.instances.slots", wheel, InstanceTimeWheelService::slotCount)
                .description("slots of the wheels' slab: the most instances held at once, in blocks of 64; about 40"
                        + " bytes each, kept for reuse").register(registry);
        Gauge.builder("tickwheel.dispatch.queue.depth", wheel, InstanceTimeWheelService::dispatchQueueDepth)
                .description("instances handed to the dispatch executor and not started: due ones waiting for its"
                        + " thread, and those handed over within the dispatch lead (5 ms by default) of their deadline")
                .register(registry);
        Gauge.builder("tickwheel.calls.in.flight", engine, TickwheelServer::callsInFlight)
                .description("calls in flight: instances holding a call slot, claimed or being claimed")
                .register(registry);
        Gauge.builder("tickwheel.calls.waiting", engine, TickwheelServer::waitingForCallSlot)
                .description("fired instances waiting for a call slot (job, host or server limit); still WAITING")
                .register(registry);
        FunctionCounter.builder("tickwheel.loader.runs", engine, e -> e.loaderStats().runs())
                .description("loader passes since start").register(registry);
        FunctionCounter.builder("tickwheel.loader.failures", engine, e -> e.loaderStats().failures())
                .description("loader passes that threw since start").register(registry);
        FunctionTimer.builder("tickwheel.loader.duration", engine, e -> e.loaderStats().runs(),
                        e -> e.loaderTotalTime().toNanos(), TimeUnit.NANOSECONDS)
                .description("time spent in loader passes").register(registry);
        engine.onPoolSeen(pool -> {
            Gauge.builder("tickwheel.pool.calls.in.flight", engine, e -> e.poolUsage(pool).used()).tag("pool", pool)
                    .description("calls in flight of the pool's jobs on this member (all of them: one member"
                            + " dispatches a pool)").register(registry);
            Gauge.builder("tickwheel.pool.waiting", engine, e -> e.poolUsage(pool).waiting()).tag("pool", pool)
                    .description("fired instances waiting for the pool's concurrency or rate; still WAITING")
                    .register(registry);
        });
        bindCluster(registry, engine.leases());
        RetentionMetrics.bind(registry, engine, TickwheelServer::retentionStats);
    }

    private static void bindCluster(MeterRegistry registry, LeaseKeeper leases) {
        Gauge.builder("tickwheel.cluster.shards.held", leases, l -> l.stats().shardsHeld())
                .description("shards this member holds and acts on").register(registry);
        Gauge.builder("tickwheel.cluster.shards.draining", leases, l -> l.stats().shardsDraining())
                .description("shards this member is handing over to another (renewed, not acted on)")
                .register(registry);
        Timer renew = Timer.builder("tickwheel.cluster.lease.renew")
                .description("lease renewals (node row and every held lease, one transaction) and their latency")
                .register(registry);
        leases.onRenewLatency(nanos -> renew.record(nanos, TimeUnit.NANOSECONDS));
        FunctionCounter.builder("tickwheel.cluster.lease.renew.failures", leases, l -> l.stats().renewFailures())
                .description("lease renewals that failed (the database unreachable)").register(registry);
        Gauge.builder("tickwheel.cluster.lease.age", leases, l -> l.stats().sinceLastRenewNanos() / 1e9)
                .description("seconds since the last successful renewal was sent; above the lease TTL this member"
                        + " holds nothing").baseUnit("seconds").register(registry);
        FunctionCounter.builder("tickwheel.cluster.takeovers", leases, l -> l.stats().takeovers())
                .description("shards acquired whose lease another member had held (expired or released)")
                .register(registry);
        FunctionCounter.builder("tickwheel.cluster.shards.released", leases, l -> l.stats().shardsReleased())
                .description("shards this member handed over after draining them").register(registry);
    }

    private static void bindWheel(MeterRegistry registry, String name, InstanceTimeWheelService wheel,
            Function<InstanceTimeWheelService, TimerStats> stats) {
        counter(registry, "tickwheel.timer.scheduled", "timers accepted by the wheel", name, wheel,
                w -> stats.apply(w).scheduled());
        counter(registry, "tickwheel.timer.fired", "timers expired: precise = fired to the dispatch executor,"
                + " coarse = handed over to the precise wheel", name, wheel, w -> stats.apply(w).expired());
        counter(registry, "tickwheel.timer.cancelled", "timers cancelled", name, wheel,
                w -> stats.apply(w).cancelled());
        counter(registry, "tickwheel.timer.deferred", "hand-offs refused by a saturated executor and retried a tick"
                + " later", name, wheel, w -> stats.apply(w).deferred());
        Gauge.builder("tickwheel.wheel.pending", wheel, w -> stats.apply(w).pending())
                .tag("wheel", name).description("timers waiting in the wheel").register(registry);
    }

    private static void counter(MeterRegistry registry, String meter, String description, String wheelName,
            InstanceTimeWheelService wheel, ToDoubleFunction<InstanceTimeWheelService> value) {
        FunctionCounter.builder(meter, wheel, value).tag("wheel", wheelName).description(description)
                .register(registry);
    }
}
