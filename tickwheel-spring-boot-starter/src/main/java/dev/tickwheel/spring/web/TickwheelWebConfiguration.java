package dev.tickwheel.spring.web;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiRoutes;
import dev.tickwheel.spring.TickwheelProperties;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Mounts the HTTP API and console on the application's servlet web server under {@code tickwheel.web.path}, when
 * {@code tickwheel.web.enabled=true} and the application has {@code tickwheel-api}. The token rule is the standalone
 * server's: mutating requests need {@code tickwheel.web.token}; without one, the mount is refused unless the server
 * listens on loopback only.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = {"dev.tickwheel.server.api.ApiRoutes", "jakarta.servlet.http.HttpServlet"})
@ConditionalOnProperty(prefix = "tickwheel.web", name = "enabled", havingValue = "true")
public class TickwheelWebConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "tickwheelApiServlet")
    public ServletRegistrationBean<TickwheelApiServlet> tickwheelApiServlet(TickwheelServer server,
            TickwheelProperties properties, Environment environment,
            ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registries) {
        TickwheelProperties.Web web = properties.getWeb();
        String path = web.getPath();
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
            throw new IllegalStateException("tickwheel.web.path must be a path like /tickwheel (not / nor ending in"
                    + " /): '" + path + "'");
        }
        String token = web.getToken() == null || web.getToken().isBlank() ? null : web.getToken();
        if (token == null && !loopbackOnly(environment.getProperty("server.address"))) {
            throw new IllegalStateException("tickwheel.web.enabled needs tickwheel.web.token: the application's"
                    + " server listens beyond loopback (server.address=" + environment.getProperty("server.address")
                    + "), and anyone reaching it could create and delete jobs");
        }
        ApiRoutes api = new ApiRoutes(server, token, false, () -> scrape(registries), true);
        ServletRegistrationBean<TickwheelApiServlet> registration =
                new ServletRegistrationBean<>(new TickwheelApiServlet(api), path + "/*");
        registration.setName("tickwheelApiServlet");
        return registration;
    }

    private static boolean loopbackOnly(String address) {
        if (address == null || address.isBlank()) {
            return false; // every interface
        }
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The application's Prometheus registry's text, for the console's figures; a note if it has none. */
    private static String scrape(ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registries) {
        if (org.springframework.util.ClassUtils.isPresent("io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
                TickwheelWebConfiguration.class.getClassLoader())) {
            for (io.micrometer.core.instrument.MeterRegistry registry : registries) {
                String text = PrometheusText.of(registry);
                if (text != null) {
                    return text;
                }
            }
        }
        return "# the application has no Prometheus registry; its meters are at /actuator/metrics\n";
    }
}
