package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.Shards;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Schema version 3.1: gives the jobs and instances that existed before cluster mode their shard,
 * {@link Shards#of}(job id, shard count). {@code V3__cluster.sql} added the columns as 0; the shard is a hash that
 * only Java computes, so this step is Java. Instances are updated by their own job id, so those whose job was deleted
 * get the shard the job had.
 *
 * <p>Why a Flyway Java migration rather than a backfill in {@link JdbcStores#open}: it runs exactly once, right after
 * the columns appear and before any member uses them (Flyway's lock makes servers starting together wait for it),
 * recorded in the schema history and in the migration's transaction; no member ever sees a row with a not yet
 * computed shard, and no start pays for a scan looking for such rows.
 *
 * <p>Work: one keyset-paged read of the job ids and of the distinct instance job ids, and one batched update per
 * page; every row is written once.
 *
 * <p>Immutable; Flyway runs it once, on its own connection.
 */
final class ShardsOfExistingRows extends SchemaStep {

    /** Ids read and updated per round trip. */
    static final int DEFAULT_PAGE_SIZE = 10_000;

    private final int pageSize;

    /** @param pageSize ids read and updated per round trip */
    ShardsOfExistingRows(int pageSize) {
        super("3.1", "shards of existing rows");
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
        }
        this.pageSize = pageSize;
    }

    @Override
    void migrate(Connection connection, boolean postgres) throws SQLException {
        int shardCount = JdbcStores.readShardCount(connection);
        backfill(connection, shardCount, "SELECT id FROM tw_job WHERE id > ? ORDER BY id LIMIT ?",
                "UPDATE tw_job SET shard = ? WHERE id = ?");
        backfill(connection, shardCount,
                "SELECT DISTINCT job_id FROM tw_instance WHERE job_id > ? ORDER BY job_id LIMIT ?",
                "UPDATE tw_instance SET shard = ? WHERE job_id = ?");
    }

    /** Pages through the job ids {@code selectJobIds} returns and sets the shard of each with {@code update}. */
    private void backfill(Connection connection, int shardCount, String selectJobIds, String update)
            throws SQLException {
        long after = Long.MIN_VALUE;
        while (true) {
            List<Long> jobIds = new ArrayList<>(pageSize);
            try (PreparedStatement ps = connection.prepareStatement(selectJobIds)) {
                ps.setLong(1, after);
                ps.setInt(2, pageSize);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        jobIds.add(rs.getLong(1));
                    }
                }
            }
            if (jobIds.isEmpty()) {
                return;
            }
            try (PreparedStatement ps = connection.prepareStatement(update)) {
                for (long jobId : jobIds) {
                    ps.setInt(1, Shards.of(jobId, shardCount));
                    ps.setLong(2, jobId);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            if (jobIds.size() < pageSize) {
                return;
            }
            after = jobIds.get(jobIds.size() - 1);
        }
    }
}
