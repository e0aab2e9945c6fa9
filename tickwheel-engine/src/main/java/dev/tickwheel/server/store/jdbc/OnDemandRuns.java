package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.time.ScheduleType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes on-demand runs, many in one transaction, and finds runs by their caller's key.
 *
 * <p>A write of N runs is one transaction of three steps: the runs' jobs are locked against deletion and change
 * ({@link SqlDialect#lockAgainstChange()}, ascending ids), so a run never outlives a job deleted meanwhile, and each
 * run is placed by its job's settings as committed ({@link dev.tickwheel.server.job.Job#spreadsInstances()}: its own
 * shard, its job's, or its job's pool's; a job update that makes the job need one owner, or changes its pool, moves
 * the waiting instances it finds, which then include these, see {@code JdbcJobStore#update}); every run
 * whose job exists is inserted with one insert-if-absent on its run key ({@link InsertIfAbsent}: the unique index of
 * {@link RunKeyColumn} on H2, the {@code tw_run_key} table of the partitioned history on PostgreSQL), many rows a
 * statement where the database can say which rows it inserted, in (job, key) order so that overlapping writes cannot
 * deadlock; the keyed runs that were not inserted read the
 * instance their key names, one query per job. A keyless run never conflicts (NULL keys are distinct), so it is always
 * created.
 *
 * <p>Why the store decides a key's instance, not the server: two calls with one key may arrive on two members at
 * once. On PostgreSQL the second insert waits for the first transaction and then skips its row, and the read that
 * follows (a new snapshot in READ COMMITTED) sees the first's; on H2 the second gets a unique-key violation, and the
 * whole write is tried again ({@value #ATTEMPTS} times), when the key is found. Either way one instance, and both calls
 * answer with it.
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class OnDemandRuns {

    /** Rows per multi-row insert: 14 parameters a row stays far below PostgreSQL's 32 767. */
    private static final int ROWS_PER_INSERT = 500;
    /** Whole-write attempts when a concurrent write of the same key made it fail with a unique-key violation. */
    private static final int ATTEMPTS = 3;

    private static final Comparator<NewInstance> INSERT_ORDER = Comparator.comparingLong(NewInstance::jobId)
            .thenComparing(NewInstance::key, Comparator.nullsLast(Comparator.naturalOrder()));

    private final TransactionRunner runner;
    private final int shardCount;
    private final String lockJobs;
    private final InsertIfAbsent keyed;
    private final String selectByKeys;
    private final String selectIdsByKeys;

    OnDemandRuns(TransactionRunner runner, SqlDialect dialect, InstanceSql sql, int shardCount) {
        this.runner = runner;
        this.shardCount = shardCount;
        this.lockJobs = "SELECT id, max_concurrent, schedule_type, pool_name FROM tw_job WHERE id = ANY(?) ORDER BY id"
                + dialect.lockAgainstChange();
        this.keyed = new InsertIfAbsent(dialect, InstanceSql.RUN_KEY, false, ROWS_PER_INSERT);
        this.selectByKeys = sql.selectByJobAndKeys;
        this.selectIdsByKeys = sql.selectIdsByJobAndKeys;
    }

    /** One result per run, in order (see {@link dev.tickwheel.server.store.InstanceStore#insertRuns}). */
    List<RunWrite> insert(List<NewInstance> runs, long nowMs) {
        StoreException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return runner.inTransaction("insert " + runs.size() + " runs", c -> insertOn(c, runs, nowMs));
            } catch (StoreException e) {
                if (!DuplicateIds.isUniqueViolation(e) || !mentionsRunKey(e)) {
                    throw e;
                }
                last = e; // a concurrent write of one of these keys committed first: now it will be found
            }
        }
        throw last;
    }

    private static boolean mentionsRunKey(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().toUpperCase().contains(RunKeyColumn.INDEX.toUpperCase())) {
                return true;
            }
        }
        return false;
    }

    /** Writes {@code runs} on {@code connection}, inside the caller's transaction (see the class comment). */
    List<RunWrite> insertOn(Connection connection, List<NewInstance> runs, long nowMs) throws SQLException {
        Map<Long, Placement> jobs = lockJobs(connection, runs);
        // The first run of each (job, key) is written; a later one in the same call names the same instance.
        Map<JobKey, Integer> firstOfKey = new HashMap<>();
        List<NewInstance> toInsert = new ArrayList<>(runs.size());
        for (int i = 0; i < runs.size(); i++) {
            NewInstance run = runs.get(i);
            if (jobs.containsKey(run.jobId())
                    && (run.key() == null || firstOfKey.putIfAbsent(new JobKey(run.jobId(), run.key()), i) == null)) {
                toInsert.add(run);
            }
        }
        // In (job, key) order, keyless last: two writes whose keys overlap then take their index entries in one
        // order, so on PostgreSQL (where runs of one job do not lock each other out) one waits for the other instead
        // of both deadlocking. The answers keep the caller's order.
        toInsert.sort(INSERT_ORDER);
        Set<Long> inserted = keyed.insert(connection, toInsert, nowMs, run -> shardOf(run, jobs));
        Map<JobKey, Instance> existing = readExisting(connection, toInsert, inserted);
        List<RunWrite> results = new ArrayList<>(runs.size());
        Map<JobKey, Instance> createdByKey = new HashMap<>();
        for (NewInstance run : runs) {
            if (!jobs.containsKey(run.jobId())) {
                results.add(new RunWrite(RunWrite.Outcome.NO_JOB, null));
                continue;
            }
            JobKey key = run.key() == null ? null : new JobKey(run.jobId(), run.key());
            if (inserted.contains(run.id())) {
                Instance instance = InstanceRowMapper.inserted(run, false, nowMs, shardOf(run, jobs));
                if (key != null) {
                    createdByKey.put(key, instance);
                }
                results.add(new RunWrite(RunWrite.Outcome.CREATED, instance));
            } else {
                Instance found = createdByKey.containsKey(key) ? createdByKey.get(key) : existing.get(key);
                if (found == null) {
                    // Not inserted, yet no row has its key: only a keyless run could get here, and those never
                    // conflict. The insert must have failed on something else; say so rather than guess.
                    throw new IllegalStateException("run " + run.id() + " of job " + run.jobId()
                            + " was neither inserted nor found by its key " + run.key());
                }
                results.add(new RunWrite(RunWrite.Outcome.EXISTING, found));
            }
        }
        return results;
    }

    private int shardOf(NewInstance run, Map<Long, Placement> placements) {
        Placement placement = placements.get(run.jobId());
        return Shards.ofInstance(run.id(), run.jobId(), placement.spread(), placement.pool(), shardCount);
    }

    /** Where a job's instances go: spread over the shards, or on its pool's shard, or on its own. */
    private record Placement(boolean spread, String pool) {
    }

    /** Locks the runs' jobs that exist; for each, where its instances go. */
    private Map<Long, Placement> lockJobs(Connection connection, List<NewInstance> runs) throws SQLException {
        Set<Long> wanted = new TreeSet<>();
        runs.forEach(run -> wanted.add(run.jobId()));
        Map<Long, Placement> found = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(lockJobs)) {
            ps.setArray(1, connection.createArrayOf("bigint", wanted.toArray(new Long[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String pool = rs.getString(4);
                    found.put(rs.getLong(1), new Placement(Job.spreadsInstances(rs.getInt(2),
                            ScheduleType.valueOf(rs.getString(3)), pool), pool));
                }
            }
        }
        return found;
    }

    /** The stored instances named by the keys of the runs that were not inserted, one query per job. */
    private Map<JobKey, Instance> readExisting(Connection connection, List<NewInstance> runs, Set<Long> inserted)
            throws SQLException {
        Map<Long, List<String>> keysByJob = new LinkedHashMap<>();
        for (NewInstance run : runs) {
            if (!inserted.contains(run.id()) && run.key() != null) {
                keysByJob.computeIfAbsent(run.jobId(), j -> new ArrayList<>()).add(run.key());
            }
        }
        Map<JobKey, Instance> found = new HashMap<>();
        for (Map.Entry<Long, List<String>> job : keysByJob.entrySet()) {
            for (Instance instance : byKeys(connection, job.getKey(), job.getValue())) {
                found.put(new JobKey(instance.jobId(), instance.key()), instance);
            }
        }
        return found;
    }

    /** The instance of {@code jobId} with this key, if stored. */
    Optional<Instance> findByKey(long jobId, String key) {
        return runner.autoCommit("find run " + jobId + "/" + key, connection -> {
            List<Instance> found = byKeys(connection, jobId, List.of(key));
            return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
        });
    }

    /** The ids of the stored instances of {@code jobId} named by {@code keys}, by key. */
    Map<String, Long> idsByKey(long jobId, Collection<String> keys) {
        Map<String, Long> ids = new HashMap<>();
        if (keys.isEmpty()) {
            return ids;
        }
        return runner.autoCommit("find " + keys.size() + " runs of job " + jobId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(selectIdsByKeys)) {
                ps.setLong(1, jobId);
                ps.setArray(2, connection.createArrayOf("varchar", keys.toArray(new String[0])));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.put(rs.getString(2), rs.getLong(1));
                    }
                }
            }
            return ids;
        });
    }

    private List<Instance> byKeys(Connection connection, long jobId, List<String> keys) throws SQLException {
        List<Instance> found = new ArrayList<>(keys.size());
        try (PreparedStatement ps = connection.prepareStatement(selectByKeys)) {
            ps.setLong(1, jobId);
            ps.setArray(2, connection.createArrayOf("varchar", keys.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(InstanceRowMapper.read(rs));
                }
            }
        }
        return found;
    }

    /** A run's identity: its job and its key. */
    private record JobKey(long jobId, String key) {
    }
}
