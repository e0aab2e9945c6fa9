package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.instance.WorkflowStep;
import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.CallbackAttempt;
import dev.tickwheel.server.store.ForeignClaim;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.server.store.PurgeBatch;
import dev.tickwheel.server.store.PurgeScope;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.server.store.WaitingCursor;
import dev.tickwheel.server.store.WorkflowCancel;
import dev.tickwheel.server.store.WorkflowStart;
import dev.tickwheel.server.workflow.WorkflowRun;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * {@link InstanceStore} over JDBC, for H2 and PostgreSQL, as one cluster member ({@link Fence}): creation and reads
 * here, status changes in {@link InstanceTransitions} and {@link BatchTransitions}, inherited claims in
 * {@link ForeignClaimStatements}, the history pages and attempts in {@link InstanceHistoryReads}, the retention purge
 * in {@link FinishedInstancePurge} and, where the history is partitioned (PostgreSQL), {@link PartitionRetention},
 * on-demand runs and keys in {@link OnDemandRuns}, cancels of sets and reschedules in {@link WaitingMoves}. Every
 * insert writes the instance's shard ({@link dev.tickwheel.server.store.Shards}), after the partitions its ids and
 * slots fall in exist ({@link HistoryPartitions#prepareFor}).
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class JdbcInstanceStore implements InstanceStore {

    private final TransactionRunner runner;
    private final InstanceSql sql;
    private final Clock clock;
    private final DuplicateIds duplicateIds;
    private final InstanceTransitions transitions;
    private final BatchTransitions batchTransitions;
    private final PageInstanceCreation pageCreation;
    private final InsertIfAbsent slots;
    private final ForeignClaimStatements foreignClaims;
    private final InstanceHistoryReads historyReads;
    private final FinishedInstancePurge purge;
    private final OnDemandRuns onDemandRuns;
    private final WaitingMoves waitingMoves;
    private final CallbackTransitions callbacks;
    private final WorkflowSteps workflowSteps;
    private final Fence fence;
    private final int shardCount;
    private final SqlDialect dialect;
    private final HistoryPartitions partitions;
    private final PartitionRetention partitionRetention;

    JdbcInstanceStore(TransactionRunner runner, SqlDialect dialect, Clock clock, int shardCount, Fence fence,
                      HistoryPartitions partitions) {
        this.runner = runner;
        this.dialect = dialect;
        this.sql = new InstanceSql(dialect);
        this.clock = clock;
        this.shardCount = shardCount;
        this.duplicateIds = new DuplicateIds(runner, "instance", InstanceSql.SELECT_EXISTING_IDS);
        this.transitions = new InstanceTransitions(runner, clock, fence);
        this.batchTransitions = new BatchTransitions(runner, sql, dialect, clock, fence);
        this.pageCreation = new PageInstanceCreation(dialect, shardCount);
        this.slots = new InsertIfAbsent(dialect, InstanceSql.SLOT_KEY, true,
                PageInstanceCreation.ROWS_PER_INSERT);
        this.foreignClaims = new ForeignClaimStatements(runner, sql, clock, fence);
        this.historyReads = new InstanceHistoryReads(runner, dialect);
        this.purge = new FinishedInstancePurge(runner, dialect);
        this.onDemandRuns = new OnDemandRuns(runner, dialect, sql, shardCount);
        this.waitingMoves = new WaitingMoves(runner, dialect, clock);
        this.workflowSteps = new WorkflowSteps(runner, clock, onDemandRuns, partitions);
        this.callbacks = new CallbackTransitions(runner, dialect, clock, fence, workflowSteps);
        this.fence = fence;
        this.partitions = partitions;
        this.partitionRetention = new PartitionRetention(runner, partitions);
    }

    @Override
    public AdvanceResult createInstancesAndAdvanceJob(JobAdvance advance) {
        long jobId = advance.jobId();
        List<NewInstance> instances = advance.instances();
        checkOneBatchOfSlots(jobId, instances);
        List<Long> ids = instances.stream().map(NewInstance::id).toList();
        long nowMs = clock.millis();
        try {
            partitions.prepareFor(instances, true);
            return runner.inTransaction("create instances and advance job " + jobId, connection -> {
                if (!advanceJob(connection, advance)) {
                    return AdvanceResult.LOST;
                }
                return insertSlotsIfAbsent(connection, instances, nowMs, i -> advance.shardOf(i, shardCount));
            });
        } catch (StoreException e) {
            partitions.insertFailed(e);
            throw duplicateIds.translate(e, ids);
        }
    }

    @Override
    public boolean createFollowUp(NewInstance next) {
        Objects.requireNonNull(next, "next");
        long nowMs = clock.millis();
        try {
            partitions.prepareFor(List.of(next), true);
            String[] pool = new String[1]; // the job's pool, read under its row lock
            return runner.inTransaction("create follow-up of job " + next.jobId(), connection -> {
                // The job row lock first: every later statement of this transaction reads what was committed by
                // whoever held it before (a follow-up, a loader), so two completions cannot both see "no chain".
                try (PreparedStatement lock = connection.prepareStatement(
                        InstanceSql.LOCK_FIXED_DELAY_JOB_AWAITING_FOLLOW_UP)) {
                    lock.setLong(1, next.jobId());
                    try (ResultSet rs = lock.executeQuery()) {
                        if (!rs.next()) {
                            return false;
                        }
                        pool[0] = rs.getString(2);
                    }
                }
                try (PreparedStatement live = connection.prepareStatement(InstanceSql.SELECT_LIVE_SCHEDULED_OF_JOB)) {
                    live.setLong(1, next.jobId());
                    try (ResultSet rs = live.executeQuery()) {
                        if (rs.next()) {
                            return false;
                        }
                    }
                }
                // A fixed-delay job needs one owner: its follow-up stays on the job's shard, or its pool's.
                return insertSlotsIfAbsent(connection, List.of(next), nowMs,
                        i -> Shards.ofInstance(i.id(), i.jobId(), false, pool[0], shardCount)).created().size() == 1;
            });
        } catch (StoreException e) {
            partitions.insertFailed(e);
            throw duplicateIds.translate(e, List.of(next.id()));
        }
    }

    @Override
    public List<AdvanceResult> createInstancesAndAdvanceJobs(List<JobAdvance> advances) {
        Set<Long> jobIds = new HashSet<>();
        List<Long> ids = new ArrayList<>();
        for (JobAdvance advance : advances) {
            if (!jobIds.add(advance.jobId())) {
                throw new IllegalArgumentException("two advances name job " + advance.jobId());
            }
            checkOneBatchOfSlots(advance.jobId(), advance.instances());
            advance.instances().forEach(instance -> ids.add(instance.id()));
        }
        duplicateIds.checkDistinct(ids);
        if (advances.isEmpty()) {
            return List.of();
        }
        long nowMs = clock.millis();
        try {
            partitions.prepareFor(advances.stream().flatMap(a -> a.instances().stream()).toList(), true);
            return runner.inTransaction("create instances and advance " + advances.size() + " jobs",
                    connection -> pageCreation.run(connection, advances, nowMs));
        } catch (StoreException e) {
            partitions.insertFailed(e);
            throw duplicateIds.translate(e, ids);
        }
    }

    private void checkOneBatchOfSlots(long jobId, List<NewInstance> instances) {
        Set<Instant> triggers = new HashSet<>();
        for (NewInstance instance : instances) {
            if (instance.jobId() != jobId) {
                throw new IllegalArgumentException("instance " + instance.id() + " belongs to job "
                        + instance.jobId() + ", not to job " + jobId);
            }
            if (!triggers.add(Instant.ofEpochMilli(instance.slot().toEpochMilli()))) {
                throw new IllegalArgumentException("two instances share the schedule slot (to the millisecond): "
                        + instance.slot());
            }
        }
        duplicateIds.checkDistinct(instances.stream().map(NewInstance::id).toList());
    }

    private static boolean advanceJob(Connection connection, JobAdvance advance) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(InstanceSql.ADVANCE_JOB)) {
            InstanceSql.bindAdvance(ps, advance);
            return ps.executeUpdate() == 1;
        }
    }

    private AdvanceResult insertSlotsIfAbsent(Connection connection, List<NewInstance> instances, long nowMs,
                                              ToIntFunction<NewInstance> shards) throws SQLException {
        if (instances.isEmpty()) {
            return new AdvanceResult(true, List.of(), List.of());
        }
        Set<Long> inserted = slots.insert(connection, instances, nowMs, shards);
        List<NewInstance> created = new ArrayList<>();
        List<NewInstance> skipped = new ArrayList<>();
        for (NewInstance instance : instances) {
            (inserted.contains(instance.id()) ? created : skipped).add(instance);
        }
        return new AdvanceResult(true, created, skipped);
    }

    @Override
    public List<RunWrite> insertRuns(List<NewInstance> runs) {
        Objects.requireNonNull(runs, "runs");
        if (runs.isEmpty()) {
            return List.of();
        }
        List<Long> ids = runs.stream().map(NewInstance::id).toList();
        duplicateIds.checkDistinct(ids);
        try {
            partitions.prepareFor(runs, false);
            return onDemandRuns.insert(runs, clock.millis());
        } catch (StoreException e) {
            partitions.insertFailed(e);
            throw duplicateIds.translate(e, ids);
        }
    }

    @Override
    public Optional<Instance> findByKey(long jobId, String key) {
        return onDemandRuns.findByKey(jobId, Objects.requireNonNull(key, "key"));
    }

    @Override
    public Map<String, Long> idsByKey(long jobId, Collection<String> keys) {
        return onDemandRuns.idsByKey(jobId, keys);
    }

    @Override
    public List<CancelResult> cancelAll(List<Long> instanceIds) {
        return waitingMoves.cancelAll(instanceIds);
    }

    @Override
    public RescheduleOutcome reschedule(long instanceId, Instant dueAt, boolean replaceParams, String params) {
        return waitingMoves.reschedule(instanceId, Objects.requireNonNull(dueAt, "dueAt"), replaceParams, params);
    }

    @Override
    public List<Instance> claimArmed(Map<Long, Long> armedForMs, Instant now) {
        return batchTransitions.claimBatch(armedForMs, now);
    }

    @Override
    public Set<Long> markAllSucceeded(Collection<Long> instanceIds) {
        return batchTransitions.markAllSucceeded(instanceIds);
    }

    @Override
    public Set<Long> markAllSucceeded(Map<Long, String> outputs) {
        return batchTransitions.markAllSucceeded(outputs);
    }

    @Override
    public Set<Long> acceptCallbacks(Map<CallbackAttempt, Instant> deadlines) {
        Set<Long> moved = new HashSet<>();
        deadlines.entrySet().stream().collect(java.util.stream.Collectors.groupingBy(Map.Entry::getValue,
                java.util.stream.Collectors.mapping(Map.Entry::getKey, java.util.stream.Collectors.toList())))
                .forEach((deadline, attempts) -> moved.addAll(callbacks.accept(attempts, deadline)));
        return moved;
    }

    @Override
    public Optional<List<Instance>> callbackSucceeded(CallbackAttempt attempt, String output, LongSupplier ids) {
        workflowSteps.prepare(ids);
        return callbacks.succeed(attempt, output, ids);
    }

    @Override
    public Optional<List<Instance>> callbackFailed(CallbackAttempt attempt, boolean timedOut, String error,
                                                   LongSupplier ids) {
        workflowSteps.prepare(ids);
        return callbacks.fail(attempt, timedOut, error, ids);
    }

    @Override
    public WorkflowStart startWorkflowRun(long runId, long workflowId, String key, String params, LongSupplier ids) {
        return workflowSteps.start(runId, workflowId, key, params, ids);
    }

    @Override
    public Optional<WorkflowRun> findWorkflowRun(long runId) {
        return workflowSteps.find(runId);
    }

    @Override
    public Optional<WorkflowCancel> cancelWorkflowRun(long runId) {
        return workflowSteps.cancel(runId);
    }

    @Override
    public Optional<List<Instance>> succeedStep(Instance instance, String output, LongSupplier ids) {
        return finishStep(instance, InstanceSql.SUCCEED_WITH_OUTPUT, InstanceStatus.SUCCEEDED, output, ids);
    }

    @Override
    public Optional<List<Instance>> failStep(Instance instance, String error, LongSupplier ids) {
        return finishStep(instance, InstanceSql.FINISH, InstanceStatus.FAILED, error, ids);
    }

    /** The fenced final write of a workflow step and the run's next step, in one transaction. */
    private Optional<List<Instance>> finishStep(Instance instance, String statement, InstanceStatus to, String text,
                                                LongSupplier ids) {
        WorkflowStep step = Objects.requireNonNull(instance.workflow(), "a workflow step");
        workflowSteps.prepare(ids);
        long nowMs = clock.millis();
        return runner.inTransaction("end workflow step " + instance.id(), connection -> {
            try (PreparedStatement ps = connection.prepareStatement(statement)) {
                if (to == InstanceStatus.SUCCEEDED) {
                    TransitionBinding.succeedWithOutput(ps, text, nowMs, instance.id(), fence.claimEpochHeld());
                } else {
                    TransitionBinding.finish(ps, InstanceTransition.FAIL, InstanceTransitions.truncate(text), nowMs,
                            TransitionBinding.id(instance.id()), fence.claimEpochHeld());
                }
                if (ps.executeUpdate() != 1) {
                    return Optional.<List<Instance>>empty();
                }
            }
            return Optional.of(workflowSteps.afterFinal(connection, step, to.name(), ids));
        });
    }

    @Override
    public List<Instance> advanceWorkflowRuns(int limit, LongSupplier ids) {
        workflowSteps.prepare(ids);
        return workflowSteps.sweep(limit, ids);
    }

    @Override
    public boolean callbackRetry(CallbackAttempt attempt, boolean timedOut, Instant next, String error) {
        return callbacks.retry(attempt, timedOut, next, error);
    }

    @Override
    public boolean callbackHeartbeat(CallbackAttempt attempt, Instant newDeadline) {
        return callbacks.heartbeat(attempt, newDeadline);
    }

    @Override
    public List<Instance> findTimedOutCallbacks(Instant now, int limit) {
        return callbacks.findTimedOut(now, limit);
    }

    @Override
    public List<Instance> findAwaitingCallbacksOfLimitedJobs() {
        return callbacks.findAwaitingOfLimitedJobs();
    }

    @Override
    public boolean markFailed(long instanceId, String error) {
        return transitions.markFailed(instanceId, error);
    }

    @Override
    public boolean retry(long instanceId, Instant nextTriggerTime, String error) {
        return transitions.retry(instanceId, nextTriggerTime, error);
    }

    @Override
    public boolean release(long instanceId) {
        return transitions.release(instanceId);
    }

    @Override
    public boolean markInterrupted(long instanceId, String reason) {
        return transitions.markInterrupted(instanceId, reason);
    }

    @Override
    public Set<Long> markCallStarted(Collection<Long> instanceIds, Instant now) {
        return batchTransitions.markCallStarted(instanceIds, now);
    }

    @Override
    public boolean skip(long instanceId, String reason) {
        return transitions.skip(instanceId, reason);
    }

    @Override
    public Optional<Instance> get(long instanceId) {
        return runner.autoCommit("get instance " + instanceId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_BY_ID)) {
                ps.setLong(1, instanceId);
                List<Instance> found = readAll(ps);
                return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
            }
        });
    }

    @Override
    public Optional<InstanceHistory> history(long instanceId) {
        return historyReads.history(instanceId);
    }

    @Override
    public Map<Long, Long> jobIdsOf(Collection<Long> instanceIds) {
        if (instanceIds.isEmpty()) {
            return Map.of();
        }
        return runner.autoCommit("read the jobs of " + instanceIds.size() + " instances", connection -> {
            Map<Long, Long> jobIds = new HashMap<>();
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_JOB_IDS)) {
                ps.setArray(1, connection.createArrayOf("bigint", instanceIds.toArray(new Long[0])));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        jobIds.put(rs.getLong(1), rs.getLong(2));
                    }
                }
            }
            return jobIds;
        });
    }

    @Override
    public Page<Instance, Long> listLatest(InstanceFilter filter, long beforeId, int limit) {
        return historyReads.listLatest(filter, beforeId, limit);
    }

    @Override
    public List<Instance> findWaiting(Collection<Integer> shards, WaitingCursor after, Instant dueBy, int limit) {
        QueryLimits.checkPageSize(limit);
        Objects.requireNonNull(after, "after");
        Objects.requireNonNull(dueBy, "dueBy");
        Integer[] shardArray = new TreeSet<>(shards).toArray(new Integer[0]);
        if (shardArray.length == 0 || after.dueMs() > dueBy.toEpochMilli()) {
            return List.of();
        }
        return runner.inTransaction("find waiting instances of " + shardArray.length + " shards", connection -> {
            dialect.preferIndexOrder(connection);
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.SELECT_WAITING_DUE)) {
                ps.setArray(1, connection.createArrayOf("integer", shardArray));
                ps.setLong(2, after.dueMs());
                ps.setLong(3, after.dueMs());
                ps.setLong(4, after.id());
                ps.setLong(5, dueBy.toEpochMilli());
                ps.setInt(6, limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<ForeignClaim> findForeignClaims(long afterId, int limit) {
        return foreignClaims.find(afterId, limit);
    }

    @Override
    public boolean releaseForeign(long instanceId, long claimEpoch) {
        return foreignClaims.release(instanceId, claimEpoch);
    }

    @Override
    public boolean interruptForeign(long instanceId, long claimEpoch, String reason) {
        return foreignClaims.interrupt(instanceId, claimEpoch, reason);
    }

    @Override
    public PurgeBatch purgeFinished(PurgeScope scope, Instant cutoff, long afterId, int limit) {
        return purge.purge(Objects.requireNonNull(scope, "scope"), Objects.requireNonNull(cutoff, "cutoff"), afterId,
                limit);
    }

    @Override
    public long maintainPartitions(Instant now, Instant cutoff, Set<Long> jobsKeptLonger) {
        if (!partitions.enabled()) {
            return 0;
        }
        return partitionRetention.dropExpired(Objects.requireNonNull(now, "now"),
                Objects.requireNonNull(cutoff, "cutoff"), Set.copyOf(jobsKeptLonger));
    }

    @Override
    public Instant rowPurgeCutoff(Instant cutoff) {
        return partitions.enabled() ? PartitionRetention.rowPurgeCutoff(cutoff) : cutoff;
    }

    @Override
    public Map<InstanceStatus, Long> countByStatus() {
        return runner.autoCommit("count instances by status", connection -> {
            Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
            for (InstanceStatus status : InstanceStatus.values()) {
                counts.put(status, 0L);
            }
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.COUNT_BY_STATUS);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.put(InstanceStatus.valueOf(rs.getString("status")), rs.getLong("n"));
                }
            }
            return counts;
        });
    }

    private static List<Instance> readAll(PreparedStatement ps) throws SQLException {
        List<Instance> instances = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                instances.add(InstanceRowMapper.read(rs));
            }
        }
        return instances;
    }
}
