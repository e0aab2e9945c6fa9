package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.JobAdvance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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

    private final InsertIfAbsent slots;

    private final int shardCount;

    PageInstanceCreation(SqlDialect dialect, int shardCount) {
        this.shardCount = shardCount;
        this.slots = new InsertIfAbsent(dialect, InstanceSql.SLOT_KEY, true, ROWS_PER_INSERT);
    }

    List<AdvanceResult> run(Connection connection, List<JobAdvance> advances, long nowMs) throws SQLException {
        List<JobAdvance> byJobId = new ArrayList<>(advances);
        byJobId.sort(Comparator.comparingLong(JobAdvance::jobId));
        Map<JobAdvance, Boolean> advanced = new IdentityHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.ADVANCE_JOB)) {
            for (JobAdvance a : byJobId) {
                InstanceSql.bindAdvance(ps, a);
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
        Map<Long, JobAdvance> byJob = new HashMap<>();
        for (JobAdvance a : advances) {
            if (advanced.get(a)) {
                toInsert.addAll(a.instances());
                byJob.put(a.jobId(), a);
            }
        }
        Set<Long> inserted = slots.insert(connection, toInsert, nowMs,
                instance -> byJob.get(instance.jobId()).shardOf(instance, shardCount));
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
}
