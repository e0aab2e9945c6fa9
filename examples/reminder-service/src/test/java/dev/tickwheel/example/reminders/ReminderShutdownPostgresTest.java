package dev.tickwheel.example.reminders;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.spring.JobDefinition;
import dev.tickwheel.spring.TickwheelHandler;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Closing the application with a call in flight: Tickwheel stops first (the lifecycle), lets the call end and records
 * its outcome, and only then is the DataSource closed. The DataSource records what it saw when it was closed.
 */
class ReminderShutdownPostgresTest {

    /** What the DataSource saw as it was being closed. */
    static final AtomicReference<String> SEEN_AT_CLOSE = new AtomicReference<>();
    static final AtomicReference<TickwheelServer> SERVER = new AtomicReference<>();
    static final AtomicReference<Long> SLOW_INSTANCE = new AtomicReference<>();
    static final CountDownLatch CALL_STARTED = new CountDownLatch(1);

    @Test
    void closeWithACallInFlight_recordsItsOutcome_beforeTheDataSourceCloses() throws Exception {
        TestSchema schema = new TestSchema();
        try {
            ConfigurableApplicationContext context = new SpringApplicationBuilder(ReminderApplication.class,
                    SlowCalls.class).properties("tickwheel.stop-timeout=20s")
                    .run("--server.port=0", "--spring.datasource.url=" + schema.jdbcUrl(),
                            "--spring.jmx.enabled=false");
            TickwheelServer server = context.getBean(TickwheelServer.class);
            SERVER.set(server);
            long jobId = server.jobs().findByName("slow").orElseThrow().id();
            Instance slow = server.jobs().run(jobId, RunSpec.after(0, null)).instance();
            SLOW_INSTANCE.set(slow.id());
            assertThat(CALL_STARTED.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(server.callsInFlight()).isEqualTo(1);

            context.close();

            assertThat(SEEN_AT_CLOSE.get()).isEqualTo("tickwheel CLOSED, the call's instance SUCCEEDED");
        } finally {
            schema.drop();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowCalls {

        @Bean
        JobDefinition slowJob() {
            return new JobDefinition(JobSpec.of("slow", ScheduleSpec.api(), Target.handler("slow")));
        }

        @Bean
        SlowHandler slowHandler(ObjectProvider<TickwheelServer> server) {
            return new SlowHandler(server);
        }

        /** The application's DataSource, telling what it sees when closed. */
        @Bean
        HikariDataSource dataSource(org.springframework.core.env.Environment environment) {
            HikariDataSource dataSource = new HikariDataSource() {
                @Override
                public void close() {
                    if (!isClosed()) {
                        SEEN_AT_CLOSE.set("tickwheel " + SERVER.get().lifecycle() + ", the call's instance "
                                + statusOf(this, SLOW_INSTANCE.get()));
                    }
                    super.close();
                }
            };
            dataSource.setJdbcUrl(environment.getRequiredProperty("spring.datasource.url"));
            dataSource.setMaximumPoolSize(20);
            return dataSource;
        }
    }

    /** Returns only once Tickwheel has begun to stop: the call is in flight when the context closes. */
    public static class SlowHandler {
        private final ObjectProvider<TickwheelServer> server;

        SlowHandler(ObjectProvider<TickwheelServer> server) {
            this.server = server;
        }

        @TickwheelHandler("slow")
        public void call(JobContext context) {
            CALL_STARTED.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.getObject().lifecycle() != TickwheelServer.Lifecycle.CLOSED
                    && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static String statusOf(HikariDataSource dataSource, long instanceId) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement ps = connection.prepareStatement("SELECT status FROM tw_instance WHERE id = ?")) {
            ps.setLong(1, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "absent";
            }
        } catch (SQLException e) {
            return "unreadable: " + e.getMessage();
        }
    }
}
