package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.OverLimit;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's priority and pool and a run's priority through the client, against a real server in its own JVM (H2): sent,
 * read back, and an unknown pool refused naming its field.
 */
class PriorityAndPoolClientTest {

    @TempDir
    static Path data;

    private static H2Server server;
    private static TickwheelClient client;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, null);
        client = TickwheelClient.builder(server.baseUrl()).build();
        HttpResponse<String> pool = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(server.baseUrl() + "/api/pools"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"partner-api\", \"maxConcurrent\": 4}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, pool.statusCode(), pool.body());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void job_priorityAndPool_sentAndReadBack_runPriorityOnItsInstance() {
        Job job = client.jobs().create(JobRequest.builder("pooled", Schedule.api(),
                Target.webhook("http://127.0.0.1:9/none")).priority(7).pool("partner-api", OverLimit.SKIP).build());
        assertEquals(7, job.priority());
        assertEquals("partner-api", job.pool());
        assertEquals(OverLimit.SKIP, job.overLimit());
        assertEquals(job, client.jobs().get(job.id()));

        long urgent = client.jobs().run(job.id(), RunRequest.after(Duration.ofMinutes(10)).withPriority(9))
                .instanceId();
        assertEquals(9, client.instances().get(urgent).priority());
        long plain = client.jobs().run(job.id(), RunRequest.after(Duration.ofMinutes(10))).instanceId();
        assertNull(client.instances().get(plain).priority(), "its job's");
    }

    @Test
    void job_unknownPool_isRefusedNamingPool() {
        ValidationException refused = assertThrows(ValidationException.class, () -> client.jobs().create(
                JobRequest.builder("nowhere", Schedule.api(), Target.webhook("http://127.0.0.1:9/none"))
                        .pool("nope", OverLimit.WAIT).build()));
        assertEquals("pool", refused.field());
        assertThrows(IllegalArgumentException.class, () -> RunRequest.now().withPriority(10));
    }
}
