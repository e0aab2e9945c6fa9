package dev.tickwheel.spring;

import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configures Tickwheel: the engine ({@link TickwheelServer}) on the application's DataSource, its handlers and
 * code-declared jobs found among the beans, its lifecycle, and, when their libraries are present, its health
 * indicator and meters. Every bean backs off when the application defines its own.
 *
 * <p>Order: after the application's DataSource and its database initialisers (Flyway, Liquibase, SQL scripts; the
 * engine bean {@link DependsOnDatabaseInitialization}), so that the application's own migrations run first in a
 * shared schema; Tickwheel's migrations then run, with their own history table, when the engine bean is created;
 * scheduling starts once every singleton exists ({@link TickwheelLifecycle}).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnProperty(prefix = "tickwheel", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(TickwheelProperties.class)
@Import({TickwheelMetricsConfiguration.class, TickwheelHealthConfiguration.class,
        dev.tickwheel.spring.web.TickwheelWebConfiguration.class})
public class TickwheelAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(TickwheelAutoConfiguration.class);

    /**
     * The engine, opened: the store's migrations have run and the member has joined the cluster; jobs can be created
     * and run through it at once, and nothing fires before {@link TickwheelLifecycle#start()}. Closed (if the
     * lifecycle has not already) when the context is destroyed.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    TickwheelServer tickwheelServer(TickwheelProperties properties, ConfigurableListableBeanFactory beanFactory,
                                    HandlerDiscovery handlers, ObjectProvider<DataSource> dataSources,
                                    ObjectProvider<TickwheelBuilderCustomizer> customizers) {
        TickwheelServer.Builder builder = TickwheelServer.builder();
        properties.applyTo(builder);
        chooseStore(properties.getStore(), beanFactory, dataSources, builder);
        handlers.registerOn(builder);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build().open();
    }

    /**
     * The store: a JDBC URL of its own if {@code tickwheel.store.jdbc-url} is set; else the DataSource bean
     * {@code tickwheel.store.data-source} names; else the application's only (or primary) DataSource, whose
     * transactions runs and cancels join; else, with no DataSource at all, the builder's default (an H2 file under
     * ./data).
     */
    static void chooseStore(TickwheelProperties.Store store, ConfigurableListableBeanFactory beanFactory,
                            ObjectProvider<DataSource> dataSources, TickwheelServer.Builder builder) {
        builder.schemaHistoryTable(store.getSchemaHistoryTable());
        if (store.getJdbcUrl() != null && !store.getJdbcUrl().isBlank()) {
            builder.jdbcUrl(store.getJdbcUrl());
            log.info("tickwheel store: its own pool on tickwheel.store.jdbc-url");
            return;
        }
        DataSource dataSource;
        String source;
        if (store.getDataSource() != null && !store.getDataSource().isBlank()) {
            if (!beanFactory.containsBean(store.getDataSource())) {
                throw new IllegalStateException("tickwheel.store.data-source names no bean: '" + store.getDataSource()
                        + "' (DataSource beans: " + Arrays.toString(beanFactory.getBeanNamesForType(DataSource.class))
                        + ")");
            }
            dataSource = beanFactory.getBean(store.getDataSource(), DataSource.class);
            source = "the DataSource bean '" + store.getDataSource() + "'";
        } else {
            String[] names = beanFactory.getBeanNamesForType(DataSource.class);
            dataSource = dataSources.getIfUnique();
            if (dataSource == null && names.length > 0) {
                throw new IllegalStateException("the application has " + names.length + " DataSource beans "
                        + Arrays.toString(names) + " and none is primary: set tickwheel.store.data-source to the"
                        + " name of the one Tickwheel should use");
            }
            source = "the application's DataSource";
        }
        if (dataSource == null) {
            log.info("tickwheel store: no DataSource in the application; an H2 file under ./data");
            return;
        }
        builder.dataSource(dataSource).callerTransactions(new SpringCallerTransactions());
        log.info("tickwheel store: {}", source);
    }

    /** Declares the code's jobs, then starts scheduling once every singleton exists; stops it first at close. */
    @Bean
    @ConditionalOnMissingBean
    TickwheelLifecycle tickwheelLifecycle(TickwheelServer server, HandlerDiscovery handlers,
                                          ObjectProvider<JobDefinition> definitions) {
        List<JobSpec> jobs = new ArrayList<>(handlers.declaredJobs());
        definitions.orderedStream().map(JobDefinition::spec).forEach(jobs::add);
        return new TickwheelLifecycle(server, jobs);
    }

    /**
     * The handlers and code-declared jobs among the bean definitions, looked for once: the engine registers the
     * handlers, the lifecycle declares the jobs.
     */
    @Bean
    static HandlerDiscovery tickwheelHandlerDiscovery(ConfigurableListableBeanFactory beanFactory) {
        return HandlerDiscovery.scan(beanFactory);
    }

    /** {@code spring.main.lazy-initialization=true} must not keep scheduling from starting. */
    @Bean
    static LazyInitializationExcludeFilter tickwheelLazyInitializationExcludeFilter() {
        return LazyInitializationExcludeFilter.forBeanTypes(TickwheelLifecycle.class);
    }
}
