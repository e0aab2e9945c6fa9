package dev.tickwheel.spring;

import dev.tickwheel.server.TickwheelServer;

/**
 * Adjusts the engine's builder after the {@code tickwheel.*} properties, the store and the handlers are set and
 * before the engine is built: a clock, a dispatch listener, wheel or store settings, anything the properties do not
 * cover. Customizers run in {@link org.springframework.core.Ordered} order; what they set wins.
 */
@FunctionalInterface
public interface TickwheelBuilderCustomizer {

    void customize(TickwheelServer.Builder builder);
}
