package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.cluster.WholeClusterMember;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.Page;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Schema version 9 ({@link PartitionedHistory}) on a populated PostgreSQL store: the schema before it holding five days
 * of history ({@link LargeHistory}: 200 jobs, 30 000 instances, the on-demand ones with a caller's key, retried
 * attempts, 100 still waiting, and a follow-up whose slot is three days ahead), migrated by opening the store. Every
 * instance, attempt, run key and slot is there afterwards, the history pages are the same before and after, the old
 * keys and slots still refuse duplicates, and the old table, now the legacy partition, goes whole once it is past the
 * retention.
 */
class PostgresPartitionMigrationTest {

    private static final int PAGE = 100;

    private PostgresTestDatabase database;
    private LargeHistory history;
    private JdbcStores stores;

    @BeforeEach
    void previousVersionWithHistory() throws SQLException {
        database = PostgresTestDatabase.createSchema();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(database.jdbcUrl());
        // Every version before the partitions' (whatever the versions between are).
        MigrationVersion partitioned = new PartitionedHistory().getVersion();
        MigrationVersion before = java.util.Arrays.stream(JdbcStores.migrations(dataSource, JdbcStoreConfig.DEFAULT_SCHEMA_HISTORY_TABLE).load().info().all())
                .map(MigrationInfo::getVersion).filter(v -> v.compareTo(partitioned) < 0)
                .max(java.util.Comparator.naturalOrder()).orElseThrow();
        JdbcStores.migrations(dataSource, JdbcStoreConfig.DEFAULT_SCHEMA_HISTORY_TABLE).target(before).load().migrate();
        Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofHours(1));
        history = new LargeHistory(200, 30_000, 100, to.minus(Duration.ofDays(5)), to);
        try (Connection c = DriverManager.getConnection(database.jdbcUrl()); Statement s = c.createStatement()) {
            history.load(c);
            s.executeUpdate("UPDATE tw_instance SET run_key = 'order-' || id WHERE scheduled_trigger_time_ms IS NULL");
            // A fixed-delay follow-up made an hour ago, due in three days: its slot is after the migration's day.
            long idMs = to.toEpochMilli() - SnowflakeIdGenerator.EPOCH.toEpochMilli();
            long dueMs = to.plus(Duration.ofDays(3)).toEpochMilli();
            s.executeUpdate("INSERT INTO tw_instance (id, job_id, status, scheduled_trigger_time_ms,"
                    + " expected_trigger_time_ms, attempt, created_at_ms, updated_at_ms, shard)"
                    + " SELECT " + ((idMs << 22) + 4095) + ", id, 'WAITING', " + dueMs + ", " + dueMs + ", 0, "
                    + to.toEpochMilli() + ", " + to.toEpochMilli() + ", shard FROM tw_job WHERE id = "
                    + history.jobId(1));
        }
    }

    /**
     * Columns an instance got after the partitions: its own priority (version 13), the instance it reruns (14), its
     * output (15), callback deadline (16) and workflow step (17).
     */
    private static final List<String> LATER_COLUMNS = List.of("priority", "rerun_of", "output",
            "callback_deadline_ms", "workflow_run_id", "workflow_node", "upstream");
    /**
     * An instance's columns at the version before the partitions: the store's read columns without those added later,
     * which the store before the migration does not have.
     */
    private static final List<String> HISTORY_COLUMNS = InstanceSql.READ_COLUMNS.stream()
            .filter(column -> !LATER_COLUMNS.contains(column)).toList();

    /** The store's statement without the {@link #LATER_COLUMNS} (named with {@code prefix}) an older store lacks. */
    private static String withoutLaterColumns(String statement, String prefix) {
        String without = statement;
        for (String column : LATER_COLUMNS) {
            without = without.replace(", " + prefix + column + ",", ",").replace(", " + prefix + column + " ", " ");
        }
        return without;
    }

    @AfterEach
    void drop() throws SQLException {
        if (stores != null) {
            stores.close();
        }
        database.dropSchema();
    }

    @Test
    void migrate_populatedStore_keepsEveryRowAndTheHistoryAnswersTheSamePages() throws SQLException {
        long instanceCount = history.instances() + 1L;
        Map<String, List<List<Object>>> before = tables(false);
        Map<String, List<List<Long>>> pagesBefore = new TreeMap<>();
        for (Map.Entry<String, InstanceFilter> filter : filters().entrySet()) {
            pagesBefore.put(filter.getKey(), pagesBySql(filter.getValue()));
        }
        List<List<Object>> historiesBefore = histories();

        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl()).poolName("tickwheel-migration")
                .maxPoolSize(4).build());

        assertEquals(before, tables(true), "every instance, attempt, run key and slot");
        assertEquals(instanceCount, before.get("instances").size());
        assertEquals(history.instances() / 10, before.get("keys").size());
        for (Map.Entry<String, InstanceFilter> filter : filters().entrySet()) {
            assertEquals(pagesBefore.get(filter.getKey()), pagesByStore(stores.instances(), filter.getValue()),
                    filter.getKey());
        }
        assertTrue(pagesBefore.get("all").size() >= instanceCount / PAGE, "the pages were walked to the end");
        assertEquals(historiesBefore, histories(), "an instance with its attempts, read in one statement");
        try (Connection c = stores.dataSource().getConnection()) {
            assertTrue(TestPartitions.partitioned(c));
            assertTrue(TestPartitions.partitionsOf(c, "tw_instance").contains(PartitionedHistory.LEGACY_INSTANCES));
            assertEquals(instanceCount, TestPartitions.count(c, "SELECT COUNT(*) FROM "
                    + PartitionedHistory.LEGACY_INSTANCES), "the rows stayed where they were: no copy");
            assertTrue(TestPartitions.partitionsOf(c, "tw_instance_slot").contains(
                    PartitionDay.of(history.to().plus(Duration.ofDays(3))).partitionOf("tw_instance_slot")),
                    "the follow-up's slot, after the legacy partition's end, has its day");
        }
    }

    @Test
    void migrate_oldKeysAndSlotsStillRefuseDuplicates_andTheLegacyPartitionGoesWholeOncePastTheRetention()
            throws SQLException {
        MutableClock clock = new MutableClock(Instant.now());
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(database.jdbcUrl()).poolName("tickwheel-migration")
                .maxPoolSize(4).clock(clock).build());
        InstanceStore instances = stores.instances();
        WholeClusterMember.join(stores.cluster());
        long keyedX = 10; // every tenth instance is an on-demand run, here with a key
        long keyedId = history.instanceId(keyedX);
        long jobOfKeyed = history.jobId(history.jobOf(keyedX));
        long newId = SnowflakeIdGenerator.lowestIdAt(clock.instant()) + 1;

        RunWrite again = instances.insertRuns(List.of(new NewInstance(newId, jobOfKeyed, clock.instant(), null,
                "order-" + keyedId, null, null, null))).get(0);
        assertEquals(RunWrite.Outcome.EXISTING, again.outcome());
        assertEquals(keyedId, again.instance().id());
        // The first job's slots are its instances' creation + 30 s; its next trigger is the history's end.
        Instant takenSlot = history.instanceCreatedAt(1).plusSeconds(30);
        long jobId = history.jobId(1);
        AdvanceResult advance = instances.createInstancesAndAdvanceJob(new JobAdvance(jobId, 0, history.to(),
                history.to().plusSeconds(60), List.of(new NewInstance(newId + 1, jobId, takenSlot, null)), false, null));
        assertTrue(advance.advanced());
        assertEquals(List.of(), advance.created(), "the slot an old instance fills is taken");

        // The waiting ones cancelled now: then nothing in the legacy partition is live, and it goes whole seven days
        // after its last day (the store's default retention here is 7 days).
        List<Long> waiting = new ArrayList<>();
        for (long x = history.instances() - history.waiting() + 1; x <= history.instances(); x++) {
            waiting.add(history.instanceId(x));
        }
        waiting.add((((history.to().toEpochMilli() - SnowflakeIdGenerator.EPOCH.toEpochMilli()) << 22) + 4095));
        assertTrue(instances.cancelAll(waiting).stream().allMatch(r -> r.outcome() == CancelOutcome.CANCELLED));
        long legacyEnd;
        try (Connection c = stores.dataSource().getConnection()) {
            legacyEnd = HistoryPartitions.read(c, "tw_instance").get(0).to();
        }
        clock.set(SnowflakeIdGenerator.timestampOf(legacyEnd).plus(Duration.ofDays(7)).plusMillis(1));
        Instant cutoff = clock.instant().minus(Duration.ofDays(7));

        long removed = instances.maintainPartitions(clock.instant(), cutoff, Set.of());

        assertEquals(history.instances() + 1L, removed);
        try (Connection c = stores.dataSource().getConnection()) {
            assertFalse(TestPartitions.partitionsOf(c, "tw_instance").contains(PartitionedHistory.LEGACY_INSTANCES));
            assertFalse(TestPartitions.partitionsOf(c, "tw_attempt").contains(PartitionedHistory.LEGACY_ATTEMPTS));
            assertFalse(TestPartitions.partitionsOf(c, "tw_instance_slot").contains(PartitionedHistory.LEGACY_SLOTS));
            assertEquals(0, TestPartitions.count(c, "SELECT COUNT(*) FROM tw_run_key"));
            assertEquals(0, TestPartitions.count(c, "SELECT COUNT(*) FROM tw_instance"));
        }
        assertTrue(instances.get(keyedId).isEmpty());
        assertEquals(RunWrite.Outcome.CREATED, instances.insertRuns(List.of(new NewInstance(
                SnowflakeIdGenerator.lowestIdAt(clock.instant()) + 1, jobOfKeyed, clock.instant(), null,
                "order-" + keyedId, null, null, null))).get(0).outcome(), "the key went with its instance");
    }

    // ---------------------------------------------------------------- what is compared

    /** The history filters the console and the API use: all, by status, by job, by job and status, a time range. */
    private Map<String, InstanceFilter> filters() {
        long jobId = history.jobId(history.jobOf(history.instances() / 2));
        Instant from = history.from().plus(Duration.ofDays(2));
        long minId = SnowflakeIdGenerator.lowestIdAt(from);
        long maxId = SnowflakeIdGenerator.lowestIdAt(from.plus(Duration.ofHours(6)));
        Map<String, InstanceFilter> filters = new TreeMap<>();
        filters.put("all", InstanceFilter.ALL);
        filters.put("failed", new InstanceFilter(null, InstanceStatus.FAILED, 0, Long.MAX_VALUE));
        filters.put("waiting", new InstanceFilter(null, InstanceStatus.WAITING, 0, Long.MAX_VALUE));
        filters.put("job", new InstanceFilter(jobId, null, 0, Long.MAX_VALUE));
        filters.put("job succeeded", new InstanceFilter(jobId, InstanceStatus.SUCCEEDED, 0, Long.MAX_VALUE));
        filters.put("six hours", new InstanceFilter(null, null, minId, maxId));
        return filters;
    }

    /** Every page of {@code filter}, newest first, read with the store's own SQL before the migration. */
    private List<List<Long>> pagesBySql(InstanceFilter filter) throws SQLException {
        List<List<Long>> pages = new ArrayList<>();
        long before = Long.MAX_VALUE;
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            while (true) {
                List<Long> rows = new ArrayList<>();
                // The store's statement without the column this older store lacks (see HISTORY_COLUMNS).
                try (PreparedStatement ps = c.prepareStatement(withoutLaterColumns(
                        InstanceSql.selectLatest(filter.jobId() != null, filter.status() != null), ""))) {
                    int i = 1;
                    if (filter.jobId() != null) {
                        ps.setLong(i++, filter.jobId());
                    }
                    if (filter.status() != null) {
                        ps.setString(i++, filter.status().name());
                    }
                    ps.setLong(i++, filter.minId());
                    ps.setLong(i++, Math.min(filter.maxId(), before));
                    ps.setInt(i, PAGE + 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows.add(rs.getLong("id"));
                        }
                    }
                }
                pages.add(rows.subList(0, Math.min(PAGE, rows.size())));
                if (rows.size() <= PAGE) {
                    return pages;
                }
                before = rows.get(PAGE - 1);
            }
        }
    }

    /** Every page of {@code filter} as the store's history API answers it. */
    private static List<List<Long>> pagesByStore(InstanceStore instances, InstanceFilter filter) {
        List<List<Long>> pages = new ArrayList<>();
        long before = Long.MAX_VALUE;
        while (true) {
            Page<Instance, Long> page = instances.listLatest(filter, before, PAGE);
            pages.add(page.items().stream().map(Instance::id).toList());
            if (page.nextCursor().isEmpty()) {
                return pages;
            }
            before = page.nextCursor().get();
        }
    }

    /** Every row of the history's tables, by key; the keys and slots from wherever they live. */
    private Map<String, List<List<Object>>> tables(boolean migrated) throws SQLException {
        Map<String, List<List<Object>>> tables = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(database.jdbcUrl())) {
            tables.put("instances", rows(c, "SELECT " + String.join(", ", HISTORY_COLUMNS)
                    + " FROM tw_instance ORDER BY id"));
            tables.put("attempts", rows(c, "SELECT * FROM tw_attempt ORDER BY instance_id, attempt"));
            tables.put("keys", rows(c, migrated
                    ? "SELECT job_id, run_key, instance_id FROM tw_run_key ORDER BY instance_id"
                    : "SELECT job_id, run_key, id FROM tw_instance WHERE run_key IS NOT NULL ORDER BY id"));
            tables.put("slots", rows(c, migrated
                    ? "SELECT job_id, scheduled_trigger_time_ms, instance_id FROM tw_instance_slot ORDER BY instance_id"
                    : "SELECT job_id, scheduled_trigger_time_ms, id FROM tw_instance"
                    + " WHERE scheduled_trigger_time_ms IS NOT NULL ORDER BY id"));
        }
        return tables;
    }

    /** An instance and its attempts ({@link InstanceSql#SELECT_WITH_ATTEMPTS}) for every hundredth instance. */
    private List<List<Object>> histories() throws SQLException {
        List<List<Object>> all = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(database.jdbcUrl());
                PreparedStatement ps = c.prepareStatement(
                        withoutLaterColumns(InstanceSql.SELECT_WITH_ATTEMPTS, "i."))) {
            for (long x = 100; x <= history.instances(); x += 100) {
                ps.setLong(1, history.instanceId(x));
                all.addAll(rows(ps));
            }
        }
        return all;
    }

    private static List<List<Object>> rows(Connection c, String query) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(query)) {
            return rows(ps);
        }
    }

    private static List<List<Object>> rows(PreparedStatement ps) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.add(rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
