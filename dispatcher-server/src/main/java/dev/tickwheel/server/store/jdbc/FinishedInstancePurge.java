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
 *           DELETE FROM tw_instance WHERE id = ANY(chosen) AND status NOT IN (live) AND updated_at_ms < cutoff
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
     * Parameters: ids (a BIGINT array), cutoff ms. The status re-check names the live states, {@code NOT IN}: the same
     * rows as "finished", but a condition no index can serve, so the planner cannot AND the primary key lookups with a
     * bitmap of the (status, id) index, which would read every finished row's entry (it did, on PostgreSQL with the
     * statistics of an empty table).
     */
    static final String DELETE_FINISHED = "DELETE FROM tw_instance WHERE id = ANY(?) AND status NOT IN ("
            + Arrays.stream(InstanceStatus.values()).filter(s -> !FINISHED.contains(s)).map(s -> "'" + s.name() + "'")
            .collect(Collectors.joining(", ")) + ") AND updated_at_ms < ?";

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

    private static int delete(Connection connection, List<Long> ids, long cutoffMs) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(DELETE_FINISHED)) {
            ps.setArray(1, connection.createArrayOf("bigint", ids.toArray(new Long[0])));
            ps.setLong(2, cutoffMs);
            return ps.executeUpdate();
        }
    }
}
