package dev.tickwheel.spring;

import dev.tickwheel.client.TickwheelClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link TickwheelClient} bean from {@code tickwheel.client.*}, when the application has {@code tickwheel-client}
 * and sets {@code tickwheel.client.base-url}; closed with the context. Backs off for the application's own client.
 */
@AutoConfiguration
@ConditionalOnClass(name = "dev.tickwheel.client.TickwheelClient")
@ConditionalOnProperty(prefix = "tickwheel.client", name = "base-url")
@EnableConfigurationProperties(TickwheelClientProperties.class)
public class TickwheelClientAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public TickwheelClient tickwheelClient(TickwheelClientProperties properties) {
        return properties.build();
    }
}
