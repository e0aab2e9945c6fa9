package dev.tickwheel.example.reminders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The example on PostgreSQL, as a user runs it: its own Flyway and Tickwheel's migrations in one schema, reminders
 * scheduled and cancelled inside the service's transactions, sent by the annotated handler, health and meters over
 * HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "tickwheel.web.token=" + ReminderServicePostgresTest.TOKEN)
@DirtiesContext
class ReminderServicePostgresTest {

    static final String TOKEN = "mount-token-0123456789";
    private static final TestSchema SCHEMA = new TestSchema();

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::jdbcUrl);
    }

    @TestConfiguration
    static class DropSchemaAtClose {
        /** Destroyed after Tickwheel has stopped (lifecycle beans stop before any bean is destroyed). */
        @Bean
        DisposableBean dropTestSchema() {
            return SCHEMA::drop;
        }
    }

    @Autowired
    ReminderService service;
    @Autowired
    ReminderRepository reminders;
    @Autowired
    TickwheelServer tickwheel;
    @Autowired
    PlatformTransactionManager transactions;
    @LocalServerPort
    int port;

    @Test
    void scheduledInARolledBackTransaction_leavesNeitherReminderNorRun_andNothingFires() throws Exception {
        AtomicLong rolledBack = new AtomicLong();
        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            rolledBack.set(service.schedule("ada", "never", Instant.now()).id());
            assertThat(runOf(rolledBack.get())).as("its run exists inside the transaction").isPresent();
            status.setRollbackOnly();
        });
        assertThat(reminders.find(rolledBack.get())).isEmpty();
        assertThat(runOf(rolledBack.get())).isEmpty();
        // A later reminder, committed: once it is sent, a rolled-back one (due earlier) would have been sent first.
        Reminder marker = service.schedule("ada", "marker", Instant.now().plusMillis(200));
        awaitStatus(marker.id(), "SENT");
        tickwheel.passNow(); // the owner's sweep would arm a run that had been written
        assertThat(tickwheel.instances().list(remindersJobId(), null, null, null, null, 100).items())
                .extracting(Instance::params).doesNotContain(Long.toString(rolledBack.get()));
    }

    @Test
    void scheduledAndCommitted_firesOnTimeOnce() throws Exception {
        Instant due = Instant.now().plusMillis(500);
        Reminder reminder = service.schedule("bob", "on time", due);
        Reminder sent = awaitStatus(reminder.id(), "SENT");
        assertThat(sent.sentAt()).isAfterOrEqualTo(due.minusMillis(1)).isBefore(due.plusSeconds(5));
        Instance run = awaitRunStatus(reminder.id(), InstanceStatus.SUCCEEDED);
        assertThat(run.attempt()).isEqualTo(1);
    }

    @Test
    void cancelledByKey_cancelsTheRunInTheSameTransaction() throws Exception {
        Reminder reminder = service.schedule("eve", "later", Instant.now().plusSeconds(60));
        assertThat(service.cancel(reminder.id())).isTrue();
        assertThat(reminders.find(reminder.id()).orElseThrow().status()).isEqualTo("CANCELLED");
        assertThat(runOf(reminder.id()).orElseThrow().status()).isEqualTo(InstanceStatus.CANCELLED);
        assertThat(service.cancel(reminder.id())).as("a second cancel finds nothing scheduled").isFalse();
    }

    @Test
    void cancelFailingAfterTheRunsCancel_rollsBothBack() {
        Reminder reminder = service.schedule("eve", "kept", Instant.now().plusSeconds(60));
        assertThrows(IllegalStateException.class, () -> new TransactionTemplate(transactions)
                .executeWithoutResult(status -> {
                    service.cancel(reminder.id());
                    throw new IllegalStateException("the caller fails after cancelling");
                }));
        assertThat(reminders.find(reminder.id()).orElseThrow().status()).isEqualTo("SCHEDULED");
        assertThat(runOf(reminder.id()).orElseThrow().status()).isEqualTo(InstanceStatus.WAITING);
    }

    @Test
    void healthAndMeters_onTheActuator() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"tickwheel\"").contains("\"lifecycle\":\"RUNNING\"");
        HttpResponse<String> fired = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/metrics/tickwheel.timer.scheduled")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(fired.statusCode()).isEqualTo(200);
    }

    @Test
    void apiAndConsole_mountedOnTheApplicationsServer_withTheTokenRule() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + port + "/tickwheel";
        HttpResponse<String> anonymousRead = http.send(HttpRequest.newBuilder(
                URI.create(base + "/api/jobs?name=reminders")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymousRead.statusCode()).isEqualTo(401); // with a token, reads need it too
        HttpResponse<String> jobs = http.send(HttpRequest.newBuilder(URI.create(base + "/api/jobs?name=reminders"))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.body()).contains("\"name\":\"reminders\"");

        String job = "{\"name\":\"mounted\",\"schedule\":{\"type\":\"API\"},"
                + "\"target\":{\"type\":\"HANDLER\",\"name\":\"send-reminder\"}}";
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/api/jobs"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(job)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("\"error\":\"unauthorized\"");
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/jobs"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(job)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(tickwheel.jobs().findByName("mounted")).isPresent();

        HttpResponse<String> missing = http.send(HttpRequest.newBuilder(URI.create(base + "/api/jobs/123"))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("\"error\":\"not_found\"");
        HttpResponse<String> noRoute = http.send(HttpRequest.newBuilder(URI.create(base + "/api/nothing")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(noRoute.statusCode()).isEqualTo(404);
        assertThat(noRoute.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));

        HttpResponse<String> console = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(console.statusCode()).isEqualTo(200);
        assertThat(console.body()).contains("src=\"assets/dashboard.js\"");
        HttpResponse<String> script = http.send(HttpRequest.newBuilder(URI.create(base + "/assets/dashboard.js"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/javascript"));
        HttpResponse<String> spec = http.send(HttpRequest.newBuilder(URI.create(base + "/openapi.yaml")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(spec.body()).startsWith("openapi:");
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
    }

    private long remindersJobId() {
        return tickwheel.jobs().findByName(ReminderApplication.REMINDERS_JOB).orElseThrow().id();
    }

    private Optional<Instance> runOf(long reminderId) {
        return tickwheel.instances().findByKey(remindersJobId(), Reminder.runKey(reminderId));
    }

    private Reminder awaitStatus(long id, String status) {
        Await.until(() -> "reminder " + id + " " + status + ": " + reminders.find(id), Duration.ofSeconds(20),
                () -> reminders.find(id).orElseThrow().status().equals(status));
        return reminders.find(id).orElseThrow();
    }

    private Instance awaitRunStatus(long reminderId, InstanceStatus status) {
        Await.until(() -> "run of reminder " + reminderId + " " + status + ": " + runOf(reminderId),
                Duration.ofSeconds(20), () -> runOf(reminderId).map(Instance::status).orElse(null) == status);
        return runOf(reminderId).orElseThrow();
    }
}
