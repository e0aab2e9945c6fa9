package dev.tickwheel.spring;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.metrics.AlertMetrics;
import dev.tickwheel.server.metrics.DispatchMetrics;
import dev.tickwheel.server.metrics.EngineMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Tickwheel's meters on the application's {@link MeterRegistry} (when Micrometer is on the class path and the
 * application has a registry): dispatch and alert outcomes, lateness, the wheels, the loader, the store (the same
 * meters as the standalone server's {@code /metrics}; docs/metrics.md lists them).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
class TickwheelMetricsConfiguration {

    /** Dispatch and alert listeners that count; runs first, so an application's customizer can replace them. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    @ConditionalOnMissingBean(name = "tickwheelMetricsCustomizer")
    TickwheelBuilderCustomizer tickwheelMetricsCustomizer(MeterRegistry registry) {
        return builder -> builder.dispatchListener(new DispatchMetrics(registry))
                .alertListener(new AlertMetrics(registry));
    }

    /** The gauges read from the engine at scrape time. */
    @Bean
    @ConditionalOnMissingBean
    TickwheelEngineMeters tickwheelEngineMeters(MeterRegistry registry, TickwheelServer server) {
        EngineMetrics.bind(registry, server);
        return new TickwheelEngineMeters(registry);
    }

    /** Marks that the engine's gauges are bound to {@code registry}. */
    record TickwheelEngineMeters(MeterRegistry registry) {
    }
}
