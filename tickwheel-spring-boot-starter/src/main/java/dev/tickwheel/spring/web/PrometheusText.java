package dev.tickwheel.spring.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The Prometheus text of a registry, found in a composite too; loaded only when the Prometheus registry is there. */
final class PrometheusText {

    private PrometheusText() {
    }

    /** The text, or null if {@code registry} is not (and does not hold) a Prometheus registry. */
    static String of(MeterRegistry registry) {
        if (registry instanceof PrometheusMeterRegistry prometheus) {
            return prometheus.scrape();
        }
        if (registry instanceof CompositeMeterRegistry composite) {
            for (MeterRegistry inner : composite.getRegistries()) {
                String text = of(inner);
                if (text != null) {
                    return text;
                }
            }
        }
        return null;
    }
}
