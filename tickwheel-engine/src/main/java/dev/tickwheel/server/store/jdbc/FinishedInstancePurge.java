package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The retention purge's batch ({@link dev.tickwheel.server.store.InstanceStore#purgeFinished}): a window of at most
 * {@code limit} instances read in id order, then one delete by primary key of the finished, expired ones among them.
 *
 * <pre>
 * Why a window of rows examined, and not "DELETE ... WHERE id IN (SELECT id ... finished and expired ... LIMIT n)":
 * the rows below the id bound that a pass must keep stay there, and such a statement walks past all of them before it
 * finds n to delete, in every batch. They are many whenever a job keeps its history longer than the default (a job
 * every 10 s kept 90 days has 700 000 instances, 600 000 of them below a 7-day bound), and in a cluster the other
 * members' rows. A window bounds each batch at n index entries and n row reads whatever is kept, and a pass moves
 * through the range by its cursor (PurgeBatch.lastId): kept rows are walked once per pass, not once per batch.
 *
 *   batch:  SELECT id, job_id, status, updated_at_ms, shard FROM tw_instance
 *             WHERE [job_id = ? AND] id > afterId AND id < lowestIdAt(cutoff) ORDER BY id LIMIT n
 *           -> choose, here, the rows in scope, finished, updated before the cutoff
 *           DELETE FROM tw_instance WHERE id = ANY(chosen) AND id BETWEEN first AND last AND status NOT IN (live)
 *             AND updated_at_ms < cutoff
 * </pre>
 *
 * The read uses the primary key (the default pass) or the (job_id, id) index (a job's pass), in order
 * ({@link SqlDialect#preferIndexOrder}); the delete re-checks status and age, so a row that changed in between (none
 * can: the finished states are terminal) would stay. Both run in one transaction, which holds row locks only for the
 * delete's rows and only until its commit right after. Deleting a row twice (two members whose views of a moving
 * shard overlap) deletes it once: no fence is needed, the shard filter only divides the work.
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class FinishedInstancePurge {

    /** The terminal states: whatever the state machine says has no successor. */
    private static final Set<InstanceStatus> FINISHED = Arrays.stream(InstanceStatus.values())
            .filter(status -> status.successors().isEmpty()).collect(Collectors.toUnmodifiableSet());

    private static final String WINDOW_COLUMNS = "SELECT id, job_id, status, updated_at_ms, shard FROM tw_instance";

    /** Parameters: afterId, id bound, limit. Walks the primary key. */
    static final String SELECT_WINDOW = WINDOW_COLUMNS + " WHERE id > ? AND id < ? ORDER BY id LIMIT ?";

    /** Parameters: job id, afterId, id bound, limit. Walks the (job_id, id) index. */
    static final String SELECT_WINDOW_OF_JOB = WINDOW_COLUMNS
            + " WHERE job_id = ? AND id > ? AND id < ? ORDER BY id LIMIT ?";

    /**
     * Parameters: ids (a BIGINT array), the lowest and the highest of them, cutoff ms. The status re-check names the
     * live states, {@code NOT IN}: the same rows as "finished", but a condition no index can serve, so the planner
     * cannot AND the primary key lookups with a bitmap of the (status, id) index, which would read every finished
     * row's entry (it did, on PostgreSQL with the statistics of an empty table). The id range adds nothing to the ids,
     * but a partitioned table can be pruned by it in a generic plan (PostgreSQL prunes by {@code id BETWEEN $2 AND $3}
     * when the plan starts, not by {@code id = ANY($1)}), so the delete visits the batch's day or two, not every day.
     */
    static final String DELETE_FINISHED = "DELETE FROM tw_instance WHERE id = ANY(?) AND id BETWEEN ? AND ?"
            + " AND status NOT IN (" + liveStatuses() + ") AND updated_at_ms < ?";

    /** {@link #DELETE_FINISHED} returning what the deletes of the rows' slots and run keys need (PostgreSQL). */
    static final String DELETE_FINISHED_RETURNING_KEYS = DELETE_FINISHED
            + " RETURNING id, job_id, scheduled_trigger_time_ms, run_key";

    /**
     * Parameters: job ids, slot times, instance ids (BIGINT arrays, one entry per deleted scheduled instance). The
     * slots of deleted instances, by the slot table's primary key (in a transaction that prefers index lookups,
     * {@link SqlDialect#preferIndexLookups}); the instance id makes sure a slot goes only with the instance it names.
     */
    static final String DELETE_SLOTS = "DELETE FROM tw_instance_slot s USING unnest(CAST(? AS BIGINT[]),"
            + " CAST(? AS BIGINT[]), CAST(? AS BIGINT[])) AS d (job_id, slot_ms, instance_id)"
            + " WHERE s.job_id = d.job_id AND s.scheduled_trigger_time_ms = d.slot_ms AND s.instance_id = d.instance_id";

    /** Parameters: job ids (BIGINT array), run keys (VARCHAR array), instance ids (BIGINT array). As the slots. */
    static final String DELETE_RUN_KEYS = "DELETE FROM tw_run_key k USING unnest(CAST(? AS BIGINT[]),"
            + " CAST(? AS VARCHAR[]), CAST(? AS BIGINT[])) AS d (job_id, run_key, instance_id)"
            + " WHERE k.job_id = d.job_id AND k.run_key = d.run_key AND k.instance_id = d.instance_id";

    /** The live (not finished) statuses as an SQL list: {@code 'WAITING', 'DISPATCHING'}. */
    static final String LIVE_STATUSES = liveStatuses();

    private static String liveStatuses() {
        return Arrays.stream(InstanceStatus.values()).filter(s -> !FINISHED.contains(s)).map(s -> "'" + s.name() + "'")
                .collect(Collectors.joining(", "));
    }

    private final TransactionRunner runner;
    private final SqlDialect dialect;

    FinishedInstancePurge(TransactionRunner runner, SqlDialect dialect) {
        this.runner = runner;
        this.dialect = dialect;
    }

    PurgeBatch purge(PurgeScope scope, Instant cutoff, long afterId, int limit) {
        QueryLimits.checkPageSize(limit);
        long idBound = SnowflakeIdGenerator.lowestIdAt(cutoff);
        long cutoffMs = cutoff.toEpochMilli();
        if (idBound <= 0 || afterId >= idBound - 1) {
            return new PurgeBatch(0, afterId, true); // nothing created before the cutoff after afterId (ids are >= 0)
        }
        return runner.inTransaction("purge finished instances", connection -> {
            dialect.preferIndexOrder(connection);
            List<Long> chosen = new ArrayList<>();
            int examined = 0;
            long lastId = afterId;
            try (PreparedStatement ps = connection.prepareStatement(
                    scope.jobId() == null ? SELECT_WINDOW : SELECT_WINDOW_OF_JOB)) {
                int i = 1;
                if (scope.jobId() != null) {
                    ps.setLong(i++, scope.jobId());
                }
                ps.setLong(i++, afterId);
                ps.setLong(i++, idBound);
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        examined++;
                        lastId = rs.getLong("id");
                        if (scope.includes(rs.getLong("job_id"), rs.getInt("shard"))
                                && FINISHED.contains(InstanceStatus.valueOf(rs.getString("status")))
                                && rs.getLong("updated_at_ms") < cutoffMs) {
                            chosen.add(lastId);
                        }
                    }
                }
            }
            int deleted = chosen.isEmpty() ? 0 : delete(connection, chosen, cutoffMs);
            return new PurgeBatch(deleted, lastId, examined < limit);
        });
    }

    private int delete(Connection connection, List<Long> ids, long cutoffMs) throws SQLException {
        if (!dialect.partitionsHistory()) {
            try (PreparedStatement ps = connection.prepareStatement(DELETE_FINISHED)) {
                bindDelete(connection, ps, ids, cutoffMs);
                return ps.executeUpdate(); // the attempts go by ON DELETE CASCADE, the keys are in tw_instance
            }
        }
        // The attempts still go by their foreign key; the slots and run keys live in tables of their own.
        List<Long> slotJobs = new ArrayList<>();
        List<Long> slotTimes = new ArrayList<>();
        List<Long> slotIds = new ArrayList<>();
        List<Long> keyJobs = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        List<Long> keyIds = new ArrayList<>();
        int deleted = 0;
        try (PreparedStatement ps = connection.prepareStatement(DELETE_FINISHED_RETURNING_KEYS)) {
            bindDelete(connection, ps, ids, cutoffMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    deleted++;
                    long slotMs = rs.getLong("scheduled_trigger_time_ms");
                    if (!rs.wasNull()) {
                        slotJobs.add(rs.getLong("job_id"));
                        slotTimes.add(slotMs);
                        slotIds.add(rs.getLong("id"));
                    }
                    String key = rs.getString("run_key");
                    if (key != null) {
                        keyJobs.add(rs.getLong("job_id"));
                        keys.add(key);
                        keyIds.add(rs.getLong("id"));
                    }
                }
            }
        }
        dialect.preferIndexLookups(connection);
        deleteKeys(connection, DELETE_SLOTS, slotJobs, connection.createArrayOf("bigint", slotTimes.toArray()),
                slotIds);
        deleteKeys(connection, DELETE_RUN_KEYS, keyJobs, connection.createArrayOf("varchar", keys.toArray()),
                keyIds);
        return deleted;
    }

    private static void deleteKeys(Connection connection, String statement, List<Long> jobIds, java.sql.Array keys,
                                   List<Long> instanceIds) throws SQLException {
        if (jobIds.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(statement)) {
            ps.setArray(1, connection.createArrayOf("bigint", jobIds.toArray()));
            ps.setArray(2, keys);
            ps.setArray(3, connection.createArrayOf("bigint", instanceIds.toArray()));
            ps.executeUpdate();
        }
    }

    /** Binds {@link #DELETE_FINISHED}'s parameters; {@code ids} ascending (the window's order). */
    private static void bindDelete(Connection connection, PreparedStatement ps, List<Long> ids, long cutoffMs)
            throws SQLException {
        ps.setArray(1, connection.createArrayOf("bigint", ids.toArray(new Long[0])));
        ps.setLong(2, ids.get(0));
        ps.setLong(3, ids.get(ids.size() - 1));
        ps.setLong(4, cutoffMs);
    }
}
