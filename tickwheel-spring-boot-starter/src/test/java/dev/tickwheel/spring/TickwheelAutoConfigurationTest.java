package dev.tickwheel.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.dispatch.JobHandler;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.store.TestKeys;
import dev.tickwheel.time.ScheduleSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configuration in application contexts of its own: properties, store choice, back-off, optional parts,
 * lazy initialisation, handler discovery through proxies, and runs inside the caller's transaction (H2; the example's
 * {@code @SpringBootTest} does the same on PostgreSQL).
 */
class TickwheelAutoConfigurationTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** An application with an in-memory H2 DataSource of its own (a fresh database per context). */
    private static ApplicationContextRunner withDataSource() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TickwheelAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:app" + DATABASES.incrementAndGet()
                        + ";DB_CLOSE_DELAY=-1", "spring.datasource.hikari.maximum-pool-size=20");
    }

    @Test
    void defaults_equalTheBuildersDefaults() {
        withDataSource().run(context -> {
            assertThat(context).hasNotFailed();
            TickwheelServer.Config actual = context.getBean(TickwheelServer.class).config();
            TickwheelServer.Config expected = TickwheelServer.builder().build().config();
            assertThat(settingsOf(actual)).isEqualTo(settingsOf(expected));
            assertThat(actual.dataSource()).isSameAs(context.getBean(DataSource.class));
            assertThat(actual.schemaHistoryTable()).isEqualTo("tickwheel_schema_history");
        });
    }

    /** Every engine setting the properties map, in one comparable list. */
    private static List<Object> settingsOf(TickwheelServer.Config config) {
        return List.of(config.nodeId(), config.leaseTtl(), config.leaseRenewInterval(), config.loaderPeriod(),
                config.loadWindow(), config.armHorizon(), config.misfireThreshold(), config.fireAllLimit(),
                config.callTimeout(), config.maxCallsInFlight(), config.maxCallsPerHost(), config.handlerThreads(),
                config.stopTimeout(), config.storeTimeout(), config.retention(), config.alerts(),
                config.secretKeys());
    }

    @Test
    void everyProperty_reachesTheBuilder() throws Exception {
        String[] properties = {
            "tickwheel.node-id=17", "tickwheel.lease-ttl=9s", "tickwheel.lease-renew-interval=3s",
            "tickwheel.loader-period=7s", "tickwheel.load-window=11s", "tickwheel.arm-horizon=20s",
            "tickwheel.misfire-threshold=6s", "tickwheel.fire-all-limit=42", "tickwheel.call-timeout=13s",
            "tickwheel.max-calls-in-flight=321", "tickwheel.max-calls-per-host=33", "tickwheel.handler-threads=5",
            "tickwheel.stop-timeout=4s", "tickwheel.store-timeout=750ms",
            "tickwheel.retention.days=3", "tickwheel.retention.batch-size=77", "tickwheel.retention.interval=2m",
            "tickwheel.retention.max-batches-per-run=8",
            "tickwheel.alerts.url=http://127.0.0.1:9/alerts",
            "tickwheel.alerts.secret=0123456789abcdef0123456789abcdef",
            "tickwheel.alerts.failure-threshold=4", "tickwheel.alerts.failure-window=3m",
            "tickwheel.alerts.min-interval=1m",
            "tickwheel.store.schema-history-table=tw_history_of_this_app",
            "tickwheel.store.data-source=dataSource", "tickwheel.store.jdbc-url=", "tickwheel.enabled=true",
            "tickwheel.web.enabled=false", "tickwheel.web.path=/scheduler", "tickwheel.web.token=web-token",
            "tickwheel.secret-key=" + TestKeys.key(2), "tickwheel.previous-secret-keys=" + TestKeys.key(1),
            "tickwheel.outbound-guard=true", "tickwheel.allow-targets=127.0.0.1/32,hooks.example.com"};
        // A property added without a line here fails this count (the metadata lists every one); the client's
        // properties are TickwheelClientAutoConfigurationTest's.
        assertThat(propertyNames()).filteredOn(name -> !name.startsWith("tickwheel.client."))
                .hasSize(properties.length)
                .containsExactlyInAnyOrderElementsOf(namesOf(properties));
        withDataSource().withPropertyValues(properties).run(context -> {
            assertThat(context).hasNotFailed();
            TickwheelServer.Config config = context.getBean(TickwheelServer.class).config();
            assertThat(config.nodeId()).hasValue(17);
            assertThat(List.of(config.leaseTtl(), config.leaseRenewInterval(), config.loaderPeriod(),
                    config.loadWindow(), config.armHorizon(), config.misfireThreshold(), config.callTimeout(),
                    config.stopTimeout(), config.storeTimeout())).containsExactly(Duration.ofSeconds(9),
                    Duration.ofSeconds(3), Duration.ofSeconds(7), Duration.ofSeconds(11), Duration.ofSeconds(20),
                    Duration.ofSeconds(6), Duration.ofSeconds(13), Duration.ofSeconds(4), Duration.ofMillis(750));
            assertThat(List.of(config.fireAllLimit(), config.maxCallsInFlight(), config.maxCallsPerHost(),
                    config.handlerThreads())).containsExactly(42, 321, 33, 5);
            assertThat(config.retention()).isEqualTo(new RetentionPurge.Settings(3, 77, Duration.ofMinutes(2), 8));
            assertThat(config.alerts()).isEqualTo(new AlertSettings("http://127.0.0.1:9/alerts",
                    "0123456789abcdef0123456789abcdef", 4, Duration.ofMinutes(3), Duration.ofMinutes(1)));
            assertThat(config.schemaHistoryTable()).isEqualTo("tw_history_of_this_app");
            assertThat(config.secretKeys().currentKeyId()).hasValue(TestKeys.idOf(2));
            assertThat(config.secretKeys().previousKeyIds()).containsExactly(TestKeys.idOf(1));
            assertThat(config.outboundGuard().toString()).endsWith("allowing 127.0.0.1/32, hooks.example.com");
            TickwheelProperties.Web web = context.getBean(TickwheelProperties.class).getWeb();
            assertThat(List.of(web.isEnabled(), web.getPath(), web.getToken()))
                    .containsExactly(false, "/scheduler", "web-token");
            assertThat(config.dataSource()).isSameAs(context.getBean("dataSource"));
            try (Connection connection = context.getBean(DataSource.class).getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM \"tw_history_of_this_app\"")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getInt(1)).as("baseline and Tickwheel's migrations").isGreaterThan(5);
            }
        });
    }

    @Test
    void secretKey_notAKey_failsNamingThePropertyAndWhatItGot_neverTheValue() {
        withDataSource().withPropertyValues("tickwheel.secret-key=not-a-key-at-all").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessage("tickwheel.secret-key must be 32 random bytes as base64 (make one with: openssl rand"
                            + " -base64 32), got 12 bytes");
        });
    }

    static Set<String> propertyNames() throws Exception {
        try (InputStream in = TickwheelProperties.class.getResourceAsStream(
                "/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("configuration metadata generated at build").isNotNull();
            Set<String> names = new HashSet<>();
            for (JsonNode property : new ObjectMapper().readTree(in).get("properties")) {
                names.add(property.get("name").asText());
            }
            return names;
        }
    }

    private static List<String> namesOf(String[] properties) {
        return java.util.Arrays.stream(properties).map(p -> p.substring(0, p.indexOf('='))).toList();
    }

    @Test
    void outboundGuard_offByDefault_andOnARefusedAlertUrlTheContextFailsNamingTheProperty() {
        withDataSource().run(context -> assertThat(context.getBean(TickwheelServer.class).config().outboundGuard()
                .enabled()).isFalse());
        withDataSource().withPropertyValues("tickwheel.outbound-guard=true",
                "tickwheel.alerts.url=http://10.0.0.5/alerts").run(context -> assertThat(context).getFailure()
                .rootCause().hasMessage("field 'alerts.url': target address 10.0.0.5 is refused by the outbound guard:"
                        + " private range 10.0.0.0/8; allow it with tickwheel.allow-targets"));
    }

    @Test
    void enabledFalse_makesNoBeans() {
        withDataSource().withPropertyValues("tickwheel.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TickwheelServer.class);
            assertThat(context).doesNotHaveBean(TickwheelLifecycle.class);
            assertThat(context).doesNotHaveBean(TickwheelProperties.class);
        });
    }

    @Test
    void noDataSource_givesTheBuildersH2File() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TickwheelAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TickwheelServer server = context.getBean(TickwheelServer.class);
                    assertThat(server.config().dataSource()).isNull();
                    assertThat(server.config().jdbcUrl()).isEqualTo(TickwheelServer.builder().build().config()
                            .jdbcUrl()).startsWith("jdbc:h2:file:");
                    assertThat(server.lifecycle()).isEqualTo(TickwheelServer.Lifecycle.RUNNING);
                    assertThat(server.storeHealthy()).isTrue();
                });
    }

    @Test
    void severalDataSources_theNamedOneIsUsed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TickwheelAutoConfiguration.class))
                .withUserConfiguration(TwoDataSources.class)
                .withPropertyValues("tickwheel.store.data-source=schedulingDataSource")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TickwheelServer server = context.getBean(TickwheelServer.class);
                    assertThat(server.config().dataSource()).isSameAs(context.getBean("schedulingDataSource"));
                    server.jobs().create(JobSpec.of("in-the-named-one", ScheduleSpec.api(),
                            Target.webhook("http://127.0.0.1:9/none")));
                    assertThat(jobNames(context.getBean("schedulingDataSource", DataSource.class)))
                            .containsExactly("in-the-named-one");
                    assertThat(tableExists(context.getBean("applicationDataSource", DataSource.class), "TW_JOB"))
                            .isFalse();
                });
    }

    @Test
    void severalDataSources_noneNamedAndNonePrimary_failsNamingThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TickwheelAutoConfiguration.class))
                .withUserConfiguration(TwoDataSources.class)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("tickwheel.store.data-source")
                        .hasMessageContaining("applicationDataSource").hasMessageContaining("schedulingDataSource"));
    }

    @Test
    void severalDataSources_thePrimaryOneByDefault() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TickwheelAutoConfiguration.class))
                .withUserConfiguration(TwoDataSources.class, PrimaryDataSource.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(TickwheelServer.class).config().dataSource())
                            .isSameAs(context.getBean("primaryDataSource"));
                });
    }

    private static List<String> jobNames(DataSource dataSource) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT name FROM tw_job ORDER BY name")) {
            List<String> names = new java.util.ArrayList<>();
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            return names;
        }
    }

    private static boolean tableExists(DataSource dataSource, String table) throws Exception {
        try (Connection connection = dataSource.getConnection();
                ResultSet tables = connection.getMetaData().getTables(null, null, table, null)) {
            return tables.next();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {
        @Bean
        DataSource applicationDataSource() {
            return h2("two-app" + DATABASES.incrementAndGet());
        }

        @Bean
        DataSource schedulingDataSource() {
            return h2("two-scheduling" + DATABASES.incrementAndGet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryDataSource {
        @Bean
        @Primary
        DataSource primaryDataSource() {
            return h2("primary" + DATABASES.incrementAndGet());
        }
    }

    private static DataSource h2(String name) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Test
    void usersBeans_win() {
        withDataSource().withUserConfiguration(UsersOwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(TickwheelLifecycle.class).isSameAs(context.getBean("myLifecycle"));
            assertThat(context).getBean(TickwheelHealthIndicator.class)
                    .isSameAs(context.getBean("tickwheelHealthIndicator"));
            assertThat(context.getBean(TickwheelServer.class).config().handlerThreads())
                    .as("the user's customizer ran after the properties").isEqualTo(3);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class UsersOwnBeans {
        @Bean
        TickwheelLifecycle myLifecycle(TickwheelServer server) {
            return new TickwheelLifecycle(server, List.of());
        }

        @Bean
        TickwheelHealthIndicator tickwheelHealthIndicator(TickwheelServer server) {
            return new TickwheelHealthIndicator(server);
        }

        @Bean
        TickwheelBuilderCustomizer threeHandlerThreads() {
            return builder -> builder.handlerThreads(3);
        }
    }

    @Test
    void health_isUpWhileScheduling_andAbsentWithoutSpringBootHealth() {
        withDataSource().run(context -> {
            HealthIndicator health = context.getBean("tickwheelHealthIndicator", HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsEntry("lifecycle", "RUNNING");
        });
        withDataSource().withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(TickwheelServer.class);
                    assertThat(context).doesNotHaveBean(TickwheelHealthIndicator.class);
                });
    }

    @Test
    void meters_onTheApplicationsRegistry_andAbsentWithoutMicrometer() {
        withDataSource().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.getMeters()).extracting(meter -> meter.getId().getName())
                    .anyMatch(name -> name.startsWith("tickwheel"));
        });
        withDataSource().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(TickwheelServer.class);
                    assertThat(context).doesNotHaveBean(TickwheelMetricsConfiguration.TickwheelEngineMeters.class);
                    assertThat(context).doesNotHaveBean("tickwheelMetricsCustomizer");
                });
    }

    @Test
    void lazyInitialisation_stillStartsScheduling() {
        withDataSource().withUserConfiguration(TransactionalHandlers.class)
                .withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory().getBeanDefinition("tickwheelServer").isLazyInit()).isTrue();
                    TickwheelServer server = context.getBean(TickwheelServer.class);
                    assertThat(server.lifecycle()).isEqualTo(TickwheelServer.Lifecycle.RUNNING);
                    assertThat(context.getBean(TickwheelLifecycle.class).isRunning()).isTrue();
                });
    }

    @Test
    void handlerOnATransactionalProxy_isFoundAndRunsInItsTransaction() {
        withDataSource().withUserConfiguration(TransactionalHandlers.class).run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalHandlers.Reminders reminders = context.getBean(TransactionalHandlers.Reminders.class);
            assertThat(org.springframework.aop.support.AopUtils.isAopProxy(reminders)).isTrue();
            TickwheelServer server = context.getBean(TickwheelServer.class);
            assertThat(server.handlerNames()).contains("remind", "plainHandlerBean", "every-hour");
            Job job = server.jobs().create(JobSpec.of("reminders", ScheduleSpec.api(), Target.handler("remind")));
            server.jobs().run(job.id(), RunSpec.after(0, "{\"to\":\"ada\"}"));
            assertThat(reminders.calls().poll(20, TimeUnit.SECONDS))
                    .as("called, inside the @Transactional method's transaction").isEqualTo("{\"to\":\"ada\"}:true");
            assertThat(server.jobs().search("every-hour", null, 10).items()).singleElement()
                    .satisfies(declared -> assertThat(declared.schedule().expression()).isEqualTo("0 0 * * * ?"));
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionalHandlers {
        @Bean
        Reminders reminders() {
            return new Reminders();
        }

        @Bean
        JobHandler plainHandlerBean() {
            return context -> { };
        }

        static class Reminders {
            private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

            /** Through the proxy: its own fields are not the bean's. */
            public BlockingQueue<String> calls() {
                return calls;
            }

            @Transactional
            @TickwheelHandler("remind")
            public void remind(JobContext context) {
                calls.add(context.params() + ":" + TransactionSynchronizationManager.isActualTransactionActive());
            }

            @TickwheelJob(name = "every-hour", cron = "0 0 * * * ?")
            public void hourly() {
            }
        }
    }

    @Test
    void runInsideTheCallersTransaction_rolledBackLeavesNothing_committedFires() {
        withDataSource().withUserConfiguration(TransactionalHandlers.class).run(context -> {
            assertThat(context).hasNotFailed();
            TickwheelServer server = context.getBean(TickwheelServer.class);
            TransactionalHandlers.Reminders reminders = context.getBean(TransactionalHandlers.Reminders.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    context.getBean(PlatformTransactionManager.class));
            Job job = server.jobs().create(JobSpec.of("tx-reminders", ScheduleSpec.api(), Target.handler("remind")));

            transaction.executeWithoutResult(status -> {
                server.jobs().run(job.id(), new RunSpec("rolled-back", 0L, null, "rolled-back"));
                assertThat(server.instances().findByKey(job.id(), "rolled-back")).as("visible in its transaction")
                        .isPresent();
                status.setRollbackOnly();
            });
            assertThat(server.instances().findByKey(job.id(), "rolled-back")).isEmpty();

            int armedBefore = server.pendingTimers();
            transaction.executeWithoutResult(status -> {
                server.jobs().run(job.id(), new RunSpec("committed", 300L, null, "committed"));
                assertThat(server.pendingTimers()).as("not armed before the commit").isEqualTo(armedBefore);
            });
            assertThat(reminders.calls().poll(20, TimeUnit.SECONDS)).isEqualTo("committed:true");
            server.passNow(); // a sweep would arm a rolled-back run if one had been written
            assertThat(reminders.calls()).isEmpty();
            assertThat(server.instances().findByKey(job.id(), "committed")).isPresent();
        });
    }

    @Test
    void applicationPoolWithoutAutoCommit_theEnginesWritesStillCommit() {
        withDataSource().withUserConfiguration(TransactionalHandlers.class)
                .withPropertyValues("spring.datasource.hikari.auto-commit=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    TickwheelServer server = context.getBean(TickwheelServer.class);
                    TransactionalHandlers.Reminders reminders = context.getBean(TransactionalHandlers.Reminders.class);
                    Job job = server.jobs().create(JobSpec.of("no-auto-commit", ScheduleSpec.api(),
                            Target.handler("remind")));
                    long id = server.jobs().run(job.id(), RunSpec.after(0, "{}")).instance().id();
                    assertThat(reminders.calls().poll(20, TimeUnit.SECONDS)).isEqualTo("{}:true");
                    Await.until("the outcome SUCCEEDED committed", Duration.ofSeconds(20),
                            () -> server.instances().history(id).orElseThrow().instance().status()
                                    == dev.tickwheel.server.instance.InstanceStatus.SUCCEEDED);
                    assertThat(server.leases().heldShards()).hasSize(256);
                    // A second context on the same database would see the engine's committed rows.
                    try (Connection other = context.getBean(DataSource.class).getConnection();
                            Statement statement = other.createStatement();
                            ResultSet rows = statement.executeQuery(
                                    "SELECT COUNT(*) FROM tw_job WHERE name = 'no-auto-commit'")) {
                        rows.next();
                        assertThat(rows.getInt(1)).isEqualTo(1);
                    }
                });
    }
}
