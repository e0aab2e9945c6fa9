package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.ScheduleType;
import dev.tickwheel.server.store.DueJobCursor;
import dev.tickwheel.server.store.JobDeletion;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.server.store.SecretBox;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link JobStore} over JDBC, for H2 and PostgreSQL. Every insert writes the job's shard
 * ({@link dev.tickwheel.server.store.Shards}); the loaders' query reads only the shards asked for. Deleting a job
 * cancels its waiting instances unfenced: any member may cancel a WAITING row. Signing secrets are encrypted as they
 * are written and decrypted as they are read ({@link JobRowMapper}, under the {@link SecretBox}'s keys).
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class JdbcJobStore implements JobStore {

    private final TransactionRunner runner;
    private final InstanceSql instanceSql;
    private final boolean batchedCasIsExact;
    private final Clock clock;
    private final DuplicateIds duplicateIds;
    private final int shardCount;
    private final SqlDialect dialect;
    private final SecretBox secrets;

    JdbcJobStore(TransactionRunner runner, SqlDialect dialect, Clock clock, int shardCount, SecretBox secrets) {
        this.shardCount = shardCount;
        this.secrets = secrets;
        this.dialect = dialect;
        this.batchedCasIsExact = dialect.batchedCompareAndSetIsExact();
        this.runner = runner;
        this.instanceSql = new InstanceSql(dialect);
        this.clock = clock;
        this.duplicateIds = new DuplicateIds(runner, "job", JobSql.SELECT_EXISTING_IDS);
    }

    @Override
    public Job insertUnlessNamed(NewJob job) {
        long nowMs = clock.millis();
        try {
            return runner.inTransaction("declare job '" + job.name() + "'", connection -> {
                try (PreparedStatement lock = connection.prepareStatement(JobSql.LOCK_DECLARATIONS);
                        ResultSet locked = lock.executeQuery()) {
                    locked.next();
                }
                List<Job> named = selectByName(connection, job.name());
                if (!named.isEmpty()) {
                    return named.get(0);
                }
                try (PreparedStatement ps = connection.prepareStatement(JobSql.INSERT)) {
                    JobRowMapper.bindInsert(ps, job, nowMs, shardCount, secrets);
                    ps.executeUpdate();
                }
                JdbcAccessStore.insertJobNamespaces(connection, List.of(job.id()),
                        dev.tickwheel.server.access.Namespaces.DEFAULT);
                return truncatedToMillis(job.toJob(Instant.ofEpochMilli(nowMs)));
            });
        } catch (StoreException e) {
            throw duplicateIds.translate(e, List.of(job.id()));
        }
    }

    @Override
    public List<Job> findByName(String name) {
        return runner.autoCommit("find jobs named '" + name + "'", connection -> selectByName(connection, name));
    }

    private List<Job> selectByName(Connection connection, String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_BY_NAME)) {
            ps.setString(1, name);
            return readAll(ps);
        }
    }

    @Override
    public List<Job> insertAll(List<NewJob> jobs, String namespace) {
        List<Long> ids = jobs.stream().map(NewJob::id).toList();
        duplicateIds.checkDistinct(ids);
        if (jobs.isEmpty()) {
            return List.of();
        }
        long nowMs = clock.millis();
        try {
            runner.inTransaction("insert " + jobs.size() + " job(s)", connection -> {
                try (PreparedStatement ps = connection.prepareStatement(JobSql.INSERT)) {
                    for (NewJob job : jobs) {
                        JobRowMapper.bindInsert(ps, job, nowMs, shardCount, secrets);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                JdbcAccessStore.insertJobNamespaces(connection, ids, namespace);
                return null;
            });
        } catch (StoreException e) {
            throw duplicateIds.translate(e, ids);
        }
        Instant now = Instant.ofEpochMilli(nowMs);
        return jobs.stream().map(job -> job.toJob(now)).map(JdbcJobStore::truncatedToMillis).toList();
    }

    @Override
    public Optional<Job> update(Job job) {
        Objects.requireNonNull(job, "job");
        long nowMs = clock.millis();
        return runner.inTransaction("update job " + job.id(), connection -> {
            Placement before = lockPlacement(connection, job);
            if (before == null) {
                return Optional.empty();
            }
            try (PreparedStatement ps = connection.prepareStatement(JobSql.UPDATE_IF_VERSION)) {
                JobRowMapper.bindUpdate(ps, job, nowMs, secrets);
                if (ps.executeUpdate() == 0) {
                    return Optional.empty();
                }
            }
            if (job.gathersInstancesOf(before.spread(), before.pool())) {
                gatherWaiting(connection, job.id(), Shards.ofOwner(job.id(), job.delivery().pool(), shardCount));
            }
            // Read back in the same transaction: the caller gets exactly what is stored (createdAt included).
            return selectById(connection, job.id());
        });
    }

    /**
     * Locks the job row at the caller's version; where the job kept its instances, or null if the job is gone or at
     * another version. The lock comes first so that a run being written for the job meanwhile (which takes a
     * shared lock on the row, {@link SqlDialect#lockAgainstChange()}) has committed before {@link #gatherWaiting}
     * reads, and one that starts later waits and then sees the updated job.
     */
    private static Placement lockPlacement(Connection connection, Job job) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(JobSql.LOCK_PLACEMENT_IF_VERSION)) {
            ps.setLong(1, job.id());
            ps.setLong(2, job.version());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String pool = rs.getString(3);
                return new Placement(Job.spreadsInstances(rs.getInt(1), ScheduleType.valueOf(rs.getString(2)), pool),
                        pool);
            }
        }
    }

    /** Where a job kept its instances before an update: spread, or on its pool's shard, or on its own. */
    private record Placement(boolean spread, String pool) {
    }

    /**
     * The job now needs one owner: its waiting instances, spread over the shards or on its old pool's shard until now,
     * move to {@code shard} (its own or its pool's), where its owner arms them ({@code ShardOwner.jobChanged}). A
     * timer another member armed for one of them loses its claim, which is fenced on the row's shard; calls already in
     * flight on other members end there.
     */
    private static void gatherWaiting(Connection connection, long jobId, int shard) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.GATHER_WAITING_OF_JOB)) {
            ps.setInt(1, shard);
            ps.setLong(2, jobId);
            ps.setString(3, InstanceStatus.WAITING.name());
            ps.setInt(4, shard);
            ps.executeUpdate();
        }
    }

    @Override
    public JobDeletion delete(long jobId) {
        long nowMs = clock.millis();
        return runner.inTransaction("delete job " + jobId, connection -> {
            // Lock order job row -> its instances, the same as instance creation, so the two serialise.
            try (PreparedStatement lock = connection.prepareStatement(JobSql.LOCK_BY_ID)) {
                lock.setLong(1, jobId);
                try (ResultSet rs = lock.executeQuery()) {
                    if (!rs.next()) {
                        return JobDeletion.NOT_FOUND;
                    }
                }
            }
            List<Long> cancelled = cancelWaitingInstances(connection, jobId, nowMs);
            try (PreparedStatement delete = connection.prepareStatement(JobSql.DELETE_BY_ID)) {
                delete.setLong(1, jobId);
                delete.executeUpdate();
            }
            return new JobDeletion(true, cancelled);
        });
    }

    private List<Long> cancelWaitingInstances(Connection connection, long jobId, long nowMs) throws SQLException {
        InstanceTransition t = InstanceTransition.CANCEL;
        List<Long> ids = new ArrayList<>();
        // H2's UPDATE ... RETURNING (FINAL TABLE) can report rows a racing claim took: cancel row by row there.
        if (!batchedCasIsExact) {
            List<Long> waiting = selectIds(connection, jobId, t.from());
            ids.addAll(RowByRowCas.apply(connection, waiting, InstanceSql.CANCEL,
                    (ps, id) -> TransitionBinding.move(ps, t, nowMs, TransitionBinding.id(id), Fence.NONE)));
        } else {
            try (PreparedStatement ps = connection.prepareStatement(instanceSql.cancelAllOfJobReturningIds)) {
                TransitionBinding.move(ps, t, nowMs, TransitionBinding.id(jobId), Fence.NONE);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    private static List<Long> selectIds(Connection connection, long jobId, InstanceStatus status)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_IDS_OF_JOB_IN_STATUS)) {
            ps.setLong(1, jobId);
            ps.setString(2, status.name());
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        }
    }

    @Override
    public Optional<Job> get(long jobId) {
        return runner.autoCommit("get job " + jobId, connection -> selectById(connection, jobId));
    }

    @Override
    public java.util.Map<Long, Job> getAll(java.util.Collection<Long> jobIds) {
        List<Long> ids = new ArrayList<>(new java.util.TreeSet<>(jobIds));
        java.util.Map<Long, Job> found = new java.util.HashMap<>();
        for (int from = 0; from < ids.size(); from += 1_000) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + 1_000));
            List<Job> rows = runner.autoCommit("get " + chunk.size() + " jobs", connection -> {
                try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_BY_IDS)) {
                    ps.setArray(1, connection.createArrayOf("bigint", chunk.toArray(new Long[0])));
                    return readAll(ps);
                }
            });
            rows.forEach(job -> found.put(job.id(), job));
        }
        return found;
    }

    private Optional<Job> selectById(Connection connection, long jobId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_BY_ID)) {
            ps.setLong(1, jobId);
            List<Job> jobs = readAll(ps);
            return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
        }
    }

    @Override
    public Page<Job, JobNameCursor> search(String nameContains, JobNameCursor after, int limit, String namespace) {
        QueryLimits.checkPageSize(limit);
        boolean filtered = nameContains != null && !nameContains.isEmpty();
        // In a transaction for preferIndexOrder: past the first page, PostgreSQL's estimate for the cursor condition
        // is a few rows, and it then collects every job after the cursor and sorts them, on every page.
        List<Job> jobs = runner.inTransaction("search jobs by name", connection -> {
            dialect.preferIndexOrder(connection);
            try (PreparedStatement ps = connection.prepareStatement(JobSql.selectByName(filtered, after != null,
                    namespace != null))) {
                int i = 1;
                if (namespace != null) {
                    ps.setString(i++, namespace);
                }
                if (filtered) {
                    ps.setString(i++, "%" + likeEscaped(nameContains) + "%");
                }
                if (after != null) {
                    ps.setString(i++, after.name());
                    ps.setString(i++, after.name());
                    ps.setString(i++, after.name());
                    ps.setLong(i++, after.jobId());
                }
                ps.setInt(i, limit + 1);
                return readAll(ps);
            }
        });
        if (jobs.size() <= limit) {
            return new Page<>(jobs, Optional.empty());
        }
        List<Job> page = jobs.subList(0, limit);
        return new Page<>(page, Optional.of(JobNameCursor.after(page.get(limit - 1))));
    }

    /** {@code text} with LIKE's metacharacters ({@code %}, {@code _} and the escape itself) matching themselves. */
    static String likeEscaped(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' || c == '_' || c == JobSql.LIKE_ESCAPE) {
                escaped.append(JobSql.LIKE_ESCAPE);
            }
            escaped.append(c);
        }
        return escaped.toString();
    }

    @Override
    public List<Job> findDue(Instant until, DueJobCursor after, int limit, java.util.Collection<Integer> shards) {
        Objects.requireNonNull(until, "until");
        QueryLimits.checkPageSize(limit);
        Integer[] shardArray = new java.util.TreeSet<>(shards).toArray(new Integer[0]);
        if (shardArray.length == 0) {
            return List.of();
        }
        return runner.inTransaction("find due jobs", connection -> {
            dialect.preferIndexOrder(connection);
            String sql = after == null ? JobSql.SELECT_DUE_FIRST : JobSql.SELECT_DUE_AFTER;
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                int i = 1;
                ps.setLong(i++, until.toEpochMilli());
                if (after != null) {
                    long cursorMs = after.nextTriggerTime().toEpochMilli();
                    ps.setLong(i++, cursorMs);
                    ps.setLong(i++, cursorMs);
                    ps.setLong(i++, cursorMs);
                    ps.setLong(i++, after.jobId());
                }
                ps.setArray(i++, connection.createArrayOf("integer", shardArray));
                ps.setInt(i, limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public java.util.Map<Long, Integer> findRetentionOverrides() {
        return runner.autoCommit("find retention overrides", connection -> {
            java.util.Map<Long, Integer> days = new java.util.HashMap<>();
            try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_RETENTION_OVERRIDES);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    days.put(rs.getLong("id"), rs.getInt("retention_days"));
                }
            }
            return days;
        });
    }

    private List<Job> readAll(PreparedStatement ps) throws SQLException {
        List<Job> jobs = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                jobs.add(JobRowMapper.read(rs, secrets));
            }
        }
        return jobs;
    }

    /** The job as it reads back: the store keeps milliseconds. */
    private static Job truncatedToMillis(Job job) {
        ScheduleSpec s = job.schedule();
        ScheduleSpec schedule = new ScheduleSpec(s.type(), s.expression(), s.zoneId(), s.periodMs(), s.delayMs(),
                millis(s.at()), s.jitterMs(), Boolean.TRUE.equals(s.spread()) ? Boolean.TRUE : null,
                millis(s.startAt()), millis(s.endAt()), s.maxRuns(), s.calendar());
        return new Job(job.id(), job.name(), schedule, job.target(), job.params(), job.enabled(),
                job.misfirePolicy(), job.retryPolicy(), job.delivery(), job.operations(),
                millis(job.nextTriggerTime()), job.scheduledRuns(), millis(job.createdAt()), millis(job.updatedAt()),
                job.version());
    }

    private static Instant millis(Instant instant) {
        return instant == null ? null : Instant.ofEpochMilli(instant.toEpochMilli());
    }
}
