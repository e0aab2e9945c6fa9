package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Schema version 9, PostgreSQL only: the instance history in day partitions, so that the retention drops whole days
 * ({@link PartitionRetention}) instead of deleting rows one by one, and every index stays the size of the days kept.
 * H2 keeps its tables as they are (the step does nothing there; {@link SqlDialect#partitionsHistory()} is false).
 *
 * <pre>
 * tw_instance        PARTITION BY RANGE (id)          one partition a day of creation: an id's high bits are its
 *                                                     creation millisecond (PartitionDay); primary key (id), and the
 *                                                     indexes it had ((status, id), (job_id, id), ...), per partition
 * tw_attempt         PARTITION BY RANGE (instance_id) the same bounds; its foreign key to tw_instance, ON DELETE
 *                                                     CASCADE, as before
 * tw_instance_slot   PARTITION BY RANGE (scheduled_trigger_time_ms), primary key (job_id, scheduled_trigger_time_ms)
 *                    -> instance_id: the schedule slot's uniqueness (was the unique index tw_instance_slot_uk)
 * tw_run_key         not partitioned, primary key (job_id, run_key) -> instance_id: the caller's key (was the unique
 *                    index tw_instance_run_key_uk of version 7)
 * </pre>
 *
 * Why the keys moved: a unique index of a partitioned table must contain the partition key, and neither key contains
 * the id. The slot table can itself be partitioned by slot time (its key contains it), so its days go whole too; the
 * run keys' table cannot be partitioned by time, so the store deletes a key with its instance (the per-row purge, and
 * a join with the partition before a day is dropped). Neither key table has a foreign key to {@code tw_instance}: one
 * would make every partition drop check them, and a slot can fall on another day than its instance's creation.
 *
 * <p>An existing store keeps its rows where they are: the old tables become one partition each, {@code
 * tw_instance_legacy} and {@code tw_attempt_legacy}, for every id up to the end of the later of today and the day of
 * the newest id (checked by one scan of each, no rows copied), and the keys are copied out of them into the key tables
 * (the slots up to that day into {@code tw_instance_slot_legacy}, later ones into their days). The legacy partition is
 * purged row by row as before, and dropped whole once its last day is past the retention. A new store has no legacy
 * partition: its days are created as {@link HistoryPartitions} needs them.
 *
 * <p>Needs PostgreSQL 14 or later ({@code DETACH PARTITION ... CONCURRENTLY}); refuses older versions with a message.
 *
 * <p>Immutable; Flyway runs it once, on its own connection, in its transaction.
 */
final class PartitionedHistory extends SchemaStep {

    static final String LEGACY_INSTANCES = "tw_instance_legacy";
    static final String LEGACY_ATTEMPTS = "tw_attempt_legacy";
    static final String LEGACY_SLOTS = "tw_instance_slot_legacy";
    /** {@code server_version_num} of PostgreSQL 14. */
    private static final int POSTGRES_14 = 140_000;

    PartitionedHistory() {
        super("9", "history in day partitions");
    }

    @Override
    void migrate(Connection connection, boolean postgres) throws SQLException {
        if (!postgres) {
            return;
        }
        try (Statement s = connection.createStatement()) {
            int version = (int) single(s, "SELECT current_setting('server_version_num')::int");
            if (version < POSTGRES_14) {
                throw new IllegalStateException("the partitioned history (schema version 9) needs PostgreSQL 14 or"
                        + " later (DETACH PARTITION ... CONCURRENTLY); this server is " + version);
            }
            boolean empty = single(s, "SELECT COUNT(*) FROM (SELECT 1 FROM tw_instance LIMIT 1) t") == 0;
            long maxId = single(s, "SELECT COALESCE(MAX(id), 0) FROM tw_instance");
            long nowMs = single(s, "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)");
            PartitionDay last = PartitionDay.ofId(maxId).compareTo(PartitionDay.ofMillis(nowMs)) > 0
                    ? PartitionDay.ofId(maxId) : PartitionDay.ofMillis(nowMs);

            List<String> indexes = moveAside(connection, s);
            createPartitionedTables(s, indexes);
            if (empty) {
                s.execute("DROP TABLE " + LEGACY_ATTEMPTS);
                s.execute("DROP TABLE " + LEGACY_INSTANCES);
                return;
            }
            s.execute("ALTER TABLE tw_instance ATTACH PARTITION " + LEGACY_INSTANCES
                    + " FOR VALUES FROM (MINVALUE) TO (" + last.toId() + ")");
            s.execute("ALTER TABLE tw_attempt ATTACH PARTITION " + LEGACY_ATTEMPTS
                    + " FOR VALUES FROM (MINVALUE) TO (" + last.toId() + ")");
            s.execute("CREATE TABLE " + LEGACY_SLOTS + " PARTITION OF tw_instance_slot"
                    + " FOR VALUES FROM (MINVALUE) TO (" + last.toMs() + ")");
            for (PartitionDay day : laterSlotDays(s, last.toMs())) {
                s.execute("CREATE TABLE " + day.partitionOf(HistoryPartitions.SLOTS) + " PARTITION OF tw_instance_slot"
                        + " FOR VALUES FROM (" + day.fromMs() + ") TO (" + day.toMs() + ")");
            }
            s.execute("INSERT INTO tw_instance_slot (job_id, scheduled_trigger_time_ms, instance_id)"
                    + " SELECT job_id, scheduled_trigger_time_ms, id FROM " + LEGACY_INSTANCES
                    + " WHERE scheduled_trigger_time_ms IS NOT NULL");
            s.execute("INSERT INTO tw_run_key (job_id, run_key, instance_id)"
                    + " SELECT job_id, run_key, id FROM " + LEGACY_INSTANCES + " WHERE run_key IS NOT NULL");
        }
    }

    /**
     * The old tables, their indexes and constraints renamed out of the way; the keys' unique indexes dropped.
     *
     * @return the old instance table's other indexes, as {@code CREATE INDEX <its old name> ON tw_instance USING ...}:
     *         whatever the versions before this one made ((status, id), (job_id, id), and any later one), so the
     *         partitioned table gets the same, and the old table's own attach to them when it becomes a partition
     */
    private static List<String> moveAside(Connection connection, Statement s) throws SQLException {
        s.execute("ALTER TABLE tw_attempt DROP CONSTRAINT tw_attempt_instance_fk");
        s.execute("DROP INDEX tw_instance_slot_uk");
        s.execute("DROP INDEX " + RunKeyColumn.INDEX);
        s.execute("ALTER TABLE tw_instance RENAME TO " + LEGACY_INSTANCES);
        s.execute("ALTER INDEX tw_instance_pkey RENAME TO " + LEGACY_INSTANCES + "_pkey");
        List<String> indexes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (java.sql.PreparedStatement ps = connection.prepareStatement("SELECT c.relname, pg_get_indexdef(c.oid),"
                + " x.indisunique FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid"
                + " WHERE x.indrelid = to_regclass(?) AND NOT x.indisprimary ORDER BY c.relname")) {
            ps.setString(1, LEGACY_INSTANCES);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    String definition = rs.getString(2);
                    if (rs.getBoolean(3)) {
                        throw new IllegalStateException("a unique index cannot move to the partitioned history: "
                                + definition);
                    }
                    indexes.add("CREATE INDEX " + name + " ON tw_instance USING "
                            + definition.substring(definition.indexOf(" USING ") + " USING ".length()));
                    names.add(name);
                }
            }
        }
        for (String name : names) {
            s.execute("ALTER INDEX " + name + " RENAME TO " + name.replaceFirst("^tw_instance_", LEGACY_INSTANCES
                    + "_"));
        }
        s.execute("ALTER TABLE tw_attempt RENAME TO " + LEGACY_ATTEMPTS);
        s.execute("ALTER INDEX tw_attempt_pk RENAME TO " + LEGACY_ATTEMPTS + "_pk");
        return indexes;
    }

    /**
     * The partitioned tables, with the old tables' columns in the same order and with the same defaults (so the old
     * tables attach as partitions, and rows route to them without conversion), and the key tables.
     */
    private static void createPartitionedTables(Statement s, List<String> indexes) throws SQLException {
        s.execute("CREATE TABLE tw_instance (LIKE " + LEGACY_INSTANCES + " INCLUDING DEFAULTS)"
                + " PARTITION BY RANGE (id)");
        s.execute("ALTER TABLE tw_instance ADD CONSTRAINT tw_instance_pkey PRIMARY KEY (id)");
        for (String index : indexes) {
            s.execute(index);
        }
        s.execute("CREATE TABLE tw_attempt (LIKE " + LEGACY_ATTEMPTS + " INCLUDING DEFAULTS)"
                + " PARTITION BY RANGE (instance_id)");
        s.execute("ALTER TABLE tw_attempt ADD CONSTRAINT tw_attempt_pk PRIMARY KEY (instance_id, attempt)");
        s.execute("ALTER TABLE tw_attempt ADD CONSTRAINT tw_attempt_instance_fk FOREIGN KEY (instance_id)"
                + " REFERENCES tw_instance (id) ON DELETE CASCADE");
        s.execute("CREATE TABLE tw_instance_slot ("
                + " job_id BIGINT NOT NULL,"
                + " scheduled_trigger_time_ms BIGINT NOT NULL,"
                + " instance_id BIGINT NOT NULL,"
                + " CONSTRAINT tw_instance_slot_pk PRIMARY KEY (job_id, scheduled_trigger_time_ms)"
                + ") PARTITION BY RANGE (scheduled_trigger_time_ms)");
        s.execute("CREATE TABLE tw_run_key ("
                + " job_id BIGINT NOT NULL,"
                + " run_key VARCHAR(200) NOT NULL,"
                + " instance_id BIGINT NOT NULL,"
                + " CONSTRAINT tw_run_key_pk PRIMARY KEY (job_id, run_key))");
    }

    /** The days of the old rows' slots at or after {@code fromMs} (waiting instances, follow-ups due later). */
    private static List<PartitionDay> laterSlotDays(Statement s, long fromMs) throws SQLException {
        List<PartitionDay> days = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT DISTINCT scheduled_trigger_time_ms / " + PartitionDay.DAY_MS
                + " FROM " + LEGACY_INSTANCES + " WHERE scheduled_trigger_time_ms >= " + fromMs)) {
            while (rs.next()) {
                days.add(new PartitionDay(rs.getLong(1)));
            }
        }
        return days;
    }

    private static long single(Statement s, String query) throws SQLException {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
