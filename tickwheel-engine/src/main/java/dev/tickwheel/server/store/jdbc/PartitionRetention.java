package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.store.jdbc.HistoryPartitions.Partition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention's whole-day step on the PostgreSQL history ({@link PartitionedHistory}): drops the partitions whose
 * every row is past its retention, and creates the next days' ({@link HistoryPartitions#createAhead}). Rows that are
 * left go by the per-row purge ({@link FinishedInstancePurge}), as on H2.
 *
 * <pre>
 * An instance partition [from, to) goes when, checked in this order (each cheap before the next):
 *   1. it ends before the default cutoff:   to &lt;= lowestIdAt(cutoff), so every row was created before it
 *   2. no row is WAITING or DISPATCHING     (the partition's (status, id) index)
 *   3. no row belongs to a job kept longer  (retentionDays above the default; the (job_id, id) index, one probe a job)
 *   4. every row was last updated before the cutoff, and how many rows there are: one read of the partition, whose
 *      answer is remembered while its newest update is not yet past (the rows are all finished, so it cannot change)
 * Then, in this order (each step alone is harmless if the next fails; the next upkeep goes on):
 *   the run keys of its rows   DELETE FROM tw_run_key USING the partition (keys are in an unpartitioned table)
 *   its attempt partition      same bounds; DETACH PARTITION ... CONCURRENTLY, then DROP TABLE
 *   the instance partition     DETACH ... CONCURRENTLY (the attempts' foreign key finds nothing left), DROP TABLE
 * A slot partition goes once it ends before the cutoff and no instance partition overlapping its day is left.
 *
 * Example, default retention 7 days, one job kept 30 days, now 2026-11-26T12:00Z, cutoff 2026-11-19T12:00Z:
 *   tw_instance_20261118   ends 11-19T00:00 &lt;= cutoff; no live rows; no rows of the 30-day job -> dropped
 *   tw_instance_20261117   ... a row of the 30-day job -> kept; its other rows go by the per-row purge from 11-20
 *   tw_instance_20261119   ends after the cutoff -> kept (the per-row purge leaves it alone too, see rowPurgeCutoff)
 * </pre>
 *
 * Why {@code DETACH ... CONCURRENTLY}: a plain {@code DETACH} or {@code DROP} of a partition takes an ACCESS EXCLUSIVE
 * lock on the parent, which stops every claim and insert until it is granted and done; the concurrent form takes a
 * SHARE UPDATE EXCLUSIVE lock, which they do not conflict with, and waits for the transactions that could still see
 * the partition. It cannot run inside a transaction, so the upkeep runs in auto-commit mode; if it fails half-way the
 * partition is left "detach pending", and the next upkeep finishes it ({@code DETACH ... FINALIZE}).
 *
 * <p>One member at a time does the upkeep: it holds a session advisory lock for the schema while it works, and a member
 * that cannot take it skips the step.
 *
 * <p>Thread-safe: the remembered answers are in a concurrent map; the advisory lock serialises the work.
 *
 * <p>Caveats: the checks and the detach are separate statements. A row inserted into a partition past the retention
 * in between (only a member whose clock is days behind mints such ids) would go with it.
 */
final class PartitionRetention {

    /** First key of the advisory lock held during an upkeep. "twp2". */
    static final int UPKEEP_LOCK = 0x7477_7032;
    /** How long a detach waits for the locks and transactions it needs before it gives up until the next upkeep. */
    static final String LOCK_TIMEOUT = "10s";

    private static final Logger log = LoggerFactory.getLogger(PartitionRetention.class);

    private final TransactionRunner runner;
    private final HistoryPartitions partitions;
    /** Partition name to the newest update of its rows, for partitions whose newest update was not yet past. */
    private final Map<String, Long> newestUpdateMs = new ConcurrentHashMap<>();

    PartitionRetention(TransactionRunner runner, HistoryPartitions partitions) {
        this.runner = runner;
        this.partitions = partitions;
    }

    /**
     * The cutoff of the per-row default pass: the start of the day before the cutoff's day. Rows of the last day
     * wholly past the cutoff are left to {@link #dropExpired}, which removes their partition whole unless something in
     * it must stay; only then, a day later, does the per-row pass delete them one by one.
     */
    static Instant rowPurgeCutoff(Instant cutoff) {
        return Instant.ofEpochMilli(PartitionDay.of(cutoff).fromMs() - PartitionDay.DAY_MS);
    }

    /**
     * One upkeep (see the class comment).
     *
     * @param now            the wall clock now: which days to create ahead
     * @param cutoff         the default retention's cutoff
     * @param jobsKeptLonger jobs whose own retention is longer than the default
     * @return instances removed with the partitions dropped; 0 if another member holds the upkeep
     */
    long dropExpired(Instant now, Instant cutoff, Set<Long> jobsKeptLonger) {
        partitions.createAhead(now);
        long removed = runner.autoCommit("drop the history partitions past the retention", connection -> {
            if (!tryLock(connection)) {
                return 0L;
            }
            try (Statement s = connection.createStatement()) {
                s.execute("SET lock_timeout = '" + LOCK_TIMEOUT + "'");
                finishPendingDetaches(connection);
                return dropPast(connection, cutoff, jobsKeptLonger);
            } finally {
                try (Statement s = connection.createStatement()) {
                    s.execute("RESET lock_timeout");
                    s.execute("SELECT pg_advisory_unlock(" + UPKEEP_LOCK + ", hashtext(current_schema()))");
                }
            }
        });
        partitions.load();
        return removed;
    }

    private static boolean tryLock(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + UPKEEP_LOCK
                        + ", hashtext(current_schema()))")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private long dropPast(Connection connection, Instant cutoff, Set<Long> jobsKeptLonger) throws SQLException {
        long idBound = SnowflakeIdGenerator.lowestIdAt(cutoff);
        long cutoffMs = cutoff.toEpochMilli();
        long removed = 0;
        List<Partition> attempts = HistoryPartitions.read(connection, HistoryPartitions.ATTEMPTS);
        for (Partition instances : HistoryPartitions.read(connection, HistoryPartitions.INSTANCES)) {
            if (instances.to() > idBound) {
                continue;
            }
            long rows = expiredRows(connection, instances, cutoffMs, jobsKeptLonger);
            if (rows < 0) {
                continue;
            }
            deleteRunKeys(connection, instances.name());
            for (Partition a : attempts) {
                if (a.from() == instances.from() && a.to() == instances.to()) {
                    detachAndDrop(connection, HistoryPartitions.ATTEMPTS, a.name());
                }
            }
            detachAndDrop(connection, HistoryPartitions.INSTANCES, instances.name());
            newestUpdateMs.remove(instances.name());
            removed += rows;
            log.info("History partition {} dropped: {} instances past the retention", instances.name(), rows);
        }
        List<Partition> left = HistoryPartitions.read(connection, HistoryPartitions.INSTANCES);
        for (Partition slots : HistoryPartitions.read(connection, HistoryPartitions.SLOTS)) {
            if (slots.to() <= cutoffMs && left.stream().noneMatch(i -> overlapsInTime(i, slots))) {
                detachAndDrop(connection, HistoryPartitions.SLOTS, slots.name());
                log.info("History partition {} dropped: its slots are past the retention", slots.name());
            }
        }
        return removed;
    }

    /** The partition's row count if all of them may go (checks 2 to 4 of the class comment), else -1. */
    private long expiredRows(Connection connection, Partition partition, long cutoffMs, Set<Long> jobsKeptLonger)
            throws SQLException {
        String name = partition.name();
        if (exists(connection, "SELECT 1 FROM " + name + " WHERE status IN (" + FinishedInstancePurge.LIVE_STATUSES
                + ") LIMIT 1", null)) {
            return -1;
        }
        if (!jobsKeptLonger.isEmpty() && exists(connection, "SELECT 1 FROM " + name + " WHERE job_id = ANY(?) LIMIT 1",
                connection.createArrayOf("bigint", jobsKeptLonger.toArray(new Long[0])))) {
            return -1;
        }
        Long remembered = newestUpdateMs.get(name);
        if (remembered != null && remembered >= cutoffMs) {
            return -1;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(updated_at_ms) FROM " + name)) {
            rs.next();
            long rows = rs.getLong(1);
            long newest = rs.getLong(2);
            if (rows > 0 && newest >= cutoffMs) {
                newestUpdateMs.put(name, newest);
                return -1;
            }
            return rows;
        }
    }

    private static boolean exists(Connection connection, String query, java.sql.Array param) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(query)) {
            if (param != null) {
                ps.setArray(1, param);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void deleteRunKeys(Connection connection, String instancePartition) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.executeUpdate("DELETE FROM tw_run_key k USING " + instancePartition + " i WHERE i.run_key IS NOT NULL"
                    + " AND k.job_id = i.job_id AND k.run_key = i.run_key AND k.instance_id = i.id");
        }
    }

    private static void detachAndDrop(Connection connection, String table, String partition) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("ALTER TABLE " + table + " DETACH PARTITION " + partition + " CONCURRENTLY");
            s.execute("DROP TABLE " + partition);
        }
    }

    /** Partitions left "detach pending" by an upkeep that failed half-way: detached for good, then dropped. */
    private static void finishPendingDetaches(Connection connection) throws SQLException {
        List<String[]> pending = new java.util.ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT p.relname, c.relname FROM pg_inherits i"
                + " JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent"
                + " WHERE i.inhdetachpending AND i.inhparent IN (to_regclass(?), to_regclass(?), to_regclass(?))")) {
            ps.setString(1, HistoryPartitions.INSTANCES);
            ps.setString(2, HistoryPartitions.ATTEMPTS);
            ps.setString(3, HistoryPartitions.SLOTS);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pending.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        for (String[] p : pending) {
            try (Statement s = connection.createStatement()) {
                s.execute("ALTER TABLE " + p[0] + " DETACH PARTITION " + p[1] + " FINALIZE");
                s.execute("DROP TABLE " + p[1]);
            }
            log.info("History partition {} dropped (its detach had been left pending)", p[1]);
        }
    }

    /** Whether an instance partition's creation times and a slot partition's slot times share a millisecond. */
    private static boolean overlapsInTime(Partition instances, Partition slots) {
        long fromMs = instances.from() == Long.MIN_VALUE ? Long.MIN_VALUE
                : SnowflakeIdGenerator.timestampOf(instances.from()).toEpochMilli();
        long toMs = SnowflakeIdGenerator.timestampOf(instances.to()).toEpochMilli();
        return fromMs < slots.to() && slots.from() < toMs;
    }
}
