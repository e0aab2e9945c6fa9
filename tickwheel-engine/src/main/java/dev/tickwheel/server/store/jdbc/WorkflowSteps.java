package dev.tickwheel.server.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.instance.RunKeys;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.instance.WorkflowStep;
import dev.tickwheel.server.store.StoreException;
import dev.tickwheel.server.store.WorkflowCancel;
import dev.tickwheel.server.store.WorkflowStart;
import dev.tickwheel.server.workflow.Stepper;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.WorkflowRun;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Workflow runs: starting one, the step after a node's instance ends, cancelling one, reading one.
 *
 * <p><b>One transaction per step.</b> The final status of a node's instance is written in the same transaction that
 * records it on the node, decides the run's next steps ({@link Stepper}) and inserts the instances of the nodes that
 * start (as keyed runs of their jobs, key {@code tickwheel:wf-<run>-<node>}, through {@link OnDemandRuns#insertOn}). So a crash
 * either loses the whole step, and the instance is still DISPATCHING and is delivered again, or keeps all of it: a
 * step is never lost or made twice. Every step of a run first locks the run's row ({@code FOR UPDATE}), so two
 * parents of one node ending at once on two members are applied one after the other, and the second sees the first's
 * status (fan-in).
 *
 * <p>An instance that ends by another way (cancelled, skipped, interrupted, failed for a deleted job) is stepped by
 * {@link #sweep}, which every member's loader pass runs: it finds started nodes whose instance is final and applies
 * the same step. A node row moves from STARTED once ({@code ... AND status = 'STARTED'}), so the sweep and a settle
 * that race apply the step once.
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class WorkflowSteps {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Why a node's instance was cancelled with its run. */
    static final String CANCELLED_WITH_RUN = "cancelled with its workflow run";

    private static final String RUN_COLUMNS = "id, workflow_id, run_key, status, params, created_at_ms, updated_at_ms";
    private static final String INSERT_RUN = "INSERT INTO tw_workflow_run (" + RUN_COLUMNS + ") VALUES (?, ?, ?, ?, ?,"
            + " ?, ?)";
    private static final String SELECT_RUN = "SELECT " + RUN_COLUMNS + " FROM tw_workflow_run WHERE id = ?";
    private static final String LOCK_RUN = SELECT_RUN + " FOR UPDATE";
    private static final String SELECT_RUN_BY_KEY = "SELECT " + RUN_COLUMNS + " FROM tw_workflow_run"
            + " WHERE workflow_id = ? AND run_key = ?";
    private static final String SET_RUN_STATUS = "UPDATE tw_workflow_run SET status = ?, updated_at_ms = ?"
            + " WHERE id = ?";
    private static final String INSERT_NODE = "INSERT INTO tw_workflow_node_run (run_id, node_id, status, instance_id)"
            + " VALUES (?, ?, ?, ?)";
    private static final String SELECT_NODES = "SELECT n.node_id, n.status, n.instance_id, i.status AS instance_status"
            + " FROM tw_workflow_node_run n LEFT JOIN tw_instance i ON i.id = n.instance_id WHERE n.run_id = ?";
    /** Parameters: final status, run, node. A node leaves STARTED once. */
    private static final String END_NODE = "UPDATE tw_workflow_node_run SET status = ? WHERE run_id = ?"
            + " AND node_id = ? AND status = '" + Stepper.STARTED + "'";
    private static final String SET_NODE = "UPDATE tw_workflow_node_run SET status = ?, instance_id = ?"
            + " WHERE run_id = ? AND node_id = ?";
    private static final String SELECT_OUTCOMES = "SELECT id, status, output FROM tw_instance WHERE id = ?";
    /** Parameters: reason, updated at, id. A node's waiting instance cancelled with its run. */
    private static final String CANCEL_WAITING = "UPDATE tw_instance SET status = '"
            + InstanceTransition.CANCEL.to() + "', error = ?, updated_at_ms = ? WHERE id = ? AND status = '"
            + InstanceTransition.CANCEL.from() + "'";
    /** Parameters: limit. Started nodes of running runs whose instance has ended. */
    private static final String SELECT_STALLED = "SELECT n.run_id, n.node_id, i.status FROM tw_workflow_run r"
            + " JOIN tw_workflow_node_run n ON n.run_id = r.id JOIN tw_instance i ON i.id = n.instance_id"
            + " WHERE r.status = 'RUNNING' AND n.status = '" + Stepper.STARTED + "'"
            + " AND i.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED', 'INTERRUPTED') ORDER BY n.run_id LIMIT ?";

    private final TransactionRunner runner;
    private final Clock clock;
    private final OnDemandRuns runs;
    private final HistoryPartitions partitions;
    /** Definitions by id: a workflow never changes once created. */
    private final Cache<Long, Workflow> definitions = Caffeine.newBuilder().maximumSize(10_000).build();

    WorkflowSteps(TransactionRunner runner, Clock clock, OnDemandRuns runs, HistoryPartitions partitions) {
        this.runner = runner;
        this.clock = clock;
        this.runs = runs;
        this.partitions = partitions;
    }

    /** @see dev.tickwheel.server.store.InstanceStore#startWorkflowRun */
    WorkflowStart start(long runId, long workflowId, String key, String params, LongSupplier ids) {
        Workflow workflow = definition(workflowId).orElseThrow(
                () -> new NoSuchElementException("no workflow " + workflowId));
        prepare(ids);
        try {
            return runner.inTransaction("start a run of workflow " + workflowId, c -> {
                if (key != null) {
                    Optional<WorkflowRun> existing = runByKey(c, workflowId, key, workflow);
                    if (existing.isPresent()) {
                        return new WorkflowStart(existing.get(), false, List.of());
                    }
                }
                long nowMs = clock.millis();
                try (PreparedStatement ps = c.prepareStatement(INSERT_RUN)) {
                    ps.setLong(1, runId);
                    ps.setLong(2, workflowId);
                    JdbcValues.setString(ps, 3, key);
                    ps.setString(4, WorkflowRun.Status.RUNNING.name());
                    JdbcValues.setString(ps, 5, params);
                    ps.setLong(6, nowMs);
                    ps.setLong(7, nowMs);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement(INSERT_NODE)) {
                    for (Workflow.Node node : workflow.nodes()) {
                        ps.setLong(1, runId);
                        ps.setString(2, node.id());
                        ps.setString(3, Stepper.PENDING);
                        JdbcValues.setLong(ps, 4, null);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                Run run = new Run(runId, workflowId, params);
                List<Instance> created = step(c, run, workflow, ids, nowMs);
                return new WorkflowStart(read(c, runId, workflow).orElseThrow(), true, created);
            });
        } catch (StoreException e) {
            if (key != null && DuplicateIds.isUniqueViolation(e)) { // a concurrent start with this key won
                return runner.autoCommit("read the run of key " + key, c -> new WorkflowStart(
                        runByKey(c, workflowId, key, workflow).orElseThrow(() -> e), false, List.of()));
            }
            throw e;
        }
    }

    /**
     * After a node's instance reached {@code finalStatus} on {@code c} (inside the caller's transaction): records it
     * on the node and takes the run's next step. Returns the instances created (to arm).
     */
    List<Instance> afterFinal(Connection c, WorkflowStep step, String finalStatus, LongSupplier ids)
            throws SQLException {
        Run run = lock(c, step.runId());
        if (run == null) {
            return List.of(); // the run is gone (retention): nothing to step
        }
        int moved;
        try (PreparedStatement ps = c.prepareStatement(END_NODE)) {
            ps.setString(1, finalStatus);
            ps.setLong(2, step.runId());
            ps.setString(3, step.node());
            moved = ps.executeUpdate();
        }
        if (moved == 0 || !run.running) {
            return List.of(); // stepped already (the sweep, or a repeat), or the run is over: recorded only
        }
        Workflow workflow = definition(run.workflowId).orElseThrow(
                () -> new IllegalStateException("workflow " + run.workflowId + " of run " + run.id + " is gone"));
        return step(c, run, workflow, ids, clock.millis());
    }

    /**
     * Applies the run's next steps until nothing changes: skips, the starts (inserting their instances), a start
     * whose job is gone as FAILED (which may decide more nodes), and the run's end.
     */
    private List<Instance> step(Connection c, Run run, Workflow workflow, LongSupplier ids, long nowMs)
            throws SQLException {
        List<Instance> created = new ArrayList<>();
        while (true) {
            Map<String, NodeRow> nodes = nodes(c, run.id);
            Map<String, String> statuses = new LinkedHashMap<>();
            nodes.forEach((id, row) -> statuses.put(id, row.status));
            Stepper.Step next = Stepper.next(workflow, statuses);
            try (PreparedStatement ps = c.prepareStatement(SET_NODE)) {
                for (String skipped : next.skip()) {
                    setNode(ps, run.id, skipped, Stepper.SKIPPED, null);
                }
            }
            boolean jobGone = false;
            if (!next.start().isEmpty()) {
                List<NewInstance> starts = new ArrayList<>();
                for (String nodeId : next.start()) {
                    Workflow.Node node = workflow.node(nodeId);
                    starts.add(new NewInstance(ids.getAsLong(), node.jobId(), clock.instant(), run.params,
                            RunKeys.RESERVED_PREFIX + "wf-" + run.id + "-" + nodeId, null, null, null,
                            new WorkflowStep(run.id, nodeId, upstream(c, workflow, nodeId, nodes))));
                }
                List<RunWrite> writes = runs.insertOn(c, starts, nowMs);
                try (PreparedStatement ps = c.prepareStatement(SET_NODE)) {
                    for (int i = 0; i < starts.size(); i++) {
                        RunWrite write = writes.get(i);
                        String nodeId = next.start().get(i);
                        if (write.outcome() == RunWrite.Outcome.NO_JOB) {
                            setNode(ps, run.id, nodeId, InstanceStatus.FAILED.name(), null);
                            jobGone = true;
                        } else {
                            setNode(ps, run.id, nodeId, Stepper.STARTED, write.instance().id());
                            if (write.outcome() == RunWrite.Outcome.CREATED) {
                                created.add(write.instance());
                            }
                        }
                    }
                }
            }
            if (jobGone) {
                continue; // a node that could not start failed: decide again
            }
            if (next.runStatus() != null) {
                try (PreparedStatement ps = c.prepareStatement(SET_RUN_STATUS)) {
                    ps.setString(1, next.runStatus().name());
                    ps.setLong(2, nowMs);
                    ps.setLong(3, run.id);
                    ps.executeUpdate();
                }
            }
            return created;
        }
    }

    /** {@code {"<parent>": {"instanceId", "status", "output"}}} of the node's parents, as they ended. */
    private static String upstream(Connection c, Workflow workflow, String nodeId, Map<String, NodeRow> nodes)
            throws SQLException {
        ObjectNode upstream = JSON.createObjectNode();
        for (Workflow.Edge edge : workflow.edgesInto(nodeId)) {
            NodeRow parent = nodes.get(edge.from());
            ObjectNode entry = upstream.putObject(edge.from());
            entry.put("instanceId", parent.instanceId == null ? null : Long.toString(parent.instanceId));
            entry.put("status", parent.status);
            entry.putNull("output");
            if (parent.instanceId == null) {
                continue;
            }
            try (PreparedStatement ps = c.prepareStatement(SELECT_OUTCOMES)) {
                ps.setLong(1, parent.instanceId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getString("output") != null) {
                        try {
                            entry.set("output", JSON.readTree(rs.getString("output")));
                        } catch (JsonProcessingException storedOutputIsJson) {
                            entry.put("output", rs.getString("output"));
                        }
                    }
                }
            }
        }
        return upstream.toString();
    }

    /** @see dev.tickwheel.server.store.InstanceStore#cancelWorkflowRun */
    Optional<WorkflowCancel> cancel(long runId) {
        return runner.inTransaction("cancel workflow run " + runId, c -> {
            Run run = lock(c, runId);
            if (run == null) {
                return Optional.empty();
            }
            Workflow workflow = definition(run.workflowId).orElseThrow();
            if (!run.running) {
                return Optional.of(new WorkflowCancel(read(c, runId, workflow).orElseThrow(), List.of(), false));
            }
            long nowMs = clock.millis();
            List<Long> cancelled = new ArrayList<>();
            try (PreparedStatement setNode = c.prepareStatement(SET_NODE);
                    PreparedStatement cancelWaiting = c.prepareStatement(CANCEL_WAITING)) {
                for (Map.Entry<String, NodeRow> node : nodes(c, runId).entrySet()) {
                    NodeRow row = node.getValue();
                    if (Stepper.PENDING.equals(row.status)) {
                        setNode(setNode, runId, node.getKey(), Stepper.SKIPPED, null);
                    } else if (Stepper.STARTED.equals(row.status)) {
                        cancelWaiting.setString(1, CANCELLED_WITH_RUN);
                        cancelWaiting.setLong(2, nowMs);
                        cancelWaiting.setLong(3, row.instanceId);
                        if (cancelWaiting.executeUpdate() == 1) {
                            cancelled.add(row.instanceId);
                            setNode(setNode, runId, node.getKey(), InstanceStatus.CANCELLED.name(),
                                    row.instanceId);
                        } // a DISPATCHING one runs on; its end is recorded, and steps nothing
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(SET_RUN_STATUS)) {
                ps.setString(1, WorkflowRun.Status.CANCELLED.name());
                ps.setLong(2, nowMs);
                ps.setLong(3, runId);
                ps.executeUpdate();
            }
            return Optional.of(new WorkflowCancel(read(c, runId, workflow).orElseThrow(), cancelled, true));
        });
    }

    /** @see dev.tickwheel.server.store.InstanceStore#findWorkflowRun */
    Optional<WorkflowRun> find(long runId) {
        return runner.autoCommit("read workflow run " + runId, c -> {
            Run run = select(c, SELECT_RUN, runId);
            if (run == null) {
                return Optional.empty();
            }
            return read(c, runId, definition(run.workflowId).orElseThrow());
        });
    }

    /**
     * @see dev.tickwheel.server.store.InstanceStore#advanceWorkflowRuns
     */
    List<Instance> sweep(int limit, LongSupplier ids) {
        QueryLimits.checkPageSize(limit);
        List<Object[]> stalled = runner.autoCommit("find stalled workflow steps", c -> {
            List<Object[]> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(SELECT_STALLED)) {
                ps.setInt(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new Object[] {rs.getLong(1), rs.getString(2), rs.getString(3)});
                    }
                }
            }
            return rows;
        });
        List<Instance> created = new ArrayList<>();
        for (Object[] row : stalled) {
            long runId = (Long) row[0];
            String node = (String) row[1];
            String status = (String) row[2];
            created.addAll(runner.inTransaction("step workflow run " + runId,
                    c -> afterFinal(c, new WorkflowStep(runId, node, "{}"), status, ids)));
        }
        return created;
    }

    /**
     * Makes sure the history has partitions for instances minted now (they fall on today's), before a transaction
     * that may create some: a partition is made outside the transactions that insert into it.
     */
    void prepare(LongSupplier ids) {
        partitions.prepareFor(List.of(new NewInstance(ids.getAsLong(), 1, clock.instant(), null)), false);
    }

    Optional<Workflow> definition(long workflowId) {
        Workflow cached = definitions.getIfPresent(workflowId);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<Workflow> read = runner.autoCommit("read workflow " + workflowId, c -> {
            try (PreparedStatement ps = c.prepareStatement(JdbcWorkflowStore.SELECT_BY_ID)) {
                ps.setLong(1, workflowId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(WorkflowJson.read(rs)) : Optional.<Workflow>empty();
                }
            }
        });
        read.ifPresent(w -> definitions.put(workflowId, w));
        return read;
    }

    private record Run(long id, long workflowId, String params, boolean running) {
        Run(long id, long workflowId, String params) {
            this(id, workflowId, params, true);
        }
    }

    private record NodeRow(String status, Long instanceId, String instanceStatus) {
    }

    private static Run lock(Connection c, long runId) throws SQLException {
        return select(c, LOCK_RUN, runId);
    }

    private static Run select(Connection c, String sql, long runId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Run(rs.getLong("id"), rs.getLong("workflow_id"), rs.getString("params"),
                        WorkflowRun.Status.valueOf(rs.getString("status")) == WorkflowRun.Status.RUNNING);
            }
        }
    }

    private static Map<String, NodeRow> nodes(Connection c, long runId) throws SQLException {
        Map<String, NodeRow> nodes = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(SELECT_NODES)) {
            ps.setLong(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    nodes.put(rs.getString("node_id"), new NodeRow(rs.getString("status"),
                            JdbcValues.getLong(rs, "instance_id"), rs.getString("instance_status")));
                }
            }
        }
        return nodes;
    }

    private static void setNode(PreparedStatement ps, long runId, String node, String status, Long instanceId)
            throws SQLException {
        ps.setString(1, status);
        JdbcValues.setLong(ps, 2, instanceId);
        ps.setLong(3, runId);
        ps.setString(4, node);
        ps.executeUpdate();
    }

    private Optional<WorkflowRun> runByKey(Connection c, long workflowId, String key, Workflow workflow)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_RUN_BY_KEY)) {
            ps.setLong(1, workflowId);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return read(c, rs.getLong("id"), workflow);
            }
        }
    }

    /** The run with its nodes in the workflow's order: a started node shows its instance's status. */
    private static Optional<WorkflowRun> read(Connection c, long runId, Workflow workflow) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_RUN)) {
            ps.setLong(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Map<String, NodeRow> rows = nodes(c, runId);
                List<WorkflowRun.NodeRun> nodes = new ArrayList<>();
                for (Workflow.Node node : workflow.nodes()) {
                    NodeRow row = rows.get(node.id());
                    String status = Stepper.STARTED.equals(row.status) && row.instanceStatus != null
                            ? row.instanceStatus : row.status;
                    nodes.add(new WorkflowRun.NodeRun(node.id(), status, row.instanceId));
                }
                return Optional.of(new WorkflowRun(runId, rs.getLong("workflow_id"), rs.getString("run_key"),
                        WorkflowRun.Status.valueOf(rs.getString("status")), rs.getString("params"),
                        JdbcValues.getInstant(rs, "created_at_ms"), JdbcValues.getInstant(rs, "updated_at_ms"),
                        nodes));
            }
        }
    }
}
