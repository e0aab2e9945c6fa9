package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.InstanceStatus;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The console's history queries on a large PostgreSQL history ({@link LargeHistory}: 10 000 jobs, 1 000 000
 * instances, analyzed) each run on an index: no query reads {@code tw_instance} with a sequential scan or sorts its
 * rows, so a page costs about its own size however long the history. Each statement is the store's own SQL text
 * ({@link InstanceSql#selectLatest}, {@link JobSql#selectByName}) explained with the values a page binds, under the
 * same session settings the store uses for it ({@link SqlDialect#preferIndexOrder}), and the plan's JSON is walked
 * node by node. Where the index is certain, the test names it too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresHistoryPlanTest {

    private static final LargeHistory HISTORY = LargeHistory.of(10_000, 1_000_000);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MIDDLE = HISTORY.instances() / 2;

    private PostgresTestDatabase database;

    @BeforeAll
    void load() throws SQLException {
        database = PostgresTestDatabase.createSchema();
        JdbcStores.open(database.jdbcUrl()).close(); // the schema, by Flyway
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            HISTORY.load(c);
            try (Statement s = c.createStatement()) {
                s.execute("ANALYZE tw_job");
                s.execute("ANALYZE tw_instance");
                s.execute("ANALYZE tw_attempt");
            }
        }
    }

    /**
     * {@code relation} and, on the partitioned history, its partitions: a walk of the primary key backwards is an
     * ordered Append of each day's partition's primary key walked backwards, which is as good (no sort, one page read
     * from the newest partitions), so a plan node on a partition counts as one on its parent.
     */
    private Set<String> withPartitions(String relation) {
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            return TestPartitions.indexAndPartitions(c, relation);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @AfterAll
    void drop() throws SQLException {
        if (database != null) {
            database.dropSchema();
        }
    }

    // ---------------------------------------------------------------- jobs

    @Test
    void jobsByName_firstAndCursorPages_walkTheNameIndex() throws SQLException {
        JsonNode first = explain(JobSql.selectByName(false, false), true, ps -> ps.setInt(1, 101));
        assertIndexScan(first, "tw_job", "tw_job_name_idx");
        assertNoSort(first, "tw_job");

        String cursorName = LargeHistory.jobName(5_000);
        JsonNode next = explain(JobSql.selectByName(false, true), true, ps -> {
            ps.setString(1, cursorName);
            ps.setString(2, cursorName);
            ps.setString(3, cursorName);
            ps.setLong(4, HISTORY.jobId(5_000));
            ps.setInt(5, 101);
        });
        assertIndexScan(next, "tw_job", "tw_job_name_idx");
        assertNoSort(next, "tw_job");
    }

    @Test
    void jobsSearch_firstAndCursorPages_readNoInstance() throws SQLException {
        JsonNode first = explain(JobSql.selectByName(true, false), true, ps -> {
            ps.setString(1, "%sync%");
            ps.setInt(2, 101);
        });
        JsonNode next = explain(JobSql.selectByName(true, true), true, ps -> {
            ps.setString(1, "%sync%");
            ps.setString(2, "billing");
            ps.setString(3, "billing");
            ps.setString(4, "billing");
            ps.setLong(5, 0);
            ps.setInt(6, 101);
        });
        for (JsonNode plan : List.of(first, next)) {
            assertEquals(List.of("tw_job"), relations(plan), plan.toPrettyString());
        }
    }

    // ---------------------------------------------------------------- instances

    @Test
    void latestInstances_firstAndCursorPages_walkThePrimaryKeyBackwards() throws SQLException {
        assertInstancePlan(latest(null, null, 0, Long.MAX_VALUE), "tw_instance_pkey");
        assertInstancePlan(latest(null, null, 0, HISTORY.instanceId(MIDDLE)), "tw_instance_pkey");
    }

    @Test
    void instancesByStatus_commonAndRareStatusesAndCursorPages_walkTheStatusIndexBackwards() throws SQLException {
        for (InstanceStatus status : InstanceStatus.values()) {
            assertInstancePlan(latest(null, status, 0, Long.MAX_VALUE), null);
            assertInstancePlan(latest(null, status, 0, HISTORY.instanceId(MIDDLE)), null);
        }
        assertInstancePlan(latest(null, InstanceStatus.FAILED, 0, HISTORY.instanceId(MIDDLE)),
                "tw_instance_status_idx");
    }

    @Test
    void instancesByJob_andByJobAndStatus_walkTheJobIndexBackwards() throws SQLException {
        long jobId = HISTORY.jobId(HISTORY.jobOf(MIDDLE));
        assertInstancePlan(latest(jobId, null, 0, Long.MAX_VALUE), "tw_instance_job_idx");
        assertInstancePlan(latest(jobId, null, 0, HISTORY.instanceId(MIDDLE)), "tw_instance_job_idx");
        assertInstancePlan(latest(jobId, InstanceStatus.SUCCEEDED, 0, Long.MAX_VALUE), "tw_instance_job_idx");
        assertInstancePlan(latest(jobId, InstanceStatus.FAILED, 0, HISTORY.instanceId(MIDDLE)),
                "tw_instance_job_idx");
    }

    @Test
    void instancesByTimeRange_aloneAndWithFilters_walkAnIndexWithinTheIdRange() throws SQLException {
        Instant from = HISTORY.instanceCreatedAt(MIDDLE);
        long minId = SnowflakeIdGenerator.lowestIdAt(from);
        long maxId = SnowflakeIdGenerator.lowestIdAt(from.plus(Duration.ofHours(1)));
        long jobId = HISTORY.jobId(HISTORY.jobOf(MIDDLE));
        assertInstancePlan(latest(null, null, minId, maxId), "tw_instance_pkey");
        assertInstancePlan(latest(null, null, minId, Long.MAX_VALUE), "tw_instance_pkey");
        assertInstancePlan(latest(null, null, 0, maxId), "tw_instance_pkey");
        assertInstancePlan(latest(null, InstanceStatus.SUCCEEDED, minId, maxId), null);
        assertInstancePlan(latest(null, InstanceStatus.WAITING, minId, maxId), null);
        assertInstancePlan(latest(jobId, null, minId, maxId), "tw_instance_job_idx");
        assertInstancePlan(latest(jobId, InstanceStatus.FAILED, minId, maxId), "tw_instance_job_idx");
    }

    @Test
    void instanceWithAttempts_readsByKeys() throws SQLException {
        JsonNode plan = explain(InstanceSql.SELECT_WITH_ATTEMPTS, false,
                ps -> ps.setLong(1, HISTORY.instanceId(100)));
        assertNoSeqScan(plan, "tw_instance");
        assertNoSeqScan(plan, "tw_attempt");
    }

    // ---------------------------------------------------------------- plumbing

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** One history page's query (the store's SQL and binds), explained; a page of 100 asks for 101 rows. */
    private JsonNode latest(Long jobId, InstanceStatus status, long minId, long maxId) throws SQLException {
        return explain(InstanceSql.selectLatest(jobId != null, status != null), true, ps -> {
            int i = 1;
            if (jobId != null) {
                ps.setLong(i++, jobId);
            }
            if (status != null) {
                ps.setString(i++, status.name());
            }
            ps.setLong(i++, minId);
            ps.setLong(i++, maxId);
            ps.setInt(i, 101);
        });
    }

    private void assertInstancePlan(JsonNode plan, String index) {
        assertNoSeqScan(plan, "tw_instance");
        assertNoSort(plan, "tw_instance");
        if (index != null) {
            assertIndexScan(plan, "tw_instance", index);
        }
    }

    private JsonNode explain(String query, boolean preferIndexOrder, Binder binder) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            c.setAutoCommit(false);
            if (preferIndexOrder) {
                new PostgresDialect().preferIndexOrder(c);
            }
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) " + query)) {
                binder.bind(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    return JSON.readTree(rs.getString(1)).get(0).get("Plan");
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new AssertionError(e);
                }
            } finally {
                c.rollback();
            }
        }
    }

    /** Every plan node, depth first. */
    private static List<JsonNode> nodes(JsonNode plan) {
        List<JsonNode> all = new ArrayList<>();
        all.add(plan);
        for (JsonNode child : plan.path("Plans")) {
            all.addAll(nodes(child));
        }
        return all;
    }

    /** The relations the plan reads, a partition named as its parent ({@code tw_instance}, not its days). */
    private List<String> relations(JsonNode plan) {
        Set<String> instances = withPartitions("tw_instance");
        Set<String> attempts = withPartitions("tw_attempt");
        return nodes(plan).stream().filter(n -> n.has("Relation Name")).map(n -> n.get("Relation Name").asText())
                .map(name -> instances.contains(name) ? "tw_instance" : attempts.contains(name) ? "tw_attempt" : name)
                .distinct().toList();
    }

    private void assertNoSeqScan(JsonNode plan, String table) {
        Set<String> tables = withPartitions(table);
        for (JsonNode node : nodes(plan)) {
            boolean seqScan = node.path("Node Type").asText().equals("Seq Scan")
                    && tables.contains(node.path("Relation Name").asText());
            assertTrue(!seqScan, "a sequential scan of " + table + ":\n" + plan.toPrettyString());
        }
    }

    /** No Sort (or Incremental Sort) node has {@code table} (or a partition of it) under it. */
    private void assertNoSort(JsonNode plan, String table) {
        for (JsonNode node : nodes(plan)) {
            boolean sort = node.path("Node Type").asText().endsWith("Sort");
            assertTrue(!sort || !relations(node).contains(table), "a sort over " + table + ":\n"
                    + plan.toPrettyString());
        }
    }

    private void assertIndexScan(JsonNode plan, String table, String index) {
        Set<String> tables = withPartitions(table);
        Set<String> indexes = withPartitions(index);
        boolean found = nodes(plan).stream().anyMatch(n -> n.path("Node Type").asText().startsWith("Index")
                && tables.contains(n.path("Relation Name").asText())
                && indexes.contains(n.path("Index Name").asText()));
        assertTrue(found, "an index scan of " + table + " by " + index + ":\n" + plan.toPrettyString());
    }
}
