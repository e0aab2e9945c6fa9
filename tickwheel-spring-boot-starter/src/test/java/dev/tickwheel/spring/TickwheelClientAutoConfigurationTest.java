package dev.tickwheel.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.client.TickwheelClient;
import dev.tickwheel.client.model.Health;
import dev.tickwheel.server.TickwheelServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code tickwheel.client.*} client: made when asked, configured by every property, independent of the engine. */
class TickwheelClientAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TickwheelAutoConfiguration.class,
                    TickwheelClientAutoConfiguration.class))
            .withPropertyValues("tickwheel.enabled=false");

    @Test
    void noBaseUrl_noClient() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TickwheelClient.class);
        });
    }

    @Test
    void defaults_equalTheClientBuildersDefaults() {
        runner.withPropertyValues("tickwheel.client.base-url=http://127.0.0.1:7700").run(context -> {
            TickwheelClient client = context.getBean(TickwheelClient.class);
            try (TickwheelClient plain = TickwheelClient.builder("http://127.0.0.1:7700").build()) {
                assertThat(client.settings()).isEqualTo(plain.settings());
            }
        });
    }

    @Test
    void everyProperty_reachesTheClient_withoutAnEngine() throws Exception {
        String[] properties = {"tickwheel.client.base-url=http://tickwheel.internal:7700/",
            "tickwheel.client.token=secret-token", "tickwheel.client.connect-timeout=3s",
            "tickwheel.client.request-timeout=7s", "tickwheel.client.max-attempts=5",
            "tickwheel.client.max-connections=16"};
        assertThat(TickwheelAutoConfigurationTest.propertyNames())
                .filteredOn(name -> name.startsWith("tickwheel.client.")).hasSize(properties.length);
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TickwheelServer.class);
            TickwheelClient client = context.getBean(TickwheelClient.class);
            assertThat(client.settings().baseUri()).isEqualTo(URI.create("http://tickwheel.internal:7700"));
            assertThat(client.settings().connectTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(client.settings().requestTimeout()).isEqualTo(Duration.ofSeconds(7));
            assertThat(client.settings().retry().maxAttempts()).isEqualTo(5);
            assertThat(client.settings().maxConnections()).isEqualTo(16);
            assertThat(client.settings().tokenSupplied()).isTrue();
        });
    }

    @Test
    void theClient_sendsItsToken_toTheServerAtTheBaseUrl() throws Exception {
        List<String> authorizations = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/health", exchange -> {
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            runner.withPropertyValues("tickwheel.client.base-url=http://127.0.0.1:" + server.getAddress().getPort(),
                    "tickwheel.client.token=secret-token").run(context -> {
                        Health health = context.getBean(TickwheelClient.class).health();
                        assertThat(health.up()).isTrue();
                        assertThat(authorizations).containsExactly("Bearer secret-token");
                    });
        } finally {
            server.stop(0);
        }
    }

    @Test
    void withoutTheClientLibrary_noClient() {
        runner.withPropertyValues("tickwheel.client.base-url=http://127.0.0.1:9")
                .withClassLoader(new FilteredClassLoader(TickwheelClient.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("tickwheelClient");
                });
    }
}
