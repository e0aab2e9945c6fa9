package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobQuery;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against a real server started with {@code --token}: 401s as exceptions (reads need the token too;
 * health does not), and token rotation. Tokens the API creates, roles and namespaces: {@link AccessClientTest}.
 */
class TickwheelClientAuthTest {

    private static final String TOKEN = "tw-test-token-0123456789";

    @TempDir
    static Path data;

    private static H2Server server;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, TOKEN);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static JobRequest job(String name) {
        return JobRequest.builder(name, Schedule.api(), Target.webhook("http://127.0.0.1:9/none")).build();
    }

    @Test
    void callsWithoutToken_areUnauthorized_healthStaysOpen() {
        try (TickwheelClient client = TickwheelClient.builder(server.baseUrl()).build()) {
            UnauthorizedException refused = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().create(job("no token")));

            assertEquals(401, refused.httpStatus());
            assertEquals("unauthorized", refused.code());
            assertEquals(1, refused.attempts(), "a 401 is never retried");
            assertTrue(refused.getMessage().contains("Authorization"), refused.getMessage());
            UnauthorizedException read = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().list(JobQuery.all()));
            assertEquals(401, read.httpStatus());
            assertEquals(1, read.attempts(), "a read is retried after a lost answer or a 503, never after a 401");
            assertTrue(client.health().up());
        }
    }

    @Test
    void wrongToken_isUnauthorized_withTheServersMessage() {
        try (TickwheelClient client = TickwheelClient.builder(server.baseUrl()).token("wrong").build()) {
            UnauthorizedException refused = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().create(job("wrong token")));

            assertTrue(refused.getMessage().contains("wrong, revoked or expired token"), refused.getMessage());
        }
    }

    @Test
    void tokenSupplier_isAskedOnEveryCall_soARotatedTokenIsUsedByTheNextCall() {
        AtomicReference<String> current = new AtomicReference<>("expired-token");
        AtomicInteger asked = new AtomicInteger();
        try (TickwheelClient client = TickwheelClient.builder(server.baseUrl()).tokenSupplier(() -> {
            asked.incrementAndGet();
            return current.get();
        }).build()) {
            assertThrows(UnauthorizedException.class, () -> client.jobs().create(job("before rotation")));
            current.set(TOKEN);
            Job created = client.jobs().create(job("after rotation"));
            current.set("revoked");
            UnauthorizedException revoked = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().delete(created.id()));
            current.set(TOKEN);

            assertEquals("after rotation", client.jobs().get(created.id()).name(), "the delete did not happen");
            assertEquals(4, asked.get(), "once per call: create, create, delete, get");
            assertEquals(401, revoked.httpStatus());
        }
    }
}
