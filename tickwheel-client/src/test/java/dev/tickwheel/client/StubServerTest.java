package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.client.model.AttemptOutcome;
import dev.tickwheel.client.model.Health;
import dev.tickwheel.client.model.HealthState;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client against a stub server with canned answers: what a real server does not answer today. A newer server's
 * unknown fields and enum values are read, not refused; a 500, a proxy's HTML 502 and an unreadable body are typed
 * exceptions.
 */
class StubServerTest {

    private HttpServer stub;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private TickwheelClient client;

    private record Answer(int status, String body) {
    }

    @BeforeEach
    void start() throws IOException {
        stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/", exchange -> {
            Answer answer = answers.getOrDefault(exchange.getRequestURI().getPath(), new Answer(404, ""));
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        stub.start();
        client = TickwheelClient.builder("http://127.0.0.1:" + stub.getAddress().getPort())
                .retryPolicy(RetryPolicy.NONE).build();
    }

    @AfterEach
    void stop() {
        client.close();
        stub.stop(0);
    }

    @Test
    void instance_withUnknownFieldsAndAnUnknownStatus_isRead() {
        answers.put("/api/instances/384030933407236096", new Answer(200, """
                {"id": "384030933407236096", "jobId": "7", "jobName": "j", "key": null, "status": "PAUSED",
                 "expectedTriggerTime": "2030-01-31T12:00:00Z", "attempt": 1, "shard": 3, "params": {"a": [1]},
                 "tier": "high", "labels": {"team": "ops"},
                 "attempts": [{"attempt": 1, "outcome": "SUCCEEDED", "node": 0, "region": "eu"},
                              {"attempt": 2, "outcome": "THROTTLED"}]}"""));

        Instance instance = client.instances().get(384030933407236096L);

        assertEquals(384030933407236096L, instance.id(), "a 64-bit ID from a JSON string, exact");
        assertEquals(7, instance.jobId());
        assertEquals(InstanceStatus.UNKNOWN, instance.status());
        assertEquals(Instant.parse("2030-01-31T12:00:00Z"), instance.expectedTriggerTime());
        assertEquals(1, instance.params().get("a").get(0).asInt());
        assertEquals(AttemptOutcome.SUCCEEDED, instance.attempts().get(0).outcome());
        assertEquals(AttemptOutcome.UNKNOWN, instance.attempts().get(1).outcome());
        assertNull(instance.actualTriggerTime());
    }

    // Jobs cannot name a pool through the API yet, so TickwheelClientTest's real server cannot answer pool_in_use.
    @Test
    void poolDelete_poolInUse_isAConflictWithTheServersCode() {
        answers.put("/api/pools/partner-api", new Answer(409, """
                {"error": "pool_in_use", "message": "pool 'partner-api' is named by a job", "field": null}"""));

        ConflictException e = assertThrows(ConflictException.class, () -> client.pools().delete("partner-api"));

        assertEquals(409, e.httpStatus());
        assertEquals("pool_in_use", e.code());
        assertTrue(e.getMessage().contains("named by a job"), e.getMessage());
    }

    @Test
    void health_down_isAnAnswer_notAnException() {
        answers.put("/health", new Answer(503, """
                {"status": "DOWN", "store": "DOWN", "wheels": "UP", "pendingTimers": 3, "loaderRuns": 9,
                 "loaderFailures": 2, "since": "2030-01-01T00:00:00Z"}"""));

        Health health = client.health();

        assertEquals(HealthState.DOWN, health.status());
        assertEquals(HealthState.DOWN, health.store());
        assertEquals(2, health.loaderFailures());
    }

    @Test
    void internalError_isAnUnexpectedStatus_withTheServersCode() {
        answers.put("/api/jobs/5", new Answer(500, """
                {"error": "internal_error", "message": "unexpected server error; see the server log",
                 "field": null}"""));

        UnexpectedStatusException error = assertThrows(UnexpectedStatusException.class, () -> client.jobs().get(5));

        assertEquals(500, error.httpStatus());
        assertEquals("internal_error", error.code());
        assertTrue(error.getMessage().startsWith("unexpected server error"), error.getMessage());
        assertTrue(error.getMessage().contains("GET /api/jobs/5 answered 500"), error.getMessage());
    }

    @Test
    void proxyHtmlPage_isAnUnexpectedStatus_namedByTheStatus() {
        answers.put("/api/jobs/5", new Answer(502, "<html><body>Bad Gateway</body></html>"));

        UnexpectedStatusException error = assertThrows(UnexpectedStatusException.class, () -> client.jobs().get(5));

        assertEquals("http_502", error.code());
        assertTrue(error.getMessage().contains("Bad Gateway"), error.getMessage());
    }

    @Test
    void answerThatIsNotJson_isAnUnexpectedStatus_notAParserException() {
        answers.put("/api/jobs/5", new Answer(200, "not json"));

        UnexpectedStatusException error = assertThrows(UnexpectedStatusException.class, () -> client.jobs().get(5));

        assertEquals("unreadable_answer", error.code());
        assertEquals(200, error.httpStatus());
    }

    @Test
    void forbidden_isUnauthorized_and422IsValidation() {
        answers.put("/api/jobs/5", new Answer(403, "{\"error\": \"forbidden\", \"message\": \"no\"}"));
        answers.put("/api/jobs/6", new Answer(422, "{\"error\": \"invalid_field\", \"message\": \"bad\", "
                + "\"field\": \"name\"}"));

        assertEquals(403, assertThrows(UnauthorizedException.class, () -> client.jobs().get(5)).httpStatus());
        assertEquals("name", assertThrows(ValidationException.class, () -> client.jobs().get(6)).field());
    }
}
