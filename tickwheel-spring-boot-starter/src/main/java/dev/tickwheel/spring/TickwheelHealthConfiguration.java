package dev.tickwheel.spring;

import dev.tickwheel.server.TickwheelServer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code tickwheel} health indicator, when Spring Boot's health support is on the class path. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnEnabledHealthIndicator("tickwheel")
class TickwheelHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "tickwheelHealthIndicator")
    TickwheelHealthIndicator tickwheelHealthIndicator(TickwheelServer server) {
        return new TickwheelHealthIndicator(server);
    }
}
