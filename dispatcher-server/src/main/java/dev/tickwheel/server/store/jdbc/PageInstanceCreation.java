package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.JobAdvance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The body of one loader page's transaction: every job's advance (a compare-and-set each, sent as one JDBC batch in
 * ascending job id order, so two loaders lock job rows in the same order), then the instances of the jobs that
 * advanced, inserted if their (job, slot) is free: one multi-row {@code INSERT ... ON CONFLICT DO NOTHING RETURNING
 * id} per {@link #ROWS_PER_INSERT} rows on PostgreSQL, a batch of single-row {@code MERGE}s (whose per-row counts say
 * the same) on H2.
 *
 * <p>Why it is as safe as one transaction per job: a job's instances are written only if that job's own
 * compare-and-set succeeded, under its row lock, in the same transaction; the slot key still refuses a duplicate.
 * A job that lost its compare-and-set gets {@link AdvanceResult#LOST} and nothing written, as before.
 *
 * <p>Stateless; thread-safe. Runs inside a transaction the caller owns.
 */
final class PageInstanceCreation {

    /** Rows per multi-row insert: 13 parameters each, well under PostgreSQL's 65 535 bind parameters. */
    static final int ROWS_PER_INSERT = 1_000;

    private final InstanceSql sql;
    private final SqlDialect dialect;
    private final int shardCount;

    PageInstanceCreation(InstanceSql sql, SqlDialect dialect, int shardCount) {
        this.sql = sql;
        this.dialect = dialect;
        this.shardCount = shardCount;
    }

    List<AdvanceResult> run(Connection connection, List<JobAdvance> advances, long nowMs) throws SQLException {
        List<JobAdvance> byJobId = new ArrayList<>(advances);
        byJobId.sort(Comparator.comparingLong(JobAdvance::jobId));
        Map<JobAdvance, Boolean> advanced = new IdentityHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.ADVANCE_JOB)) {
            for (JobAdvance a : byJobId) {
                JdbcValues.setInstant(ps, 1, a.newNextTrigger());
                ps.setLong(2, a.jobId());
                JdbcValues.setInstant(ps, 3, a.expectedNextTrigger());
                ps.setLong(4, a.expectedVersion());
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < byJobId.size(); i++) {
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    throw new IllegalStateException("the JDBC driver reported no update count for a job advance");
                }
                advanced.put(byJobId.get(i), counts[i] == 1);
            }
        }
        List<NewInstance> toInsert = new ArrayList<>();
        for (JobAdvance a : advances) {
            if (advanced.get(a)) {
                toInsert.addAll(a.instances());
            }
        }
        Set<Long> inserted = insertIfAbsent(connection, toInsert, nowMs);
        List<AdvanceResult> results = new ArrayList<>(advances.size());
        for (JobAdvance a : advances) {
            if (!advanced.get(a)) {
                results.add(AdvanceResult.LOST);
                continue;
            }
            List<NewInstance> created = new ArrayList<>();
            List<NewInstance> skipped = new ArrayList<>();
            for (NewInstance instance : a.instances()) {
                (inserted.contains(instance.id()) ? created : skipped).add(instance);
            }
            results.add(new AdvanceResult(true, created, skipped));
        }
        return results;
    }

    private Set<Long> insertIfAbsent(Connection connection, List<NewInstance> instances, long nowMs)
            throws SQLException {
        Set<Long> inserted = new HashSet<>();
        for (int from = 0; from < instances.size(); from += ROWS_PER_INSERT) {
            List<NewInstance> chunk = instances.subList(from, Math.min(instances.size(), from + ROWS_PER_INSERT));
            Optional<String> multiRow = dialect.insertIfAbsentReturningIds("tw_instance",
                    InstanceSql.INSERT_COLUMNS, List.of("job_id", "scheduled_trigger_time_ms"), chunk.size());
            if (multiRow.isPresent()) {
                insertMultiRow(connection, multiRow.get(), chunk, nowMs, inserted);
            } else {
                insertBatched(connection, chunk, nowMs, inserted);
            }
        }
        return inserted;
    }

    private void insertMultiRow(Connection connection, String statement, List<NewInstance> chunk, long nowMs,
                                       Set<Long> inserted) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(statement)) {
            int columns = InstanceSql.INSERT_COLUMNS.size();
            for (int row = 0; row < chunk.size(); row++) {
                InstanceRowMapper.bindInsert(ps, row * columns, chunk.get(row), true, nowMs, shardCount);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    inserted.add(rs.getLong(1));
                }
            }
        }
    }

    private void insertBatched(Connection connection, List<NewInstance> chunk, long nowMs, Set<Long> inserted)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql.insertScheduledIfAbsent)) {
            for (NewInstance instance : chunk) {
                InstanceRowMapper.bindInsert(ps, instance, true, nowMs, shardCount);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < chunk.size(); i++) {
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    throw new IllegalStateException("the JDBC driver reported no per-row update counts for a"
                            + " batched insert; remove reWriteBatchedInserts=true from the JDBC URL");
                }
                if (counts[i] == 1) {
                    inserted.add(chunk.get(i).id());
                }
            }
        }
    }
}
