package dev.tickwheel.server.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * Micrometer's own JVM and process binders on one registry: {@code jvm_memory_*}, {@code jvm_gc_*},
 * {@code jvm_threads_*}, {@code jvm_classes_*}, {@code process_cpu_usage}, {@code system_cpu_*},
 * {@code process_uptime_seconds}, {@code process_files_open_files|max_files}.
 *
 * <p>Two of {@link ProcessorMetrics}' meters fail {@code promtool check metrics}: {@code process.cpu.time} (its
 * Prometheus name {@code process_cpu_time_ns_total} carries an abbreviated unit) is denied, {@code process_cpu_usage}
 * says the same; {@code system.cpu.count} (a gauge ending in {@code _count}) is renamed {@code system.cpus}. The
 * filters are added before any binder, so they must be bound to a registry with no such meter yet.
 *
 * <p>Thread-safe. Lifecycle: {@link #bind} once, {@link #close()} when the registry is done with; closing removes
 * the GC notification listeners {@link JvmGcMetrics} installed (the other binders hold nothing to release).
 */
public final class RuntimeMetrics implements AutoCloseable {

    private final JvmGcMetrics gc;

    private RuntimeMetrics(JvmGcMetrics gc) {
        this.gc = gc;
    }

    /** Binds every binder above to {@code registry}. */
    public static RuntimeMetrics bind(MeterRegistry registry) {
        registry.config()
                .meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"))
                .meterFilter(new MeterFilter() {
                    @Override
                    public Meter.Id map(Meter.Id id) {
                        return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
                    }
                });
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        return new RuntimeMetrics(gc);
    }

    @Override
    public void close() {
        gc.close();
    }
}
