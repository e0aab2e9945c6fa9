package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.OutboundSettings;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbound guard over HTTP: a job whose URL it refuses is a 400 {@code invalid_target} naming the field, on
 * create and on replace, and nothing is written. The server binds 127.0.0.1 with {@code --outbound-guard on} and
 * {@code --allow-targets 192.168.7.0/24}.
 */
class OutboundGuardApiTest {

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, new OutboundSettings(OutboundSettings.Mode.ON, List.of("192.168.7.0/24")));
        api = new ApiClient(app.baseUrl());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static String job(String url, String extra) {
        return "{\"name\": \"guarded\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                + " \"url\": \"" + url + "\"}" + extra + "}";
    }

    private static void assertRefused(ApiClient.Reply reply, String field, String sentence) {
        assertEquals(400, reply.status(), reply.text());
        assertEquals("invalid_target", reply.error(), reply.text());
        assertEquals(field, reply.json().get("field").asText(), reply.text());
        assertEquals("field '" + field + "': " + sentence, reply.message());
    }

    @Test
    void create_loopbackUrl_is400NamingTargetUrl_andNothingIsStored() {
        assertRefused(api.post("/api/jobs", job("http://127.0.0.1:9/hook", "")), "target.url",
                "target address 127.0.0.1 is refused by the outbound guard: loopback range 127.0.0.0/8; allow it with"
                        + " --allow-targets");
        assertRefused(api.post("/api/jobs", job("http://[::ffff:169.254.169.254]/latest/meta-data", "")),
                "target.url", "target address 169.254.169.254 is refused by the outbound guard: cloud metadata"
                        + " address 169.254.169.254; allow it with --allow-targets");

        assertEquals(0, api.get("/api/jobs?name=guarded").json().get("items").size());
    }

    @Test
    void create_privateAlertUrl_is400NamingAlertUrl() {
        assertRefused(api.post("/api/jobs", job("http://192.168.7.10/hook", ", \"alertUrl\": \"http://10.1.2.3/a\"")),
                "alertUrl", "target address 10.1.2.3 is refused by the outbound guard: private range 10.0.0.0/8;"
                        + " allow it with --allow-targets");
    }

    @Test
    void replace_withRefusedUrl_is400_andTheJobKeepsItsUrl() {
        String id = api.post("/api/jobs", job("http://192.168.7.10/hook", "")).json().get("id").asText();

        assertRefused(api.put("/api/jobs/" + id, job("http://192.168.8.10/hook", "")), "target.url",
                "target address 192.168.8.10 is refused by the outbound guard: private range 192.168.0.0/16; allow it"
                        + " with --allow-targets");

        assertEquals("http://192.168.7.10/hook", api.get("/api/jobs/" + id).json().get("target").get("url").asText());
        assertTrue(api.delete("/api/jobs/" + id).status() < 300);
    }
}
