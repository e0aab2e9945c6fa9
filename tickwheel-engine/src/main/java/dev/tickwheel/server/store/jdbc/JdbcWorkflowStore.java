package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.WorkflowStore;
import dev.tickwheel.server.workflow.Workflow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link WorkflowStore} over JDBC: one row per workflow, its DAG as JSON ({@link WorkflowJson}).
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 */
final class JdbcWorkflowStore implements WorkflowStore {

    private static final String INSERT = "INSERT INTO tw_workflow (" + WorkflowJson.COLUMNS + ") VALUES (?, ?, ?, ?,"
            + " ?)";
    static final String SELECT_BY_ID = "SELECT " + WorkflowJson.COLUMNS + " FROM tw_workflow WHERE id = ?";
    private static final String SELECT_ALL = "SELECT " + WorkflowJson.COLUMNS + " FROM tw_workflow ORDER BY id";

    private final TransactionRunner runner;

    JdbcWorkflowStore(TransactionRunner runner) {
        this.runner = runner;
    }

    @Override
    public void insert(Workflow workflow) {
        runner.autoCommit("insert workflow " + workflow.id(), connection -> {
            try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
                ps.setLong(1, workflow.id());
                ps.setString(2, workflow.name());
                ps.setString(3, WorkflowJson.write(workflow));
                JdbcValues.setLong(ps, 4, workflow.triggerJobId());
                ps.setLong(5, workflow.createdAt().toEpochMilli());
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<Workflow> get(long id) {
        return runner.autoCommit("read workflow " + id, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(SELECT_BY_ID)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(WorkflowJson.read(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<Workflow> list() {
        return runner.autoCommit("list workflows", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(SELECT_ALL);
                    ResultSet rs = ps.executeQuery()) {
                List<Workflow> all = new ArrayList<>();
                while (rs.next()) {
                    all.add(WorkflowJson.read(rs));
                }
                return all;
            }
        });
    }
}
