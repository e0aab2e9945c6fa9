package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TickwheelClientBuilderTest {

    @Test
    void build_withDefaults_hasTheDefaultConstants_andNoTrailingSlash() {
        try (TickwheelClient client = TickwheelClient.builder("http://127.0.0.1:7700/").build()) {
            ClientSettings settings = client.settings();

            assertEquals("http://127.0.0.1:7700", settings.baseUri().toString());
            assertEquals(TickwheelClient.DEFAULT_CONNECT_TIMEOUT, settings.connectTimeout());
            assertEquals(TickwheelClient.DEFAULT_REQUEST_TIMEOUT, settings.requestTimeout());
            assertEquals(RetryPolicy.DEFAULTS, settings.retry());
            assertFalse(settings.tokenSupplied());
            assertEquals(TickwheelClient.DEFAULT_MAX_CONNECTIONS, settings.maxConnections());
        }
    }

    @Test
    void build_keepsAPathPrefix_forAServerBehindAProxy() {
        try (TickwheelClient client = TickwheelClient.builder("https://ops.example.com/tickwheel/").token("t")
                .build()) {
            assertEquals("https://ops.example.com/tickwheel", client.settings().baseUri().toString());
            assertTrue(client.settings().tokenSupplied());
            assertFalse(client.toString().contains("=t,"), "the token is not shown: " + client);
        }
    }

    @Test
    void setters_refuseBadValues_namingThem() {
        TickwheelClient.Builder builder = TickwheelClient.builder("http://127.0.0.1:7700");

        assertEquals("requestTimeout must be positive and at most PT1H, got PT0S", assertThrows(
                IllegalArgumentException.class, () -> builder.requestTimeout(Duration.ZERO)).getMessage());
        assertEquals("connectTimeout must be positive and at most PT1H, got PT-1S", assertThrows(
                IllegalArgumentException.class, () -> builder.connectTimeout(Duration.ofSeconds(-1))).getMessage());
        assertEquals("token must not be blank: ' '", assertThrows(IllegalArgumentException.class,
                () -> builder.token(" ")).getMessage());
    }

    @Test
    void build_refusesABaseUriThatIsNotHttp_andOneWithAQuery() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TickwheelClient.builder("ftp://host/").build())
                .getMessage().contains("'ftp://host/'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TickwheelClient.builder("/api").build())
                .getMessage().contains("'/api'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> TickwheelClient.builder("http://host:1/?a=b").build()).getMessage().contains("query"));
    }

    @Test
    void maxConnections_outOfRange_isRefusedNamingIt_andAValueInRangeIsKept() {
        TickwheelClient.Builder builder = TickwheelClient.builder("http://127.0.0.1:7700");

        assertEquals("maxConnections must be in 1..10000: 0", assertThrows(IllegalArgumentException.class,
                () -> builder.maxConnections(0)).getMessage());
        assertEquals("maxConnections must be in 1..10000: 10001", assertThrows(IllegalArgumentException.class,
                () -> builder.maxConnections(10_001)).getMessage());
        try (TickwheelClient client = builder.maxConnections(8).connectTimeout(Duration.ofSeconds(1)).build()) {
            assertEquals(8, client.settings().maxConnections());
            assertEquals(Duration.ofSeconds(1), client.settings().connectTimeout());
        }
    }

    @Test
    void close_thenCall_isRefused() {
        TickwheelClient client = TickwheelClient.builder("http://127.0.0.1:7700").build();
        client.close();
        client.close(); // idempotent

        assertTrue(assertThrows(IllegalStateException.class, () -> client.jobs().get(1)).getMessage()
                .contains("closed"));
    }
}
