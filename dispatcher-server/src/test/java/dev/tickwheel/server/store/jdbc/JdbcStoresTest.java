package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.job.DeliveryPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdbcStoresTest {

    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void open_h2FileReopened_keepsDataAndDoesNotReapplyMigrations(@TempDir Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("tickwheel") + ";AUTO_SERVER=FALSE";
        try (JdbcStores stores = JdbcStores.open(url)) {
            stores.jobs().insert(new NewJob(1, "j", ScheduleSpec.api(), Target.handler("h"), null, true,
                    MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, null));
            stores.instances().insertInstance(new NewInstance(2, 1, T, null));
        }

        try (JdbcStores reopened = JdbcStores.open(url)) {
            assertEquals("j", reopened.jobs().get(1).orElseThrow().name());
            assertEquals(InstanceStatus.WAITING, reopened.instances().get(2).orElseThrow().status());
        }
    }

    @Test
    void close_calledTwice_isHarmless() {
        JdbcStores stores = JdbcStores.open("jdbc:h2:mem:close_twice");

        stores.close();
        stores.close();

        assertThrows(SQLException.class, () -> stores.dataSource().getConnection());
    }

    @Test
    void open_unsupportedUrl_throwsNamingUrl() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JdbcStores.open("jdbc:mysql://localhost/x"));

        assertTrue(e.getMessage().contains("jdbc:mysql://localhost/x"), e.getMessage());
    }

    @Test
    void forJdbcUrl_knownPrefixes_pickDialect() {
        assertEquals("h2", SqlDialect.forJdbcUrl("jdbc:h2:mem:x").name());
        assertEquals("postgresql", SqlDialect.forJdbcUrl("JDBC:POSTGRESQL://h/db").name());
    }

    @Test
    void config_poolSizeOutOfRange_throwsNamingFieldAndValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JdbcStoreConfig.builder().maxPoolSize(0));

        assertTrue(e.getMessage().contains("maxPoolSize") && e.getMessage().contains(": 0"), e.getMessage());
    }

    @Test
    void config_tinyConnectionTimeout_throwsAtBuild() {
        JdbcStoreConfig.Builder builder = JdbcStoreConfig.builder().connectionTimeout(Duration.ofMillis(10));

        assertThrows(IllegalArgumentException.class, builder::build);
    }

    @Test
    void config_defaults_useEmbeddedH2UnderData() {
        JdbcStoreConfig config = JdbcStoreConfig.builder().build();

        assertEquals("jdbc:h2:file:./data/tickwheel;AUTO_SERVER=FALSE", config.jdbcUrl());
        assertEquals(JdbcStoreConfig.DEFAULT_MAX_POOL_SIZE, config.maxPoolSize());
    }

    @Test
    void redactedJdbcUrl_passwordParameter_isMasked() {
        JdbcStoreConfig config = JdbcStoreConfig.builder()
                .jdbcUrl("jdbc:postgresql://h/db?user=u&password=secret&ssl=true").build();

        assertEquals("jdbc:postgresql://h/db?user=u&password=***&ssl=true", config.redactedJdbcUrl());
    }

    @Test
    void postgresUnreachableMessage_saysHowToStartOrWhyCiFails() {
        SQLException cause = new SQLException("Connection refused");

        String local = PostgresTestDatabase.unreachableMessage("jdbc:postgresql://x/y", false, cause);
        String ci = PostgresTestDatabase.unreachableMessage("jdbc:postgresql://x/y", true, cause);

        assertTrue(local.contains(PostgresTestDatabase.START_COMMAND), local);
        assertTrue(ci.contains("CI=true"), ci);
    }
}
