package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
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
import dev.tickwheel.server.store.Shards;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdbcStoresTest {

    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void open_h2FileReopened_keepsDataAndDoesNotReapplyMigrations(@TempDir Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("tickwheel") + ";AUTO_SERVER=FALSE";
        try (JdbcStores stores = JdbcStores.open(url)) {
            stores.jobs().insert(new NewJob(1, "j", ScheduleSpec.api(), Target.handler("h"), null, true,
                    MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null));
            stores.instances().insertRuns(java.util.List.of(new NewInstance(2, 1, T, null))).get(0).instance();
        }

        try (JdbcStores reopened = JdbcStores.open(url)) {
            assertEquals("j", reopened.jobs().get(1).orElseThrow().name());
            assertEquals(InstanceStatus.WAITING, reopened.instances().get(2).orElseThrow().status());
        }
    }

    @Test
    void migrate_h2StoreOfSchemaVersion2_givesExistingRowsTheShardOfTheirJob_pageByPage() throws SQLException {
        String url = "jdbc:h2:mem:v2_" + java.util.UUID.randomUUID().toString().replace("-", "");
        try (Connection keepAlive = DriverManager.getConnection(url)) { // the in-memory database lives with it
            fillVersion2Store(url, 23);

            // Pages of 5 ids: several full pages and a short one, for jobs and for instances. Up to the last SQL
            // migration before the other Java steps; the store's own open takes it from there.
            Flyway.configure().dataSource(url, null, null).locations("classpath:dev/tickwheel/store/migration")
                    .javaMigrations(new ShardsOfExistingRows(5)).target("6").load().migrate();

            try (JdbcStores stores = JdbcStores.open(url)) {
                assertEveryRowHasTheShardOfItsJob(stores, 23);
            }
        }
    }

    @Test
    void open_postgresStoreOfSchemaVersion2_givesExistingRowsTheShardOfTheirJob() throws SQLException {
        PostgresTestDatabase database = PostgresTestDatabase.createSchema();
        try {
            fillVersion2Store(database.jdbcUrl(), 40);

            try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
                assertEveryRowHasTheShardOfItsJob(stores, 40);
            }
        } finally {
            database.dropSchema();
        }
    }

    /** Job of the instances whose job was deleted before the store moved to version 3. */
    private static final long DELETED_JOB_ID = 5_000_000L;

    /**
     * A store at schema version 2 (before cluster mode): {@code jobCount} jobs with an instance each, and instances
     * of a job deleted long ago.
     */
    private static void fillVersion2Store(String url, int jobCount) throws SQLException {
        Flyway.configure().dataSource(url, null, null).locations("classpath:dev/tickwheel/store/migration").target("2").load()
                .migrate();
        try (Connection connection = DriverManager.getConnection(url)) {
            connection.setAutoCommit(false);
            try (PreparedStatement job = connection.prepareStatement("INSERT INTO tw_job (id, name, schedule_type,"
                    + " target_type, target_value, enabled, misfire_policy, retry_max_attempts, retry_backoff_ms,"
                    + " created_at_ms, updated_at_ms, version) VALUES (?, 'old', 'API', 'HANDLER', 'h', TRUE, 'SKIP',"
                    + " 0, 0, 0, 0, 0)");
                    PreparedStatement instance = connection.prepareStatement("INSERT INTO tw_instance (id, job_id,"
                            + " status, expected_trigger_time_ms, attempt, created_at_ms, updated_at_ms)"
                            + " VALUES (?, ?, 'WAITING', 0, 0, 0, 0)")) {
                for (long jobId = 1; jobId <= jobCount; jobId++) {
                    job.setLong(1, jobId);
                    job.addBatch();
                    instance.setLong(1, 1_000_000 + jobId);
                    instance.setLong(2, jobId);
                    instance.addBatch();
                }
                for (long id = 1; id <= 3; id++) {
                    instance.setLong(1, 9_000_000 + id);
                    instance.setLong(2, DELETED_JOB_ID);
                    instance.addBatch();
                }
                job.executeBatch();
                instance.executeBatch();
            }
            connection.commit();
        }
    }

    /** Every job and instance has its job's shard, and no claim. */
    private static void assertEveryRowHasTheShardOfItsJob(JdbcStores stores, int jobCount) throws SQLException {
        int shardCount = stores.cluster().shardCount();
        assertEquals(256, shardCount);
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            int jobs = 0;
            try (ResultSet rs = statement.executeQuery("SELECT id, shard FROM tw_job")) {
                while (rs.next()) {
                    assertEquals(Shards.of(rs.getLong(1), shardCount), rs.getInt(2), "shard of job " + rs.getLong(1));
                    jobs++;
                }
            }
            int instances = 0;
            try (ResultSet rs = statement.executeQuery("SELECT id, job_id, shard, claim_node, claim_epoch"
                    + " FROM tw_instance")) {
                while (rs.next()) {
                    assertEquals(Shards.of(rs.getLong(2), shardCount), rs.getInt(3), "shard of " + rs.getLong(1));
                    assertEquals(-1, rs.getInt(4));
                    assertEquals(0, rs.getLong(5));
                    instances++;
                }
            }
            assertEquals(jobCount, jobs);
            assertEquals(jobCount + 3, instances);
        }
        assertEquals(Shards.of(DELETED_JOB_ID, shardCount), stores.instances().get(9_000_001).orElseThrow().shard());
        assertEquals(256, stores.cluster().view().leases().size());
    }

    @Test
    void open_onTheApplicationsDataSource_besideItsOwnFlyway_neverClosesIt() throws SQLException {
        org.h2.jdbcx.JdbcDataSource application = new org.h2.jdbcx.JdbcDataSource();
        application.setURL("jdbc:h2:mem:app_" + java.util.UUID.randomUUID().toString().replace("-", "")
                + ";DB_CLOSE_DELAY=-1");
        try (Connection own = application.getConnection(); Statement statement = own.createStatement()) {
            // The application's own table and its own Flyway history, already there.
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY)");
            statement.execute("CREATE TABLE \"flyway_schema_history\" (id INT)");
        }
        JdbcStoreConfig config = JdbcStoreConfig.builder().dataSource(application)
                .schemaHistoryTable("tickwheel_schema_history").build();
        try (JdbcStores stores = JdbcStores.open(config)) {
            assertTrue(stores.redactedUrl().startsWith("jdbc:h2:mem:app_"), stores.redactedUrl());
            assertTrue(stores.redactedUrl().endsWith("(the application's data source)"), stores.redactedUrl());
            assertEquals(java.util.Optional.empty(), stores.jobs().get(1));
        }
        try (Connection after = application.getConnection(); Statement statement = after.createStatement();
                ResultSet history = statement.executeQuery("SELECT \"type\", \"version\" FROM"
                        + " \"tickwheel_schema_history\" WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"")) {
            assertTrue(history.next());
            assertEquals("BASELINE 0", history.getString(1) + " " + history.getString(2),
                    "the store's history begins with its baseline");
            int applied = 0;
            while (history.next()) {
                applied++;
            }
            assertTrue(applied >= 9, "every migration of the store ran after the baseline: " + applied);
        }
        try (JdbcStores reopened = JdbcStores.open(config)) {
            assertEquals(java.util.Optional.empty(), reopened.jobs().get(1), "a second open migrates nothing");
        }
    }

    @Test
    void config_session_mustBePositive_andDefaultsToARandomOnePerOpen() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> JdbcStoreConfig.builder().session(0));
        JdbcStoreConfig defaults = JdbcStoreConfig.builder().build();
        JdbcStoreConfig fixed = JdbcStoreConfig.builder().session(42).build();

        assertTrue(zero.getMessage().contains("session") && zero.getMessage().contains(": 0"), zero.getMessage());
        assertEquals(0, defaults.session());
        long first = defaults.sessionForOpen();
        long second = defaults.sessionForOpen();
        assertTrue(first > 0 && second > 0 && first != second, first + ", " + second);
        assertEquals(42, fixed.sessionForOpen());
    }

    @Test
    void closedByServerUrl_embeddedH2_leavesClosingToTheServerUnlessTheUrlSaysOtherwise() {
        assertEquals("jdbc:h2:file:./data/tw;DB_CLOSE_ON_EXIT=FALSE",
                JdbcStores.closedByServerUrl("jdbc:h2:file:./data/tw"));
        assertEquals("jdbc:h2:mem:x;DB_CLOSE_ON_EXIT=FALSE", JdbcStores.closedByServerUrl("jdbc:h2:mem:x"));
        assertEquals("jdbc:h2:file:./tw;db_close_on_exit=TRUE",
                JdbcStores.closedByServerUrl("jdbc:h2:file:./tw;db_close_on_exit=TRUE"));
        assertEquals("jdbc:h2:tcp://h/tw", JdbcStores.closedByServerUrl("jdbc:h2:tcp://h/tw"));
        assertEquals("jdbc:postgresql://h/db", JdbcStores.closedByServerUrl("jdbc:postgresql://h/db"));
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
